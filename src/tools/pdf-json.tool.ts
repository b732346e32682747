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
import { isMonoFragment, LIST_LINE, segments, TOC_LINE } from './pdf-md.tool.ts';
import type { PdfJsonBlock, PdfJsonPage, PdfJsonResult, ProgressFn } from './tool-types.ts';

const r2 = (n: number) => Math.round(n * 100) / 100;

interface PageRead {
  frame: Frame;
  fragments: Fragment[];
}

/** With `range`, only those pages (numbered as in the document), so consecutive ranges concatenate. */
export async function pdfJson(doc: PdfDocument, onProgress?: ProgressFn, range?: PageRange): Promise<PdfJsonResult> {
  const visits = await mapPages(doc, (page): PageRead => readPageText(page), onProgress, undefined, range);
  const pages = visits.map((v) => {
    const empty = { pageNumber: v.pageNumber, read: null, blocks: [] as Block[], tableFragments: new Set<Fragment>(), furniture: new Set<Fragment>(), headingSizes: [] as number[] };
    if (!v.value) return empty;
    const { frame, fragments } = v.value;
    const furniture = findFurniture([{ height: frame.height, fragments }]);
    const sizeChars = new Map<number, number>();
    for (const f of fragments) if (!furniture.has(f)) sizeChars.set(Math.round(f.size * 2) / 2, (sizeChars.get(Math.round(f.size * 2) / 2) ?? 0) + f.text.length);
    const body = [...sizeChars.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
    // Code and prose the spacing did not part are two blocks (as pdf-md fences the code).
    const blocks = buildBlocks(readingOrder(fragments)).flatMap(segments);
    const tables = findAlignedTables(fragments.filter((f) => !furniture.has(f)), body || 10, (row) => row.every(isMonoFragment) || row.some((f) => TOC_LINE.test(f.text)));
    const headingSizes = [...new Set(blocks.filter((b) => b.lines.length <= 3 && !b.lines.some((l) => furniture.has(l) || TOC_LINE.test(l.text))).map((b) => Math.round(b.size * 2) / 2))]
      .filter((size) => size >= body * 1.15)
      .sort((a, b) => b - a);
    return { pageNumber: v.pageNumber, read: v.value, blocks, tableFragments: new Set(tables.flatMap((t) => t.fragments)), furniture, headingSizes };
  });
  const kindOf = (b: Block, frame: Frame, tableFragments: Set<Fragment>, furniture: Set<Fragment>, headingSizes: number[]): Pick<PdfJsonBlock, 'kind' | 'level'> => {
    if (b.lines.every((l) => furniture.has(l))) return { kind: b.top < frame.height / 2 ? 'header' : 'footer', level: null };
    if (b.lines.every((l) => tableFragments.has(l))) return { kind: 'table', level: null };
    if (b.lines.every(isMonoFragment)) return { kind: 'code', level: null };
    const i = b.lines.length <= 3 && !b.lines.some((l) => TOC_LINE.test(l.text)) ? headingSizes.indexOf(Math.round(b.size * 2) / 2) : -1;
    if (i >= 0) return { kind: 'heading', level: Math.min(i + 1, 6) };
    if (LIST_LINE.test(b.lines[0].text) || b.lines.some((l) => TOC_LINE.test(l.text))) return { kind: 'list', level: null };
    return { kind: 'paragraph', level: null };
  };
  return {
    pages: pages.map(({ pageNumber, read, blocks, tableFragments, furniture, headingSizes }): PdfJsonPage => {
      if (!read) return { page: pageNumber, width: 0, height: 0, blocks: [] };
      const { frame } = read;
      return {
        page: pageNumber,
        width: r2(frame.displayWidth),
        height: r2(frame.displayHeight),
        blocks: blocks.map((b) => {
          const corners = [frame.toDisplay(b.x0, b.top), frame.toDisplay(b.x1, b.bottom)];
          const x = Math.min(corners[0][0], corners[1][0]);
          const y = Math.min(corners[0][1], corners[1][1]);
          return {
            text: b.lines.map((l) => l.text).join('\n'),
            x: r2(x),
            y: r2(y),
            width: r2(Math.abs(corners[1][0] - corners[0][0])),
            height: r2(Math.abs(corners[1][1] - corners[0][1])),
            font_size: r2(b.size),
            font_name: fontNameOf(b.fontId),
            ...kindOf(b, frame, tableFragments, furniture, headingSizes),
            page: pageNumber,
          };
        }),
      };
    }),
  };
}
