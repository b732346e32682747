/**
 * Splitting one pdf-text or pdf-json job into page ranges that several pool workers run at
 * once, and joining their results. Kept free of PDFium and OCR imports: the pool (HTTP
 * thread) needs mergeParts, the workers need partRange.
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
 * ranges from its page count: documents under `minPages` pages are done whole by part 0.
 */
export interface ToolPart {
  index: number;
  count: number;
  minPages: number;
}

/** Pages of part `part.index` of a `pages`-page document, or null when that part has nothing to do. */
export function partRange(pages: number, part: ToolPart): PageRange | null {
  const parts = pages >= part.minPages ? Math.max(1, Math.min(part.count, pages)) : 1;
  if (part.index >= parts) return null;
  return { first: Math.floor((part.index * pages) / parts) + 1, last: Math.floor(((part.index + 1) * pages) / parts) };
}

/**
 * Joins the results of the parts of a split job, in part order (null: a part with no pages).
 * Byte for byte what the tool gives for the whole document.
 */
export function mergeParts<T extends ToolName>(tool: T, results: (ToolResultMap[T] | null)[]): ToolResultMap[T] {
  const done = results.filter((r): r is ToolResultMap[T] => r !== null);
  if (done.length === 0) throw new Error(`no part of the ${tool} job produced a result`);
  if (done.length === 1) return done[0];
  if (tool === 'pdf-text') {
    const texts = done as PdfTextResult[];
    return { text: texts.map((r) => r.text).join('\f'), pages: texts[0].pages } satisfies PdfTextResult as ToolResultMap[T];
  }
  if (tool === 'pdf-json') return { pages: (done as PdfJsonResult[]).flatMap((r) => r.pages) } satisfies PdfJsonResult as ToolResultMap[T];
  throw new Error(`${tool} results cannot be merged`);
}
