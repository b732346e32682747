/**
 * Opens a PDF with PDFium and turns its failures into the answers buyers see. Every
 * problem with the bytes becomes 422 invalid_document with a message naming it, because
 * these checks run before any quote: nobody pays for a file we cannot read.
 */
import { AppError } from '../../http/app-error.ts';
import { openFastText, type FastTextDocument } from './fast-text/fast-text.ts';
import { discardPdfium, isPdfiumCrash, loadPdfium, type Pdfium } from './pdfium-module.ts';
import type { RawPageText } from './text-types.ts';

const ascii = (bytes: Uint8Array, start: number, end: number): string => {
  let s = '';
  for (let i = Math.max(0, start); i < Math.min(bytes.length, end); i++) s += String.fromCharCode(bytes[i]);
  return s;
};

/** The PDF header may follow up to 1 KB of junk (the spec tolerates it, and so do readers). */
export const hasPdfHeader = (bytes: Uint8Array): boolean => ascii(bytes, 0, 1024).includes('%PDF-');

/**
 * PDF readers rebuild a damaged cross-reference table by scanning, so a file cut short often
 * still "opens" with pages missing. The end-of-file marker is the cheap, reliable tell; the
 * tail window is generous because some producers append a few KB after %%EOF.
 */
export const hasEofMarker = (bytes: Uint8Array): boolean => ascii(bytes, bytes.length - 4096, bytes.length).includes('%%EOF');

/** Checks that are cheap enough to run before touching the parser. */
export function assertPdfShape(bytes: Uint8Array): void {
  if (!hasPdfHeader(bytes)) throw new AppError('invalid_document', 422, 'not a PDF: the %PDF- header is missing');
  if (!hasEofMarker(bytes)) throw new AppError('invalid_document', 422, 'the PDF is truncated: no %%EOF marker at the end of the file');
}

/** FPDF_GetLastError codes (fpdfview.h). */
const FPDF_ERR = { UNKNOWN: 1, FILE: 2, FORMAT: 3, PASSWORD: 4, SECURITY: 5, PAGE: 6 } as const;

const openError = (code: number): AppError => {
  if (code === FPDF_ERR.PASSWORD) {
    return new AppError('invalid_document', 422, 'the PDF is encrypted and needs a password', { hint: 'send the document without password protection' });
  }
  if (code === FPDF_ERR.SECURITY) return new AppError('invalid_document', 422, 'the PDF uses an unsupported security handler');
  if (code === FPDF_ERR.FORMAT || code === FPDF_ERR.FILE) return new AppError('invalid_document', 422, 'not a readable PDF: the file is corrupt or not a PDF');
  return new AppError('invalid_document', 422, `the PDF could not be read (PDFium error ${code})`);
};

/** One loaded page. Close it before loading many more: a page holds its parsed content. */
export interface PdfPage {
  pdfium: Pdfium;
  /** FPDF_PAGE handle: PDFium parses the page on first use (the fast text path may not need it). */
  readonly handle: number;
  /** The page's box as shown (crop box within the media box), PDF user space: [x0, y0, x1, y1]. */
  viewBox: [number, number, number, number];
  /** /Rotate in quarter turns clockwise. */
  rotate: 0 | 1 | 2 | 3;
  /** FPDF_TEXTPAGE handle, loaded on first use (the costly part of reading text). */
  textPage(): number;
  /** The page's text runs from the fast content-stream reader, or null where PDFium must read it. */
  fastText(): RawPageText | null;
  close(): void;
}

export interface PdfDocument {
  pdfium: Pdfium;
  numPages: number;
  /** 1-based, as pdf.js numbered pages. Throws when PDFium cannot load the page. */
  getPage(pageNumber: number): PdfPage;
  /** Whether the page's dictionary can be read (its size), without parsing its content: cheap. */
  hasPage(pageNumber: number): boolean;
  /** The document's outline (bookmarks), depth first; empty when it has none. */
  outline(): OutlineEntry[];
  destroy(): void;
}

export interface OutlineEntry {
  /** Whitespace runs as one space, trimmed (the fast reader's outline.ts gives it the same way). */
  title: string;
  /** 1 for a top-level bookmark, 2 for its children, and so on. */
  depth: number;
  /** 1-based page the bookmark points to; null when it points nowhere (or to another file). */
  page: number | null;
}

/** Bookmarks past these are not read: an outline that large is a generated index, not headings. */
const MAX_OUTLINE = 5000;
const MAX_OUTLINE_DEPTH = 16;

/**
 * PDFium warms up once per thread (compiling its WebAssembly, ~150 ms). Call it at startup
 * so the first quote does not pay for it.
 */
export async function preloadPdfParser(): Promise<void> {
  await loadPdfium();
}

/**
 * Turns a PDFium crash into the answer for an unreadable document, after dropping the crashed
 * instance; other errors pass through.
 */
export function pdfiumCrashAsAppError(error: unknown): unknown {
  if (!isPdfiumCrash(error)) return error;
  discardPdfium();
  return new AppError('invalid_document', 422, 'the PDF could not be processed: the PDF engine failed on it');
}

export interface OpenPdfOptions {
  password?: string;
  /**
   * Read text with the fast content-stream reader where it understands a page (default), or
   * with PDFium only (false: the reference the fast reader is tested against).
   */
  fastText?: boolean;
}

export async function openPdf(bytes: Uint8Array, options: OpenPdfOptions = {}): Promise<PdfDocument> {
  assertPdfShape(bytes);
  try {
    return await openWithPdfium(bytes, { ...options, fastText: options.fastText ?? options.password === undefined });
  } catch (error) {
    throw pdfiumCrashAsAppError(error);
  }
}

async function openWithPdfium(bytes: Uint8Array, options: OpenPdfOptions): Promise<PdfDocument> {
  const pdfium = await loadPdfium();
  const { x } = pdfium;
  // PDFium reads the document from its own memory for as long as it is open: one copy in,
  // freed on destroy(). The caller's bytes are left untouched.
  const data = x.malloc(bytes.length);
  if (!data) throw new AppError('document_too_complex', 422, 'the document is too large to open');
  pdfium.u8().set(bytes, data);
  let password = 0;
  if (options.password !== undefined) {
    const utf8 = Buffer.from(options.password + '\0', 'utf8');
    password = x.malloc(utf8.length);
    pdfium.u8().set(utf8, password);
  }
  const doc = x.FPDF_LoadMemDocument(data, bytes.length, password);
  if (password) x.free(password);
  if (!doc) {
    const code = x.FPDF_GetLastError();
    x.free(data);
    throw openError(code);
  }
  const numPages = x.FPDF_GetPageCount(doc);
  let closed = false;
  const destroy = () => {
    if (closed || pdfium.discarded()) return;
    closed = true;
    x.FPDF_CloseDocument(doc);
    x.free(data);
  };
  if (numPages < 1) {
    destroy();
    throw new AppError('invalid_document', 422, 'the PDF has no pages');
  }
  const rect = x.malloc(16);
  // The fast text reader of the same bytes, opened on first use (null: PDFium reads them all).
  let fast: FastTextDocument | null | undefined;
  return {
    pdfium,
    numPages,
    getPage(pageNumber) {
      let handle = 0;
      let textPage = 0;
      let box: { viewBox: [number, number, number, number]; rotate: 0 | 1 | 2 | 3 } | null = null;
      const load = () => {
        if (handle) return handle;
        handle = x.FPDF_LoadPage(doc, pageNumber - 1);
        if (!handle) throw new Error(`PDFium could not load page ${pageNumber}`);
        return handle;
      };
      const pageBox = () => {
        if (box) return box;
        // FS_RECTF: left, top, right, bottom.
        x.FPDF_GetPageBoundingBox(load(), rect);
        const f32 = pdfium.f32();
        const [left, top, right, bottom] = [f32[rect >> 2], f32[(rect >> 2) + 1], f32[(rect >> 2) + 2], f32[(rect >> 2) + 3]];
        box = {
          viewBox: [Math.min(left, right), Math.min(top, bottom), Math.max(left, right), Math.max(top, bottom)],
          rotate: (((x.FPDFPage_GetRotation(handle) % 4) + 4) % 4) as 0 | 1 | 2 | 3,
        };
        return box;
      };
      // Without the fast reader, a page PDFium cannot load fails here, as it always did.
      if (!options.fastText) load();
      return {
        pdfium,
        get handle() {
          return load();
        },
        get viewBox() {
          return pageBox().viewBox;
        },
        get rotate() {
          return pageBox().rotate;
        },
        textPage() {
          textPage ||= x.FPDFText_LoadPage(load());
          return textPage;
        },
        fastText() {
          if (!options.fastText) return null;
          fast ??= openFastText(bytes, numPages);
          return fast?.pageText(pageNumber) ?? null;
        },
        close() {
          // After a crash the instance is gone: closing would call into it again.
          if (pdfium.discarded()) return;
          if (textPage) x.FPDFText_ClosePage(textPage);
          textPage = 0;
          if (handle) x.FPDF_ClosePage(handle);
          handle = 0;
        },
      };
    },
    hasPage(pageNumber) {
      return x.FPDF_GetPageSizeByIndexF(doc, pageNumber - 1, rect) !== 0;
    },
    outline() {
      if (closed || pdfium.discarded()) return [];
      // The fast reader reads a plain outline from the objects, as PDFium's functions give it,
      // without their cost (PDFium walks the page tree for each bookmark's page).
      if (options.fastText) {
        fast ??= openFastText(bytes, numPages);
        const read = fast?.outline(MAX_OUTLINE, MAX_OUTLINE_DEPTH);
        if (read) return read;
      }
      const out: OutlineEntry[] = [];
      // Sibling loops exist in broken files: a bookmark seen twice ends its branch.
      const seen = new Set<number>();
      const titleOf = (bookmark: number): string => {
        const bytes = x.FPDFBookmark_GetTitle(bookmark, 0, 0);
        if (bytes <= 2) return '';
        const buffer = x.malloc(bytes);
        try {
          x.FPDFBookmark_GetTitle(bookmark, buffer, bytes);
          return Buffer.from(pdfium.u8().subarray(buffer, buffer + bytes - 2)).toString('utf16le');
        } finally {
          x.free(buffer);
        }
      };
      const walk = (parent: number, depth: number) => {
        if (depth > MAX_OUTLINE_DEPTH) return;
        for (let b = x.FPDFBookmark_GetFirstChild(doc, parent); b && !seen.has(b) && out.length < MAX_OUTLINE; b = x.FPDFBookmark_GetNextSibling(doc, b)) {
          seen.add(b);
          let dest = x.FPDFBookmark_GetDest(doc, b);
          if (!dest) {
            const action = x.FPDFBookmark_GetAction(b);
            if (action) dest = x.FPDFAction_GetDest(doc, action);
          }
          const index = dest ? x.FPDFDest_GetDestPageIndex(doc, dest) : -1;
          out.push({ title: titleOf(b).replace(/\s+/g, ' ').trim(), depth, page: index >= 0 ? index + 1 : null });
          walk(b, depth + 1);
        }
      };
      if (!closed && !pdfium.discarded()) walk(0, 1);
      return out;
    },
    destroy() {
      if (!closed && !pdfium.discarded()) x.free(rect);
      destroy();
    },
  };
}
