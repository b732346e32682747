/**
 * pdf-json: positioned text blocks (paragraphs) per page, in reading order. Coordinates are
 * PDF points with the origin at the top-left of the page as displayed, so they match what a
 * viewer shows even for rotated pages.
 */
import type { PdfDocument } from './pdf/open-pdf.ts';
import { mapPages, type PageRange } from './pdf/pdf-pages.ts';
import { fontNameOf } from './pdf/page-fonts.ts';
import { buildBlocks, readingOrder, readPageText } from './pdf/page-layout.ts';
import type { PdfJsonBlock, PdfJsonPage, PdfJsonResult, ProgressFn } from './tool-types.ts';

const r2 = (n: number) => Math.round(n * 100) / 100;

/** With `range`, only those pages (numbered as in the document), so consecutive ranges concatenate. */
export async function pdfJson(doc: PdfDocument, onProgress?: ProgressFn, range?: PageRange): Promise<PdfJsonResult> {
  const visits = await mapPages(
    doc,
    (page, pageNumber): PdfJsonPage => {
      const { frame, fragments } = readPageText(page);
      const blocks: PdfJsonBlock[] = buildBlocks(readingOrder(fragments)).map((b) => {
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
        };
      });
      return { page: pageNumber, width: r2(frame.displayWidth), height: r2(frame.displayHeight), blocks };
    },
    onProgress,
    undefined,
    range,
  );
  return {
    pages: visits.map((v) => v.value ?? { page: v.pageNumber, width: 0, height: 0, blocks: [] }),
  };
}
