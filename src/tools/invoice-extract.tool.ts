/**
 * invoice-extract: fields of an invoice from a PDF text layer, or from OCR of a PNG/JPEG
 * image. Both paths end as the same positioned rows of cells, so one set of heuristics
 * (invoice/invoice-fields.ts) serves both.
 */
import { AppError } from '../http/app-error.ts';
import type { DocumentKind } from './inspect-document.ts';
import { extractInvoiceFields, makeRow, type InvoiceRow } from './invoice/invoice-fields.ts';
import { openPdf } from './pdf/open-pdf.ts';
import { fontNameOf, isBoldFont } from './pdf/page-fonts.ts';
import { buildFragments, readPageText, type Fragment, type TextRun } from './pdf/page-layout.ts';
import type { RunToolDeps } from './run-tool.ts';
import type { InvoiceResult } from './tool-types.ts';

/** Invoices are short; past this many pages the rest is terms and conditions. */
const MAX_INVOICE_PAGES = 20;

/** Groups fragments into rows of cells, top to bottom. */
export function fragmentsToRows(fragments: Fragment[], boldOf: (f: Fragment) => boolean, rowTolerance = 0.35): InvoiceRow[] {
  const sorted = [...fragments].sort((a, b) => a.baseline - b.baseline || a.x0 - b.x0);
  const rows: Fragment[][] = [];
  for (const f of sorted) {
    const row = rows[rows.length - 1];
    if (row && Math.abs(row[0].baseline - f.baseline) <= rowTolerance * Math.max(row[0].size, f.size)) row.push(f);
    else rows.push([f]);
  }
  return rows.map((row) => {
    row.sort((a, b) => a.x0 - b.x0);
    return makeRow(
      row.map((f) => ({ text: f.text, x0: f.x0, x1: f.x1 })),
      row[0].baseline,
      Math.max(...row.map((f) => f.size)),
      row.every(boldOf),
    );
  });
}

async function rowsFromPdf(bytes: Uint8Array, deps: RunToolDeps): Promise<InvoiceRow[]> {
  const doc = await openPdf(bytes);
  try {
    const rows: InvoiceRow[] = [];
    let offset = 0;
    const pages = Math.min(doc.numPages, MAX_INVOICE_PAGES);
    for (let n = 1; n <= pages; n++) {
      const page = await doc.getPage(n);
      try {
        const { frame, fragments } = await readPageText(page);
        if (fragments.length) await page.getOperatorList();
        // Pages stack vertically so rows keep document order.
        const shifted = fragments.map((f) => ({ ...f, baseline: f.baseline + offset, top: f.top + offset, bottom: f.bottom + offset }));
        rows.push(...fragmentsToRows(shifted, (f) => isBoldFont(fontNameOf(page, f.fontId))));
        offset += frame.height + 100;
      } finally {
        page.cleanup();
      }
      deps.onProgress?.(n, pages);
    }
    return rows;
  } finally {
    await doc.destroy();
  }
}

export async function invoiceExtract(bytes: Uint8Array, kind: DocumentKind, deps: RunToolDeps): Promise<InvoiceResult> {
  if (kind === 'pdf') {
    const rows = await rowsFromPdf(bytes, deps);
    if (rows.length) return extractInvoiceFields(rows, { textConfidence: 1 });
    throw new AppError('invalid_document', 422, 'the PDF has no text layer (a scan): send the invoice as a PNG or JPEG image for OCR', {
      hint: 'export the scanned page as an image',
    });
  }
  let page;
  try {
    page = await deps.ocr().recognize(bytes);
  } catch (error) {
    throw new AppError('invalid_document', 422, `the image could not be decoded: ${(error as Error)?.message ?? error}`);
  }
  deps.onProgress?.(1, 1);
  const runs: TextRun[] = page.runs;
  // OCR baselines wobble more than a text layer's: a looser row tolerance.
  const rows = fragmentsToRows(buildFragments(runs, 1.0), () => false, 0.55);
  return extractInvoiceFields(rows, { textConfidence: page.confidence });
}
