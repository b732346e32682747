/**
 * Runs one tool on one document in the current thread. The pool calls this inside its
 * workers; tests call it directly (the "internal function" of the issue) to check outputs
 * without a pool. Assumes inspectDocument already accepted the bytes, but re-checks what
 * it relies on, since a worker must never trust its input.
 */
import type { MessagePort } from 'node:worker_threads';
import { AppError, isAppError } from '../http/app-error.ts';
import { detectKind } from './inspect-document.ts';
import { invoiceExtract } from './invoice-extract.tool.ts';
import { packPages, unpackPages, type PackedPages } from './pdf/md-page-codec.ts';
import { openPdf, pdfiumCrashAsAppError, type PdfDocument } from './pdf/open-pdf.ts';
import { pdfJson } from './pdf-json.tool.ts';
import { composeMd, pdfMd, readMdPages, type MdPageVisit } from './pdf-md.tool.ts';
import type { PageRange } from './pdf/pdf-pages.ts';
import { pdfText } from './pdf-text.tool.ts';
import { claimRanges, GATHERED_TOOLS, SPLITTABLE_TOOLS, type GatheredPages, type PartChunk, type ToolPart } from './tool-split.ts';
import type { PdfMdResult, ProgressFn, RunToolDeps, ToolName, ToolOptions, ToolResultMap } from './tool-types.ts';

export { claimRanges, GATHERED_TOOLS, mergeParts, partRange, SPLITTABLE_TOOLS, type PartChunk, type ToolPart } from './tool-split.ts';

/**
 * One part of a split job (see ToolPart): the tool's results for the page ranges this part
 * ran, one chunk per range (none when the other parts took every page). The document is
 * opened once for all of them. Progress counts the part's pages.
 */
export async function runToolPart<T extends ToolName>(tool: T, bytes: Uint8Array, part: ToolPart, deps: RunToolDeps): Promise<PartChunk<ToolResultMap[T]>[]> {
  if (GATHERED_TOOLS.has(tool) && (part.lead || part.peers)) return (await runGatheredPart(bytes, part, deps)) as PartChunk<ToolResultMap[T]>[];
  if (!SPLITTABLE_TOOLS.has(tool) || GATHERED_TOOLS.has(tool)) return part.index > 0 ? [] : [{ first: 1, result: await runTool(tool, bytes, deps) }];
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

/**
 * One part of a split pdf-md job (see GATHERED_TOOLS). Every part reads the pages it claims
 * (readMdPages); the others send them to part 0 and answer no chunk; part 0 waits for them,
 * puts all pages in order and composes the document once: the same answer as the unsplit
 * run, because a page's reading depends on that page alone. A part that fails tells part 0
 * its error, so part 0 fails alike instead of waiting for pages that will not come. Pages
 * travel packed (pdf/md-page-codec.ts): part 0 waits, so unpacking them must be cheap.
 */
async function runGatheredPart(bytes: Uint8Array, part: ToolPart, deps: RunToolDeps): Promise<PartChunk<PdfMdResult>[]> {
  const readClaimed = async (doc: PdfDocument): Promise<MdPageVisit[]> => {
    const pages: MdPageVisit[] = [];
    for (const range of claimRanges(doc.numPages, part)) {
      const done = pages.length;
      const onProgress = (pagesDone: number, pagesTotal: number) => deps.onProgress?.(done + pagesDone, done + pagesTotal);
      for (const v of await readMdPages(doc, onProgress, range)) pages.push(v);
    }
    return pages;
  };
  if (part.lead) {
    const lead = part.lead;
    try {
      const packed = packPages(await withPdf(bytes, readClaimed));
      lead.postMessage({ pages: packed } satisfies GatheredPages<PackedPages>, [packed.lengths.buffer, packed.counts.buffer, packed.numbers.buffer] as ArrayBuffer[]);
      return [];
    } catch (error) {
      const e = error as Error;
      lead.postMessage({ error: isAppError(e) ? { app: true, code: e.code, status: e.status, message: e.message, hint: e.extra.hint } : { app: false, message: e?.message ?? String(e) } } satisfies GatheredPages<PackedPages>);
      throw error;
    }
  }
  const peers = part.peers ?? [];
  // Listening from the start: a peer may finish before this part does.
  const theirs = peers.map((port) => gatherFrom(port));
  try {
    return await withPdf(bytes, async (doc) => {
      const pages = await readClaimed(doc);
      for (const more of await Promise.all(theirs)) for (const v of more) pages.push(v);
      pages.sort((a, b) => a.pageNumber - b.pageNumber);
      return [{ first: 1, result: composeMd(doc, pages, { pageAnchors: (deps.options?.pageAnchors ?? 'comment') !== 'none' }) }];
    });
  } finally {
    for (const port of peers) port.close();
    // A rejection nobody awaits (this part failed first) must not end the worker.
    for (const t of theirs) t.catch(() => undefined);
  }
}

/** The pages a peer part sends, or its error; a port closed with nothing sent is an error too. */
function gatherFrom(port: MessagePort): Promise<MdPageVisit[]> {
  return new Promise((resolve, reject) => {
    port.once('message', (msg: GatheredPages<PackedPages>) => {
      if ('pages' in msg) resolve(unpackPages(msg.pages));
      else if (msg.error.app) reject(new AppError(msg.error.code, msg.error.status, msg.error.message, msg.error.hint ? { hint: msg.error.hint } : {}));
      else reject(new Error(msg.error.message));
    });
    port.once('close', () => reject(new Error('another part of the job stopped without its pages')));
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
