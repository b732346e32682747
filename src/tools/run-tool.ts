/**
 * Runs one tool on one document in the current thread. The pool calls this inside its
 * workers; tests call it directly (the "internal function" of the issue) to check outputs
 * without a pool. Assumes inspectDocument already accepted the bytes, but re-checks what
 * it relies on, since a worker must never trust its input.
 */
import { AppError } from '../http/app-error.ts';
import { detectKind } from './inspect-document.ts';
import { invoiceExtract } from './invoice-extract.tool.ts';
import { openPdf, pdfiumCrashAsAppError, type PdfDocument } from './pdf/open-pdf.ts';
import { pdfJson } from './pdf-json.tool.ts';
import { pdfMd } from './pdf-md.tool.ts';
import type { PageRange } from './pdf/pdf-pages.ts';
import { pdfText } from './pdf-text.tool.ts';
import { claimRanges, SPLITTABLE_TOOLS, type PartChunk, type ToolPart } from './tool-split.ts';
import type { ProgressFn, RunToolDeps, ToolName, ToolOptions, ToolResultMap } from './tool-types.ts';

export { claimRanges, mergeParts, partRange, SPLITTABLE_TOOLS, type PartChunk, type ToolPart } from './tool-split.ts';

/**
 * One part of a split job (see ToolPart): the tool's results for the page ranges this part
 * ran, one chunk per range (none when the other parts took every page). The document is
 * opened once for all of them. Progress counts the part's pages.
 */
export async function runToolPart<T extends ToolName>(tool: T, bytes: Uint8Array, part: ToolPart, deps: RunToolDeps): Promise<PartChunk<ToolResultMap[T]>[]> {
  if (!SPLITTABLE_TOOLS.has(tool)) return part.index > 0 ? [] : [{ first: 1, result: await runTool(tool, bytes, deps) }];
  return withPdf(bytes, async (doc) => {
    const chunks: PartChunk<ToolResultMap[T]>[] = [];
    let done = 0;
    for (const range of claimRanges(doc.numPages, part)) {
      const onProgress = (pagesDone: number, pagesTotal: number) => deps.onProgress?.(done + pagesDone, done + pagesTotal);
      chunks.push({ first: range.first, result: await runPdfTool(tool, doc, onProgress, range) });
      done += range.last - range.first + 1;
    }
    return chunks;
  });
}

export async function runTool<T extends ToolName>(tool: T, bytes: Uint8Array, deps: RunToolDeps): Promise<ToolResultMap[T]> {
  if (bytes.length === 0) throw new AppError('invalid_input', 400, 'the request body is empty');
  const kind = detectKind(bytes);
  if (tool === 'invoice-extract') {
    if (!kind) throw new AppError('invalid_document', 422, 'not a PDF, PNG or JPEG file');
    return (await invoiceExtract(bytes, kind, deps)) as ToolResultMap[T];
  }
  return withPdf(bytes, (doc) => runPdfTool(tool, doc, deps.onProgress, undefined, deps.options));
}

/** Opens the PDF, hands it to `use` and closes it; a PDFium crash becomes the answer for an unreadable document. */
async function withPdf<R>(bytes: Uint8Array, use: (doc: PdfDocument) => Promise<R>): Promise<R> {
  if (bytes.length === 0) throw new AppError('invalid_input', 400, 'the request body is empty');
  if (detectKind(bytes) !== 'pdf') throw new AppError('invalid_document', 422, 'not a PDF file');
  const doc = await openPdf(bytes);
  try {
    return await use(doc);
  } catch (error) {
    throw pdfiumCrashAsAppError(error);
  } finally {
    doc.destroy();
  }
}

async function runPdfTool<T extends ToolName>(tool: T, doc: PdfDocument, onProgress: ProgressFn | undefined, range?: PageRange, options: ToolOptions = {}): Promise<ToolResultMap[T]> {
  switch (tool) {
    case 'pdf-text':
      return (await pdfText(doc, onProgress, range)) as ToolResultMap[T];
    case 'pdf-md':
      return (await pdfMd(doc, onProgress, { pageAnchors: (options.pageAnchors ?? 'comment') !== 'none' })) as ToolResultMap[T];
    case 'pdf-json':
      return (await pdfJson(doc, onProgress, range)) as ToolResultMap[T];
    default:
      throw new AppError('endpoint_not_found', 404, `unknown tool ${String(tool)}`);
  }
}
