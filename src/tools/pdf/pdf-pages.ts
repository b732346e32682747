/**
 * Walks the pages of a document one at a time, closing each before the next so memory
 * stays flat on 2,000-page files, and reports progress. A page that PDFium cannot parse
 * yields nothing instead of failing a call the buyer has already paid for.
 */
import { resourceLimits } from 'node:worker_threads';
import { AppError } from '../../http/app-error.ts';
import { pdfiumCrashAsAppError, type PdfDocument, type PdfPage } from './open-pdf.ts';
import { isPdfiumCrash } from './pdfium-module.ts';
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

/** The pool worker's memory limit in bytes (its V8 heap limit); null outside a pool worker. */
export function wasmMemoryLimitBytes(): number | null {
  const limitMb = resourceLimits.maxOldGenerationSizeMb;
  return limitMb && limitMb > 0 ? limitMb * 1024 * 1024 : null;
}

/**
 * PDFium's WebAssembly memory is not V8 heap, so the worker's resourceLimits do not cover it.
 * The same limit is applied to it here, page by page. WebAssembly memory never shrinks: the
 * worker retires itself after such a job (tool-worker.ts) so the next job starts small.
 */
export function assertWasmMemory(doc: PdfDocument): void {
  const limit = wasmMemoryLimitBytes();
  if (limit === null) return;
  if (doc.pdfium.memoryBytes() > limit) {
    const limitMb = limit / 1024 / 1024;
    throw new AppError('document_too_complex', 422, `processing the document needs more than the ${limitMb} MB memory limit`);
  }
}

/**
 * Visits pages 1..numPages (at most maxPages), or only `range` when given. Progress counts
 * the pages of the walk: (done, pages in the walk).
 */
export async function mapPages<T>(
  doc: PdfDocument,
  visit: (page: PdfPage, pageNumber: number) => T | Promise<T>,
  onProgress?: ProgressFn,
  maxPages?: number,
  range?: PageRange,
): Promise<PageVisit<T>[]> {
  const first = range ? Math.max(1, range.first) : 1;
  const last = Math.min(doc.numPages, range ? range.last : Infinity, maxPages || Infinity);
  const total = Math.max(0, last - first + 1);
  const out: PageVisit<T>[] = [];
  for (let n = first; n <= last; n++) {
    let page: PdfPage | null = null;
    try {
      page = doc.getPage(n);
      out.push({ pageNumber: n, value: await visit(page, n), error: null });
    } catch (error) {
      // A page PDFium cannot parse is skipped; a crash of PDFium itself ends the walk (the
      // instance is dropped: nothing more may be read from it).
      if (isPdfiumCrash(error)) throw pdfiumCrashAsAppError(error);
      out.push({ pageNumber: n, value: null, error });
    } finally {
      page?.close();
    }
    assertWasmMemory(doc);
    onProgress?.(n - first + 1, total);
  }
  return out;
}
