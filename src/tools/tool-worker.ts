/**
 * Body of a pool worker thread: runs one job at a time with runTool and reports progress.
 * Started through tool-worker.mjs, which registers tsx first. Errors travel as plain
 * objects (AppError fields or message + stack): class instances do not survive
 * postMessage.
 */
import { parentPort } from 'node:worker_threads';
import { isAppError } from '../http/app-error.ts';
import { inspectDocument } from './inspect-document.ts';
import { createOcrEngine } from './invoice/ocr-engine.ts';
import { wasmMemoryLimitBytes } from './pdf/pdf-pages.ts';
import { pdfiumMemoryBytes } from './pdf/pdfium-module.ts';
import { runTool, runToolPart, type ToolPart } from './run-tool.ts';
import type { ToolName, ToolOptions } from './tool-types.ts';

/**
 * `part`: one part of a job the pool split across workers (see runToolPart); its bytes are
 * then a view of a SharedArrayBuffer that every part reads. A part answers `done` with the
 * chunks it ran (none when the other parts took every page), and `pages` counts its own pages.
 */
export type WorkerRequest =
  | { type: 'run'; jobId: number; tool: ToolName; bytes: Uint8Array; part?: ToolPart; options?: ToolOptions }
  | { type: 'inspect'; jobId: number; tool: ToolName; bytes: Uint8Array; maxPages: number };

export type SerializedError = { app: true; code: string; status: number; message: string; hint?: string } | { app: false; message: string; stack?: string };

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'progress'; jobId: number; pagesDone: number; pagesTotal: number }
  | { type: 'done'; jobId: number; result: unknown; pages: number | null; retire?: boolean }
  | { type: 'failed'; jobId: number; error: SerializedError; retire?: boolean };

const serialize = (error: unknown): SerializedError => {
  if (isAppError(error)) return { app: true, code: error.code, status: error.status, message: error.message, hint: error.extra.hint };
  const e = error as Error;
  return { app: false, message: e?.message ?? String(error), stack: e?.stack };
};

/**
 * PDFium's WebAssembly memory only grows. Once a job has taken it past the worker's memory
 * limit, the worker asks the pool (with its answer, so no job is sent to it meanwhile) to
 * replace it, instead of keeping that memory or refusing every later job.
 */
const bloated = (): boolean => {
  const limit = wasmMemoryLimitBytes();
  return limit !== null && pdfiumMemoryBytes() > limit;
};

/** Progress messages at most this often: a 2,000-page job would otherwise send 2,000. */
const PROGRESS_EVERY_MS = 1000;

function main(): void {
  const port = parentPort;
  if (!port) throw new Error('tool-worker must run in a worker thread');
  const ocr = createOcrEngine();
  port.on('message', async (msg: WorkerRequest) => {
    const { jobId, tool } = msg;
    // PDFium copies what it reads into its own memory, so shared memory is read in place.
    const bytes = msg.bytes;
    if (msg.type === 'inspect') {
      try {
        port.postMessage({ type: 'done', jobId, result: await inspectDocument(tool, bytes, { maxPages: msg.maxPages }), pages: null, retire: bloated() } satisfies WorkerMessage);
      } catch (error) {
        port.postMessage({ type: 'failed', jobId, error: serialize(error), retire: bloated() } satisfies WorkerMessage);
      }
      return;
    }
    let lastProgress = 0;
    let pages: number | null = null;
    try {
      const deps = {
        ocr: () => ocr,
        options: msg.options,
        onProgress: (pagesDone: number, pagesTotal: number) => {
          pages = pagesTotal;
          const now = Date.now();
          if (now - lastProgress >= PROGRESS_EVERY_MS || pagesDone === pagesTotal) {
            lastProgress = now;
            port.postMessage({ type: 'progress', jobId, pagesDone, pagesTotal } satisfies WorkerMessage);
          }
        },
      };
      const result = msg.part ? await runToolPart(tool, bytes, msg.part, deps) : await runTool(tool, bytes, deps);
      if (msg.part && Array.isArray(result) && result.length === 0) pages = 0;
      port.postMessage({ type: 'done', jobId, result, pages, retire: bloated() } satisfies WorkerMessage);
    } catch (error) {
      port.postMessage({ type: 'failed', jobId, error: serialize(error), retire: bloated() } satisfies WorkerMessage);
    }
  });
  port.postMessage({ type: 'ready' } satisfies WorkerMessage);
}

main();
