/**
 * A worker_threads pool for the document tools, so PDF parsing and OCR never block the
 * HTTP event loop. One job per worker at a time; jobs queue in arrival order.
 *
 * Limits (answers for the HTTP layer):
 * - time: a job running longer than jobTimeoutMs has its worker terminated and answers
 *   504 processing_timeout;
 * - memory: each worker's V8 heap is capped at jobMemoryMb (resourceLimits); a job that
 *   exceeds it kills its worker and answers 422 document_too_complex;
 * - a worker that dies any other way answers 500 internal_error.
 * A worker that ends for any reason is replaced, so capacity recovers by itself.
 *
 * run() transfers the bytes to the worker when they own their whole ArrayBuffer (as
 * readUpload's do): the caller's array is detached afterwards. Copy first if you still
 * need them.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { AppError } from '../http/app-error.ts';
import type { Logger } from '../log.ts';
import { inspectDocument, type DocumentKind } from './inspect-document.ts';
import type { ToolName, ToolResultMap } from './tool-types.ts';
import type { SerializedError, WorkerMessage, WorkerRequest } from './tool-worker.ts';

export interface ToolPoolOptions {
  /** Number of worker threads; 0 means os.availableParallelism(). */
  workers: number;
  jobTimeoutMs: number;
  jobMemoryMb: number;
  log: Logger;
  /** Jobs allowed to wait; beyond it run() answers 503 tools_busy at once. Default: unbounded. */
  maxQueue?: number;
  /** Worker entry point; tests swap in one that misbehaves on purpose. */
  workerUrl?: URL;
  /** Threads reserved for inspect(), so quotes never wait behind conversions. Default 1. */
  inspectWorkers?: number;
  /** Documents up to this size are inspected on the calling thread (it takes a few ms). Default 1 MB. */
  inlineInspectBytes?: number;
}

export interface ToolPoolStats {
  workers: number;
  busy: number;
  queued: number;
  inspectWorkers: number;
}

export interface ToolPool {
  /** meta.timeoutMs overrides jobTimeoutMs for this one job. */
  run<T extends ToolName>(tool: T, bytes: Uint8Array, meta?: { requestId?: string; timeoutMs?: number }): Promise<ToolResultMap[T]>;
  /**
   * inspectDocument off the event loop: on a 50 MB, 2,000-page PDF parsing the page tree
   * blocks a thread for about 100 ms, which the HTTP thread should not pay per quote. Small
   * documents are inspected inline. The caller keeps its bytes (they are copied).
   */
  inspect(tool: ToolName, bytes: Uint8Array, opts: { maxPages: number }): Promise<{ kind: DocumentKind; pages: number }>;
  stats(): ToolPoolStats;
  close(): Promise<void>;
}

type Lane = 'tools' | 'inspect';

interface Job {
  id: number;
  lane: Lane;
  maxPages?: number;
  tool: ToolName;
  bytes: Uint8Array;
  requestId?: string;
  timeoutMs: number;
  enqueuedAt: number;
  startedAt: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Slot {
  lane: Lane;
  worker: Worker;
  ready: boolean;
  job: Job | null;
  timer: NodeJS.Timeout | null;
  /** Set once the slot is being torn down, so its exit is not handled twice. */
  dead: boolean;
}

const DEFAULT_WORKER_URL = new URL('./tool-worker.mjs', import.meta.url);

const toError = (e: SerializedError): Error => {
  if (e.app) return new AppError(e.code, e.status, e.message, e.hint ? { hint: e.hint } : {});
  const error = new Error(e.message);
  if (e.stack) error.stack = e.stack;
  return error;
};

/** An ArrayBuffer can be moved to a worker only when the view covers all of it. */
const transferable = (bytes: Uint8Array): Uint8Array => {
  if (bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  return new Uint8Array(bytes);
};

export function createToolPool(opts: ToolPoolOptions): ToolPool {
  const size = opts.workers > 0 ? opts.workers : os.availableParallelism();
  const log = opts.log.child({ component: 'tool-pool' });
  const workerUrl = opts.workerUrl ?? DEFAULT_WORKER_URL;
  const inspectSize = opts.inspectWorkers ?? 1;
  const inlineInspectBytes = opts.inlineInspectBytes ?? 1024 * 1024;
  const slots: Slot[] = [];
  const queues: Record<Lane, Job[]> = { tools: [], inspect: [] };
  const queue = queues.tools;
  let nextJobId = 1;
  let closed = false;
  let startFailures = 0;
  const idleWaiters: (() => void)[] = [];

  const spawn = (lane: Lane): void => {
    if (closed) return;
    const worker = new Worker(workerUrl, {
      // tool-worker.mjs registers tsx itself; inherited flags (--test, --import tsx) would double up.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: opts.jobMemoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(8, Math.floor(opts.jobMemoryMb / 8))) },
      name: 'paycall-tool',
    });
    const slot: Slot = { lane, worker, ready: false, job: null, timer: null, dead: false };
    slots.push(slot);
    worker.on('message', (msg: WorkerMessage) => onMessage(slot, msg));
    worker.on('error', (error: Error & { code?: string }) => retire(slot, error));
    worker.on('exit', (code) => retire(slot, new Error(`worker exited with code ${code}`)));
  };

  const retire = (slot: Slot, cause: Error & { code?: string }): void => {
    if (slot.dead) return;
    slot.dead = true;
    if (slot.timer) clearTimeout(slot.timer);
    slots.splice(slots.indexOf(slot), 1);
    const job = slot.job;
    slot.job = null;
    if (job) {
      const ms = Date.now() - job.startedAt;
      if (cause.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        log.warn('tool job exceeded the memory limit', { jobId: job.id, tool: job.tool, requestId: job.requestId, ms, memoryMb: opts.jobMemoryMb });
        job.reject(new AppError('document_too_complex', 422, `processing the document needs more than the ${opts.jobMemoryMb} MB memory limit`));
      } else {
        log.error('tool worker died during a job', { jobId: job.id, tool: job.tool, requestId: job.requestId, ms, error: cause });
        job.reject(new AppError('internal_error', 500, 'the document worker stopped unexpectedly'));
      }
    } else if (!slot.ready && !closed) {
      startFailures++;
      log.error('tool worker failed to start', { error: cause, failures: startFailures });
    }
    void slot.worker.terminate().catch(() => undefined);
    if (closed) {
      settleIdle();
      return;
    }
    if (startFailures >= 3) {
      // A worker that cannot start will not start on retry either; fail what waits, retry slowly.
      for (const waiting of queues[slot.lane].splice(0)) waiting.reject(new AppError('internal_error', 500, 'document workers cannot start'));
      setTimeout(() => spawn(slot.lane), Math.min(30_000, 1000 * 2 ** (startFailures - 3))).unref();
    } else spawn(slot.lane);
  };

  const onMessage = (slot: Slot, msg: WorkerMessage): void => {
    if (msg.type === 'ready') {
      slot.ready = true;
      startFailures = 0;
      dispatch();
      return;
    }
    const job = slot.job;
    if (!job || msg.jobId !== job.id) return;
    if (msg.type === 'progress') {
      log.info('tool job progress', { jobId: job.id, tool: job.tool, requestId: job.requestId, pagesDone: msg.pagesDone, pagesTotal: msg.pagesTotal, ms: Date.now() - job.startedAt });
      return;
    }
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.job = null;
    const ms = Date.now() - job.startedAt;
    if (msg.type === 'done') {
      log.info('tool job finished', { jobId: job.id, lane: job.lane, tool: job.tool, requestId: job.requestId, ms, queueMs: job.startedAt - job.enqueuedAt, pages: msg.pages });
      job.resolve(msg.result);
    } else {
      const error = toError(msg.error);
      if (msg.error.app) log.info('tool job rejected the document', { jobId: job.id, tool: job.tool, requestId: job.requestId, ms, code: msg.error.code, message: msg.error.message });
      else log.error('tool job failed', { jobId: job.id, tool: job.tool, requestId: job.requestId, ms, error });
      job.reject(error);
    }
    dispatch();
    settleIdle();
  };

  const dispatch = (): void => {
    for (const slot of slots) {
      const waiting = queues[slot.lane];
      if (!waiting.length) continue;
      if (!slot.ready || slot.job || slot.dead) continue;
      const job = waiting.shift()!;
      slot.job = job;
      job.startedAt = Date.now();
      log.info('tool job started', { jobId: job.id, lane: job.lane, tool: job.tool, requestId: job.requestId, bytes: job.bytes.byteLength, queueMs: job.startedAt - job.enqueuedAt });
      const post = (bytes: Uint8Array) => {
        const request: WorkerRequest = job.lane === 'inspect' ? { type: 'inspect', jobId: job.id, tool: job.tool, bytes, maxPages: job.maxPages ?? Infinity } : { type: 'run', jobId: job.id, tool: job.tool, bytes };
        slot.worker.postMessage(request, [bytes.buffer as ArrayBuffer]);
      };
      try {
        try {
          post(transferable(job.bytes));
        } catch (error) {
          // Memory owned by native code (a Buffer from an addon) cannot move between threads: send a copy.
          if ((error as Error)?.name !== 'DataCloneError') throw error;
          post(new Uint8Array(job.bytes));
        }
      } catch (error) {
        slot.job = null;
        log.error('tool job could not be sent to a worker', { jobId: job.id, tool: job.tool, requestId: job.requestId, error });
        job.reject(error);
        continue;
      }
      job.bytes = new Uint8Array(0);
      slot.timer = setTimeout(() => {
        if (slot.job !== job) return;
        slot.job = null;
        log.warn('tool job timed out', { jobId: job.id, tool: job.tool, requestId: job.requestId, ms: Date.now() - job.startedAt, timeoutMs: job.timeoutMs });
        job.reject(new AppError('processing_timeout', 504, `processing the document took longer than ${job.timeoutMs / 1000} s`));
        retire(slot, new Error('terminated after a job timeout'));
      }, job.timeoutMs);
    }
  };

  const settleIdle = (): void => {
    if (slots.some((s) => s.job) || queues.tools.length || queues.inspect.length) return;
    for (const w of idleWaiters.splice(0)) w();
  };

  for (let i = 0; i < size; i++) spawn('tools');
  for (let i = 0; i < inspectSize; i++) spawn('inspect');
  log.info('tool pool started', { workers: size, jobTimeoutMs: opts.jobTimeoutMs, jobMemoryMb: opts.jobMemoryMb });

  return {
    run<T extends ToolName>(tool: T, bytes: Uint8Array, meta: { requestId?: string; timeoutMs?: number } = {}): Promise<ToolResultMap[T]> {
      if (closed) return Promise.reject(new AppError('service_unavailable', 503, 'the document tools are shutting down'));
      if (opts.maxQueue !== undefined && queue.length >= opts.maxQueue) {
        return Promise.reject(new AppError('tools_busy', 503, 'too many documents are waiting to be processed', { hint: 'retry in a few seconds', headers: { 'Retry-After': '5' } }));
      }
      return new Promise<ToolResultMap[T]>((resolve, reject) => {
        const now = Date.now();
        queue.push({ id: nextJobId++, lane: 'tools', tool, bytes, requestId: meta.requestId, timeoutMs: meta.timeoutMs ?? opts.jobTimeoutMs, enqueuedAt: now, startedAt: now, resolve: resolve as (v: unknown) => void, reject });
        dispatch();
      });
    },
    async inspect(tool, bytes, inspectOpts) {
      if (closed || inspectSize === 0 || bytes.byteLength <= inlineInspectBytes) return inspectDocument(tool, bytes, inspectOpts);
      return new Promise((resolve, reject) => {
        const now = Date.now();
        // A copy: the caller still needs its bytes to run the tool after payment.
        queues.inspect.push({ id: nextJobId++, lane: 'inspect', maxPages: inspectOpts.maxPages, tool, bytes: new Uint8Array(bytes), timeoutMs: opts.jobTimeoutMs, enqueuedAt: now, startedAt: now, resolve: resolve as (v: unknown) => void, reject });
        dispatch();
      });
    },
    stats: () => ({
      workers: slots.filter((s) => s.lane === 'tools').length,
      busy: slots.filter((s) => s.lane === 'tools' && s.job).length,
      queued: queue.length,
      inspectWorkers: slots.filter((s) => s.lane === 'inspect').length,
    }),
    async close() {
      if (closed) return;
      closed = true;
      for (const job of [...queues.tools.splice(0), ...queues.inspect.splice(0)]) job.reject(new AppError('service_unavailable', 503, 'the document tools are shutting down'));
      // Running jobs finish (each is bounded by its time limit), then the threads go.
      if (slots.some((s) => s.job)) await new Promise<void>((resolve) => idleWaiters.push(resolve));
      await Promise.all(
        slots.splice(0).map((s) => {
          s.dead = true;
          if (s.timer) clearTimeout(s.timer);
          return s.worker.terminate();
        }),
      );
      log.info('tool pool closed');
    },
  };
}
