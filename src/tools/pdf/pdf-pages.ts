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

export async function mapPages<T>(doc: PDFDocumentProxy, visit: (page: PDFPageProxy, pageNumber: number) => Promise<T>, onProgress?: ProgressFn, maxPages?: number): Promise<PageVisit<T>[]> {
  const total = maxPages ? Math.min(doc.numPages, maxPages) : doc.numPages;
  const out: PageVisit<T>[] = [];
  for (let n = 1; n <= total; n++) {
    let page: PDFPageProxy | null = null;
    try {
      page = await doc.getPage(n);
      out.push({ pageNumber: n, value: await visit(page, n), error: null });
    } catch (error) {
      out.push({ pageNumber: n, value: null, error });
    } finally {
      page?.cleanup();
    }
    onProgress?.(n, total);
  }
  return out;
}
