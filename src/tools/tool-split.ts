/**
 * Splitting one pdf-text or pdf-json job into page ranges that several pool workers run at
 * once, and joining their results. Kept free of PDFium and OCR imports: the pool (HTTP
 * thread) needs mergeParts, the workers need claimRanges.
 */
import type { PageRange } from './pdf/pdf-pages.ts';
import type { PdfJsonResult, PdfTextResult, ToolName, ToolResultMap } from './tool-types.ts';

/**
 * Tools whose output is a concatenation of independent per-page outputs, so the pool may
 * run one document as several page ranges in parallel. pdf-md is not one of them (heading
 * levels come from the font sizes of the whole document), nor invoice-extract.
 */
export const SPLITTABLE_TOOLS: ReadonlySet<ToolName> = new Set<ToolName>(['pdf-text', 'pdf-json']);

/**
 * Part `index` of `count` of a split job. Every part opens the document and derives the same
 * page numbering from its page count: documents under `minPages` pages are done whole by
 * part 0.
 *
 * With `cursor` (an Int32Array over a SharedArrayBuffer that every part of the job shares,
 * starting at 0), the parts take chunks of pages from it in turn until none is left, instead
 * of a fixed share each: on a shared machine one core is often slower than the other, and a
 * fixed half then finishes last while the faster worker sits idle. Without it, part `index`
 * takes its fixed share (partRange).
 */
export interface ToolPart {
  index: number;
  count: number;
  minPages: number;
  cursor?: Int32Array;
}

/** The result of one chunk of a split job, from its first page (chunks are merged in page order). */
export interface PartChunk<T> {
  first: number;
  result: T;
}

/** Pages of part `part.index` of a `pages`-page document, or null when that part has nothing to do. */
export function partRange(pages: number, part: ToolPart): PageRange | null {
  const parts = pages >= part.minPages ? Math.max(1, Math.min(part.count, pages)) : 1;
  if (part.index >= parts) return null;
  return { first: Math.floor((part.index * pages) / parts) + 1, last: Math.floor(((part.index + 1) * pages) / parts) };
}

/**
 * Pages per chunk when parts take turns: about eight chunks per part, so the parts end within
 * a chunk of each other, and at most 16 pages (~30 ms), so the last chunk does not keep one
 * worker busy long after the others; a chunk costs next to nothing beyond its pages.
 */
export const chunkPages = (pages: number, count: number): number => Math.max(1, Math.min(16, Math.ceil(pages / (Math.max(1, count) * 8))));

/** The page ranges this part runs, in the order it claims them (see ToolPart). */
export function* claimRanges(pages: number, part: ToolPart): Generator<PageRange> {
  if (!part.cursor) {
    const range = partRange(pages, part);
    if (range) yield range;
    return;
  }
  if (pages < part.minPages) {
    if (part.index === 0 && pages > 0) yield { first: 1, last: pages };
    return;
  }
  const size = chunkPages(pages, part.count);
  for (;;) {
    const first = Atomics.add(part.cursor, 0, 1) * size + 1;
    if (first > pages) return;
    yield { first, last: Math.min(pages, first + size - 1) };
  }
}

/**
 * Joins the results of the parts of a split job (each a list of chunks, in any order) in page
 * order. Byte for byte what the tool gives for the whole document.
 */
export function mergeParts<T extends ToolName>(tool: T, parts: (PartChunk<ToolResultMap[T]>[] | null)[]): ToolResultMap[T] {
  const done = parts
    .flatMap((chunks) => chunks ?? [])
    .sort((a, b) => a.first - b.first)
    .map((c) => c.result);
  if (done.length === 0) throw new Error(`no part of the ${tool} job produced a result`);
  if (done.length === 1) return done[0];
  if (tool === 'pdf-text') {
    const texts = done as PdfTextResult[];
    return { text: texts.map((r) => r.text).join('\f'), pages: texts[0].pages } satisfies PdfTextResult as ToolResultMap[T];
  }
  // The outline is the document's: the chunk that starts at page 1 carries it, the others an empty one.
  if (tool === 'pdf-json') return { pages: (done as PdfJsonResult[]).flatMap((r) => r.pages), outline: (done as PdfJsonResult[])[0].outline } satisfies PdfJsonResult as ToolResultMap[T];
  throw new Error(`${tool} results cannot be merged`);
}
