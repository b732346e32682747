/**
 * Walks the pages of a document one at a time, releasing each before the next so memory
 * stays flat on 2,000-page files, and reports progress. A page that pdf.js cannot parse
 * yields nothing instead of failing a call the buyer has already paid for.
 */
import type { PDFDocumentProxy, PDFPageProxy } from './open-pdf.ts';
import type { ProgressFn } from '../tool-types.ts';

export interface PageVisit<T> {
  pageNumber: number;
  value: T | null;
  error: unknown;
}

/** A run of pages, 1-based and inclusive: a part of a job the pool split across workers. */
export interface PageRange {
  first: number;
  last: number;
}

/**
 * Visits pages 1..numPages (at most maxPages), or only `range` when given. Progress counts
 * the pages of the walk: (done, pages in the walk).
 */
export async function mapPages<T>(
  doc: PDFDocumentProxy,
  visit: (page: PDFPageProxy, pageNumber: number) => Promise<T>,
  onProgress?: ProgressFn,
  maxPages?: number,
  range?: PageRange,
): Promise<PageVisit<T>[]> {
  const first = range ? Math.max(1, range.first) : 1;
  const last = Math.min(doc.numPages, range ? range.last : Infinity, maxPages || Infinity);
  const total = Math.max(0, last - first + 1);
  const out: PageVisit<T>[] = [];
  for (let n = first; n <= last; n++) {
    let page: PDFPageProxy | null = null;
    try {
      page = await doc.getPage(n);
      out.push({ pageNumber: n, value: await visit(page, n), error: null });
    } catch (error) {
      out.push({ pageNumber: n, value: null, error });
    } finally {
      page?.cleanup();
    }
    onProgress?.(n - first + 1, total);
  }
  return out;
}
