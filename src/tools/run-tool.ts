/**
 * Runs one tool on one document in the current thread. The pool calls this inside its
 * workers; tests call it directly (the "internal function" of the issue) to check outputs
 * without a pool. Assumes inspectDocument already accepted the bytes, but re-checks what
 * it relies on, since a worker must never trust its input.
 */
import { AppError } from '../http/app-error.ts';
import { detectKind } from './inspect-document.ts';
import { invoiceExtract } from './invoice-extract.tool.ts';
import { openPdf, pdfiumCrashAsAppError } from './pdf/open-pdf.ts';
import { pdfJson } from './pdf-json.tool.ts';
import { pdfMd } from './pdf-md.tool.ts';
import type { PageRange } from './pdf/pdf-pages.ts';
import { pdfText } from './pdf-text.tool.ts';
import { partRange, SPLITTABLE_TOOLS, type ToolPart } from './tool-split.ts';
import type { RunToolDeps, ToolName, ToolResultMap } from './tool-types.ts';

export { mergeParts, partRange, SPLITTABLE_TOOLS, type ToolPart } from './tool-split.ts';



/**
 * One part of a split job (see ToolPart): the tool's result for the part's pages, or null
 * when the part has no pages. Progress counts the part's pages.
 */
export async function runToolPart<T extends ToolName>(tool: T, bytes: Uint8Array, part: ToolPart, deps: RunToolDeps): Promise<ToolResultMap[T] | null> {
  if (!SPLITTABLE_TOOLS.has(tool)) {
    if (part.index > 0) return null;
    return runTool(tool, bytes, deps);
  }
  return runPdf(tool, bytes, deps, (pages) => partRange(pages, part));
}

export async function runTool<T extends ToolName>(tool: T, bytes: Uint8Array, deps: RunToolDeps): Promise<ToolResultMap[T]> {
  if (bytes.length === 0) throw new AppError('invalid_input', 400, 'the request body is empty');
  const kind = detectKind(bytes);
  if (tool === 'invoice-extract') {
    if (!kind) throw new AppError('invalid_document', 422, 'not a PDF, PNG or JPEG file');
    return (await invoiceExtract(bytes, kind, deps)) as ToolResultMap[T];
  }
  return (await runPdf(tool, bytes, deps, () => undefined)) as ToolResultMap[T];
}

async function runPdf<T extends ToolName>(tool: T, bytes: Uint8Array, deps: RunToolDeps, rangeOf: (pages: number) => PageRange | null | undefined): Promise<ToolResultMap[T] | null> {
  if (bytes.length === 0) throw new AppError('invalid_input', 400, 'the request body is empty');
  if (detectKind(bytes) !== 'pdf') throw new AppError('invalid_document', 422, 'not a PDF file');
  const doc = await openPdf(bytes);
  try {
    const range = rangeOf(doc.numPages);
    if (range === null) return null;
    switch (tool) {
      case 'pdf-text':
        return (await pdfText(doc, deps.onProgress, range)) as ToolResultMap[T];
      case 'pdf-md':
        return (await pdfMd(doc, deps.onProgress)) as ToolResultMap[T];
      case 'pdf-json':
        return (await pdfJson(doc, deps.onProgress, range)) as ToolResultMap[T];
      default:
        throw new AppError('endpoint_not_found', 404, `unknown tool ${String(tool)}`);
    }
  } catch (error) {
    throw pdfiumCrashAsAppError(error);
  } finally {
    doc.destroy();
  }
}
