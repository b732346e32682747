/**
 * pdf-text: plain text in reading order. Lines of one paragraph are separated by \n,
 * paragraphs by a blank line, cells of one table row by \t, pages by \f (as pdftotext).
 */
import type { PdfDocument } from './pdf/open-pdf.ts';
import { mapPages, type PageRange } from './pdf/pdf-pages.ts';
import { groupBlocks, readingOrder, readPageText, sameRowOf, type Fragment } from './pdf/page-layout.ts';
import type { PdfTextResult, ProgressFn } from './tool-types.ts';

/** Joins ordered fragments into text, keeping rows, paragraphs and columns apart. */
export function fragmentsToText(ordered: Fragment[]): string {
  const blockOf = new Map<Fragment, number>();
  groupBlocks(ordered).forEach((lines, i) => lines.forEach((f) => blockOf.set(f, i)));
  // Consecutive fragments on one baseline form a row (table cells, or columns of a form).
  const rows: Fragment[][] = [];
  for (const f of ordered) {
    const row = rows[rows.length - 1];
    const last = row?.[row.length - 1];
    if (last && sameRowOf(last, f) && f.x0 > last.x1) row.push(f);
    else rows.push([f]);
  }
  let text = '';
  let prev: Fragment[] | null = null;
  for (const row of rows) {
    if (prev) {
      const a = prev[0];
      const b = row[0];
      if (blockOf.get(a) === blockOf.get(b) || (prev.length > 1 && row.length > 1 && b.baseline > a.baseline)) text += '\n';
      else {
        // A new paragraph: blank line when it is set apart (space above, or a new column).
        const gap = Math.min(...row.map((f) => f.top)) - Math.max(...prev.map((f) => f.bottom));
        text += gap > 0.9 * Math.min(a.size, b.size) || b.baseline < a.baseline ? '\n\n' : '\n';
      }
    }
    text += row.map((f) => f.text).join('\t');
    prev = row;
  }
  return text;
}

/**
 * With `range`, only those pages: their texts joined by \f, `pages` still the document's
 * count. Joining the texts of consecutive ranges with \f gives the whole document's text.
 */
export async function pdfText(doc: PdfDocument, onProgress?: ProgressFn, range?: PageRange): Promise<PdfTextResult> {
  const pages = await mapPages(
    doc,
    (page) => fragmentsToText(readingOrder(readPageText(page).fragments)),
    onProgress,
    undefined,
    range,
  );
  return { text: pages.map((p) => p.value ?? '').join('\f'), pages: doc.numPages };
}
