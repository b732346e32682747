/**
 * The checks that run before any quote: what kind of file this is (from its bytes, not the
 * Content-Type), whether we can read it, and how many pages it has. Deliberately cheap: it
 * parses the cross-reference table and the page tree, never page contents.
 */
import { AppError } from '../http/app-error.ts';
import { assertPdfShape, openPdf, pdfiumCrashAsAppError } from './pdf/open-pdf.ts';
import type { ToolName } from './tool-types.ts';

export type DocumentKind = 'pdf' | 'png' | 'jpeg';

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const startsWith = (bytes: Uint8Array, magic: number[]) => magic.every((b, i) => bytes[i] === b);

/** Type from magic bytes; null when it is none of the accepted kinds. */
export function detectKind(bytes: Uint8Array): DocumentKind | null {
  if (startsWith(bytes, PNG_MAGIC)) return 'png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg';
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).toString('latin1');
  if (head.includes('%PDF-')) return 'pdf';
  return null;
}

const describe = (bytes: Uint8Array): string => {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 64)).toString('latin1');
  if (/^\s*[{[]/.test(head)) return 'JSON or text';
  if (head.startsWith('PK')) return 'a ZIP archive (Office documents are not accepted)';
  if (/^GIF8/.test(head)) return 'a GIF image';
  if (/^\s*</.test(head)) return 'HTML or XML';
  return 'an unrecognised format';
};

/** Dimensions from the IHDR chunk; also checks the file ends with an IEND chunk (not truncated). */
function checkPng(bytes: Uint8Array): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ihdr = bytes.length >= 33 && String.fromCharCode(...bytes.subarray(12, 16)) === 'IHDR';
  if (!ihdr) throw new AppError('invalid_document', 422, 'not a readable PNG image: the IHDR header is missing');
  if (view.getUint32(16) === 0 || view.getUint32(20) === 0) throw new AppError('invalid_document', 422, 'not a readable PNG image: zero width or height');
  const tail = Buffer.from(bytes.buffer, bytes.byteOffset + Math.max(0, bytes.length - 64), Math.min(64, bytes.length)).toString('latin1');
  if (!tail.includes('IEND')) throw new AppError('invalid_document', 422, 'the PNG image is truncated: no IEND chunk at the end');
}

/** Walks the JPEG segments up to the frame header and checks the end-of-image marker. */
function checkJpeg(bytes: Uint8Array): void {
  let i = 2;
  let frame = false;
  while (i + 4 <= bytes.length) {
    if (bytes[i] !== 0xff) break;
    const marker = bytes[i + 1];
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2;
      continue;
    }
    const length = (bytes[i + 2] << 8) | bytes[i + 3];
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const h = (bytes[i + 5] << 8) | bytes[i + 6];
      const w = (bytes[i + 7] << 8) | bytes[i + 8];
      if (!h || !w) throw new AppError('invalid_document', 422, 'not a readable JPEG image: zero width or height');
      frame = true;
      break;
    }
    i += 2 + length;
  }
  if (!frame) throw new AppError('invalid_document', 422, 'not a readable JPEG image: no frame header');
  // Some encoders pad after EOI; look for it near the end rather than exactly at it.
  let eoi = false;
  for (let k = bytes.length - 2; k >= Math.max(0, bytes.length - 1024); k--) {
    if (bytes[k] === 0xff && bytes[k + 1] === 0xd9) {
      eoi = true;
      break;
    }
  }
  if (!eoi) throw new AppError('invalid_document', 422, 'the JPEG image is truncated: no end-of-image marker');
}

/** Page count of a PDF from its page tree: no page content is parsed. */
async function pdfPageCount(bytes: Uint8Array, probeFirstPage: boolean): Promise<number> {
  // PDFium works on its own copy of the bytes; the caller still needs them to run the tool.
  const doc = await openPdf(bytes);
  try {
    // The first page's dictionary, not its content: a page tree that points nowhere is caught
    // here, before a quote, at a fraction of the cost of loading the page.
    if (probeFirstPage && !doc.hasPage(1)) throw new AppError('invalid_document', 422, 'the PDF could not be read: its first page is missing or broken');
    return doc.numPages;
  } catch (error) {
    throw pdfiumCrashAsAppError(error);
  } finally {
    doc.destroy();
  }
}

/**
 * Cheap page count for quotes. Images count as one page. Throws the same AppErrors as
 * inspectDocument for bytes that cannot be read.
 */
export async function estimatedPages(bytes: Uint8Array): Promise<number> {
  const kind = detectKind(bytes);
  if (kind === 'png' || kind === 'jpeg') return 1;
  if (kind === 'pdf') return pdfPageCount(bytes, false);
  throw new AppError('invalid_document', 422, `not a PDF or image: the file looks like ${describe(bytes)}`);
}

/**
 * Everything that must hold before a quote. Errors: 400 invalid_input (empty body), 422
 * invalid_document (wrong type, unreadable, encrypted, truncated), 413 body_too_large (more
 * pages than the limit: a size limit like the byte limit, not a defect of the file).
 */
export async function inspectDocument(tool: ToolName, bytes: Uint8Array, opts: { maxPages: number }): Promise<{ kind: DocumentKind; pages: number }> {
  if (bytes.length === 0) throw new AppError('invalid_input', 400, 'the request body is empty: send the document as the body or as the multipart part "file"');
  const kind = detectKind(bytes);
  const acceptsImages = tool === 'invoice-extract';
  if (kind === null || (!acceptsImages && kind !== 'pdf')) {
    const wanted = acceptsImages ? 'a PDF, PNG or JPEG file' : 'a PDF file';
    const seen = kind ? `a ${kind.toUpperCase()} image` : describe(bytes);
    throw new AppError('invalid_document', 422, `not ${wanted}: the file looks like ${seen}`);
  }
  if (kind === 'png') {
    checkPng(bytes);
    return { kind, pages: 1 };
  }
  if (kind === 'jpeg') {
    checkJpeg(bytes);
    return { kind, pages: 1 };
  }
  assertPdfShape(bytes);
  const pages = await pdfPageCount(bytes, true);
  if (pages > opts.maxPages) {
    throw new AppError('body_too_large', 413, `the PDF has ${pages} pages; the limit is ${opts.maxPages}`, { hint: 'split the document and send the parts separately' });
  }
  return { kind, pages };
}
