/**
 * pdf-json: positioned text blocks (paragraphs) per page, in reading order, each with its
 * kind (heading, paragraph, list, code, table, header, footer), heading level and page, so a
 * program gets the structure pdf-md renders. Coordinates are PDF points with the origin at the
 * top-left of the page as displayed, so they match what a viewer shows even for rotated pages.
 *
 * Every character of the text layer is in some block (headers and footers included, marked
 * as such): pdf-json's words are pdf-text's words. Kinds are judged page by page: the pool
 * splits long pdf-json jobs across workers and the answer must not depend on the split, so
 * only what one page shows counts (a page number set apart in the top or bottom band is
 * furniture; heading levels rank the page's own sizes above its body size). pdf-md, which
 * sees the whole document, also finds running headers whose text changes.
 */
import type { PdfDocument } from './pdf/open-pdf.ts';
import { mapPages, type PageRange } from './pdf/pdf-pages.ts';
import { fontNameOf } from './pdf/page-fonts.ts';
import { findFurniture } from './pdf/page-furniture.ts';
import { buildBlocks, readingOrder, readPageText, type Block, type Fragment, type Frame } from './pdf/page-layout.ts';
import { findAlignedTables } from './pdf/aligned-tables.ts';
import { findTables, readRulings, type Table } from './pdf/ruled-tables.ts';
import { isMonoFragment, isTocLine, LIST_LINE, segments } from './pdf-md.tool.ts';
import type { PdfJsonBlock, PdfJsonPage, PdfJsonResult, ProgressFn } from './tool-types.ts';

const r2 = (n: number) => Math.round(n * 100) / 100;

interface PageRead {
  frame: Frame;
  fragments: Fragment[];
  ruled: Table[];
}

/** With `range`, only those pages (numbered as in the document), so consecutive ranges concatenate. */
export async function pdfJson(doc: PdfDocument, onProgress?: ProgressFn, range?: PageRange): Promise<PdfJsonResult> {
  const visits = await mapPages(
    doc,
    (page): PageRead => {
      const { frame, fragments, rules } = readPageText(page);
      return { frame, fragments, ruled: fragments.length ? findTables(readRulings(page, frame, rules), fragments) : [] };
    },
    onProgress,
    undefined,
    range,
  );
  const pages = visits.map((v) => {
    const empty = { pageNumber: v.pageNumber, read: null, blocks: [] as Block[], tables: [] as Table[], tableFragments: new Set<Fragment>(), furniture: new Set<Fragment>(), headingSizes: [] as number[] };
    if (!v.value) return empty;
    const { frame, fragments } = v.value;
    const furniture = findFurniture([{ height: frame.height, fragments }]);
    const sizeChars = new Map<number, number>();
    for (const f of fragments) if (!furniture.has(f)) sizeChars.set(Math.round(f.size * 2) / 2, (sizeChars.get(Math.round(f.size * 2) / 2) ?? 0) + f.text.length);
    const body = [...sizeChars.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
    // Code and prose the spacing did not part are two blocks (as pdf-md fences the code).
    const blocks = buildBlocks(readingOrder(fragments)).flatMap(segments);
    const kept = fragments.filter((f) => !furniture.has(f));
    // As pdf-md: where an aligned table overlaps a ruled one, the one with more columns wins
    // (a ruled table whose rules say which cells span keeps them).
    let aligned = findAlignedTables(kept, body || 10, (row) => row.some((f) => isTocLine(f.text)), isMonoFragment);
    const overlaps = (a: Table, b: Table) => a.x0 < b.x1 && b.x0 < a.x1 && a.top < b.bottom && b.top < a.bottom;
    const columns = (t: Table) => Math.max(0, ...t.rows.map((r) => r.length));
    const ruled = v.value.ruled.filter((t) => t.cells || !aligned.some((a) => overlaps(a, t) && columns(a) > columns(t)));
    aligned = aligned.filter((a) => !ruled.some((t) => overlaps(a, t)));
    const inRuled = (f: Fragment) => ruled.some((t) => (f.x0 + f.x1) / 2 > t.x0 && (f.x0 + f.x1) / 2 < t.x1 && f.baseline - f.size * 0.3 > t.top && f.baseline - f.size * 0.3 < t.bottom);
    const tableFragments = new Set([...aligned.flatMap((t) => t.fragments), ...kept.filter(inRuled)]);
    const tables: Table[] = [...ruled, ...aligned.map(({ fragments: _, ...t }) => t)].sort((a, b) => a.top - b.top || a.x0 - b.x0);
    const headingSizes = [...new Set(blocks.filter((b) => b.lines.length <= 3 && !b.lines.some((l) => furniture.has(l) || isTocLine(l.text))).map((b) => Math.round(b.size * 2) / 2))]
      .filter((size) => size >= body * 1.15)
      .sort((a, b) => b - a);
    return { pageNumber: v.pageNumber, read: v.value, blocks, tables, tableFragments, furniture, headingSizes };
  });
  const kindOf = (b: Block, frame: Frame, tableFragments: Set<Fragment>, furniture: Set<Fragment>, headingSizes: number[]): Pick<PdfJsonBlock, 'kind' | 'level'> => {
    if (b.lines.every((l) => furniture.has(l))) return { kind: b.top < frame.height / 2 ? 'header' : 'footer', level: null };
    if (b.lines.every((l) => tableFragments.has(l))) return { kind: 'table', level: null };
    if (b.lines.every(isMonoFragment)) return { kind: 'code', level: null };
    const i = b.lines.length <= 3 && !b.lines.some((l) => isTocLine(l.text)) ? headingSizes.indexOf(Math.round(b.size * 2) / 2) : -1;
    if (i >= 0) return { kind: 'heading', level: Math.min(i + 1, 6) };
    if (LIST_LINE.test(b.lines[0].text) || b.lines.some((l) => isTocLine(l.text))) return { kind: 'list', level: null };
    return { kind: 'paragraph', level: null };
  };
  // The document's outline goes with its first page, so a split job's chunks merge to the same answer.
  const outline = !range || range.first === 1 ? doc.outline().map((e) => ({ title: e.title, level: e.depth, page: e.page })) : [];
  return {
    pages: pages.map(({ pageNumber, read, blocks, tables, tableFragments, furniture, headingSizes }): PdfJsonPage => {
      if (!read) return { page: pageNumber, width: 0, height: 0, blocks: [], tables: [] };
      const { frame } = read;
      const box = (b: { x0: number; x1: number; top: number; bottom: number }) => {
        const corners = [frame.toDisplay(b.x0, b.top), frame.toDisplay(b.x1, b.bottom)];
        return {
          x: r2(Math.min(corners[0][0], corners[1][0])),
          y: r2(Math.min(corners[0][1], corners[1][1])),
          width: r2(Math.abs(corners[1][0] - corners[0][0])),
          height: r2(Math.abs(corners[1][1] - corners[0][1])),
        };
      };
      return {
        page: pageNumber,
        width: r2(frame.displayWidth),
        height: r2(frame.displayHeight),
        tables: tables.map((t) => ({ ...box(t), rows: t.rows, cells: t.cells ?? null })),
        blocks: blocks.map((b) => {
          return {
            text: b.lines.map((l) => l.text).join('\n'),
            ...box(b),
            font_size: r2(b.size),
            font_name: fontNameOf(b.fontId),
            ...kindOf(b, frame, tableFragments, furniture, headingSizes),
            page: pageNumber,
          };
        }),
      };
    }),
    outline,
  };
}
