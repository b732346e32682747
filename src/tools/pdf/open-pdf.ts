/**
 * Opens a PDF with pdf.js and turns its failures into the answers buyers see. Every
 * problem with the bytes becomes 422 invalid_document with a message naming it, because
 * these checks run before any quote: nobody pays for a file we cannot read.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { AppError } from '../../http/app-error.ts';

export type { PDFDocumentProxy };
export type PDFPageProxy = Awaited<ReturnType<PDFDocumentProxy['getPage']>>;

const standardFontDataUrl = (): string => {
  const pkg = createRequire(import.meta.url).resolve('pdfjs-dist/package.json');
  return pathToFileURL(path.join(path.dirname(pkg), 'standard_fonts') + path.sep).href;
};

const ascii = (bytes: Uint8Array, start: number, end: number): string => {
  let s = '';
  for (let i = Math.max(0, start); i < Math.min(bytes.length, end); i++) s += String.fromCharCode(bytes[i]);
  return s;
};

/** The PDF header may follow up to 1 KB of junk (the spec tolerates it, and so do readers). */
export const hasPdfHeader = (bytes: Uint8Array): boolean => ascii(bytes, 0, 1024).includes('%PDF-');

/**
 * pdf.js rebuilds a damaged cross-reference table by scanning, so a file cut short often
 * still "opens" with pages missing. The end-of-file marker is the cheap, reliable tell; the
 * tail window is generous because some producers append a few KB after %%EOF.
 */
export const hasEofMarker = (bytes: Uint8Array): boolean => ascii(bytes, bytes.length - 4096, bytes.length).includes('%%EOF');

export interface OpenPdfOptions {
  /**
   * pdf.js detaches the array it is given (it transfers it to its own worker port). Pass
   * true when the caller still needs the bytes afterwards.
   */
  copy?: boolean;
  /** Keep images (OCR of scanned pages needs them); text tools drop them to save CPU and memory. */
  withImages?: boolean;
}

/** Checks that are cheap enough to run before touching pdf.js. */
export function assertPdfShape(bytes: Uint8Array): void {
  if (!hasPdfHeader(bytes)) throw new AppError('invalid_document', 422, 'not a PDF: the %PDF- header is missing');
  if (!hasEofMarker(bytes)) throw new AppError('invalid_document', 422, 'the PDF is truncated: no %%EOF marker at the end of the file');
}

const mapOpenError = (error: unknown): AppError => {
  const name = (error as { name?: string } | null)?.name;
  const message = (error as { message?: string } | null)?.message ?? String(error);
  if (name === 'PasswordException') {
    return new AppError('invalid_document', 422, 'the PDF is encrypted and needs a password', { hint: 'send the document without password protection' });
  }
  if (name === 'InvalidPDFException') return new AppError('invalid_document', 422, `not a readable PDF: ${message}`);
  return new AppError('invalid_document', 422, `the PDF could not be read: ${message}`);
};

/**
 * pdf.js parses in a "fake worker" on this thread when it runs in Node. Handing it the
 * worker module up front (its documented globalThis.pdfjsWorker hook) saves a dynamic
 * import of 2 MB on the first document. Call it at startup so the first quote does not pay
 * for loading it (seconds under tsx).
 */
export async function preloadPdfParser(): Promise<void> {
  const g = globalThis as { pdfjsWorker?: unknown };
  if (g.pdfjsWorker) return;
  // @ts-expect-error -- the worker bundle ships without type declarations.
  g.pdfjsWorker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
}

export async function openPdf(bytes: Uint8Array, options: OpenPdfOptions = {}): Promise<PDFDocumentProxy> {
  assertPdfShape(bytes);
  await preloadPdfParser();
  // pdf.js refuses Node Buffers; a plain view over the same memory is enough.
  const data = options.copy ? new Uint8Array(bytes) : Buffer.isBuffer(bytes) ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : bytes;
  const task = pdfjs.getDocument({
    data,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
    // Untrusted input: never compile font programs into JS functions.
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    standardFontDataUrl: standardFontDataUrl(),
    // Text tools never paint images; dropping them skips decoding scans page after page.
    maxImageSize: options.withImages ? -1 : 1,
    enableXfa: false,
  });
  try {
    const doc = await task.promise;
    if (doc.numPages < 1) {
      await doc.destroy();
      throw new AppError('invalid_document', 422, 'the PDF has no pages');
    }
    return doc;
  } catch (error) {
    await task.destroy().catch(() => undefined);
    if (error instanceof AppError) throw error;
    throw mapOpenError(error);
  }
}
