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
 * Splitting: a pdf-text or pdf-json job dispatched while other tool workers are idle and
 * nothing else waits runs on all of them at once, each worker opening the document and
 * taking chunks of pages in turn from a shared counter until none is left, so a worker on a
 * busier core does fewer of them (documents under splitMinPages pages are done whole by one
 * of them; the others answer at once). Results are joined in page order, identical to the
 * unsplit output. Parts never wait in the queue: under load every document gets one worker,
 * which is best for throughput. The job's time limit covers all parts; when a part times out
 * or its worker dies, the job fails as an unsplit one would and every worker still running
 * a part of it is terminated and replaced.
 *
 * run() transfers the bytes to the worker when they own their whole ArrayBuffer (as
 * readUpload's do): the caller's array is detached afterwards. Copy first if you still
 * need them. A split job's other parts read a SharedArrayBuffer copy.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { AppError } from '../http/app-error.ts';
import type { Logger } from '../log.ts';
import { inspectDocument, type DocumentKind } from './inspect-document.ts';
import { mergeParts, SPLITTABLE_TOOLS, type ToolPart } from './tool-split.ts';
import type { ToolName, ToolOptions, ToolResultMap } from './tool-types.ts';
import { JobRun, type Lane, type QueuedJob } from './tool-job.ts';
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
  /**
   * pdf-text and pdf-json jobs on documents with at least this many pages use every idle tool
   * worker (page ranges in parallel) when nothing else waits. Default 32; Infinity never splits.
   */
  splitMinPages?: number;
  /**
   * How the parts of a split job share its pages: 'chunks' (default), in turns from a shared
   * counter, or 'halves', a fixed equal share each (as before; the benchmark compares both).
   */
  splitPages?: 'chunks' | 'halves';
}

export interface ToolPoolStats {
  workers: number;
  busy: number;
  queued: number;
  inspectWorkers: number;
}

export interface ToolPool {
  /** meta.timeoutMs overrides jobTimeoutMs for this one job. */
  run<T extends ToolName>(tool: T, bytes: Uint8Array, meta?: { requestId?: string; timeoutMs?: number; options?: ToolOptions }): Promise<ToolResultMap[T]>;
  /**
   * inspectDocument off the event loop: on a 50 MB, 2,000-page PDF parsing the page tree
   * blocks a thread for about 100 ms, which the HTTP thread should not pay per quote. Small
   * documents are inspected inline. The caller keeps its bytes (they are copied).
   */
  inspect(tool: ToolName, bytes: Uint8Array, opts: { maxPages: number }): Promise<{ kind: DocumentKind; pages: number }>;
  stats(): ToolPoolStats;
  close(): Promise<void>;
}

interface Slot {
  lane: Lane;
  worker: Worker;
  ready: boolean;
  job: JobRun<Slot> | null;
  /** Which part of its job this worker runs. */
  part: number;
  /** Set once the slot is being torn down, so its exit is not handled twice. */
  dead: boolean;
}

/** Progress of a split job is logged at most this often (each part reports on its own). */
const PROGRESS_LOG_EVERY_MS = 1000;

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

/**
 * Moves the bytes into an array the pool owns (no copy when they own their whole buffer; the
 * caller's array is detached as with a transfer to a worker), for jobs dispatched later.
 */
const takeOwnership = (bytes: Uint8Array): Uint8Array => {
  const whole = transferable(bytes);
  if (whole !== bytes) return whole;
  try {
    return new Uint8Array(structuredClone(bytes.buffer as ArrayBuffer, { transfer: [bytes.buffer as ArrayBuffer] }));
  } catch {
    return new Uint8Array(bytes);
  }
};

export function createToolPool(opts: ToolPoolOptions): ToolPool {
  const size = opts.workers > 0 ? opts.workers : os.availableParallelism();
  const log = opts.log.child({ component: 'tool-pool' });
  const workerUrl = opts.workerUrl ?? DEFAULT_WORKER_URL;
  const inspectSize = opts.inspectWorkers ?? 1;
  const inlineInspectBytes = opts.inlineInspectBytes ?? 1024 * 1024;
  const splitMinPages = opts.splitMinPages ?? 32;
  const slots: Slot[] = [];
  const queues: Record<Lane, QueuedJob[]> = { tools: [], inspect: [] };
  const queue = queues.tools;
  let nextJobId = 1;
  let closed = false;
  let startFailures = 0;
  const idleWaiters: (() => void)[] = [];
  let dispatchScheduled = false;

  const spawn = (lane: Lane): void => {
    if (closed) return;
    const worker = new Worker(workerUrl, {
      // tool-worker.mjs registers tsx itself; inherited flags (--test, --import tsx) would double up.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: opts.jobMemoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(8, Math.floor(opts.jobMemoryMb / 8))) },
      name: 'paycall-tool',
    });
    const slot: Slot = { lane, worker, ready: false, job: null, part: 0, dead: false };
    slots.push(slot);
    worker.on('message', (msg: WorkerMessage) => {
      // A throw here would escape to the process (an EventEmitter listener): it fails the job
      // instead, and the worker, whose state is now unknown, is replaced.
      try {
        onMessage(slot, msg);
      } catch (error) {
        log.error('a tool worker message could not be handled', { error, jobId: slot.job?.job.id });
        retire(slot, error as Error);
      }
    });
    // A message that cannot be deserialized would leave its job waiting for its time limit.
    worker.on('messageerror', (error: Error) => retire(slot, error));
    worker.on('error', (error: Error & { code?: string }) => retire(slot, error));
    worker.on('exit', (code) => retire(slot, new Error(`worker exited with code ${code}`)));
  };

  const retire = (slot: Slot, cause: Error & { code?: string }): void => {
    if (slot.dead) return;
    slot.dead = true;
    slots.splice(slots.indexOf(slot), 1);
    const run = slot.job;
    slot.job = null;
    if (run) {
      release(run, slot);
      if (!run.settled) {
        const { job } = run;
        const ms = Date.now() - run.startedAt;
        const part = run.split ? slot.part : undefined;
        if (cause.code === 'ERR_WORKER_OUT_OF_MEMORY') {
          log.warn('tool job exceeded the memory limit', { jobId: job.id, tool: job.tool, requestId: job.requestId, ms, memoryMb: opts.jobMemoryMb, part });
          run.fail(new AppError('document_too_complex', 422, `processing the document needs more than the ${opts.jobMemoryMb} MB memory limit`));
        } else {
          log.error('tool worker died during a job', { jobId: job.id, tool: job.tool, requestId: job.requestId, ms, error: cause, part });
          run.fail(new AppError('internal_error', 500, 'the document worker stopped unexpectedly'));
        }
        // The other parts are worthless without this one: free their workers now.
        for (const sibling of [...run.running]) retire(sibling, new Error('terminated: another part of its job failed'));
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
    const run = slot.job;
    if (!run || msg.jobId !== run.job.id) return;
    const { job } = run;
    if (msg.type === 'progress') {
      const totals = run.progress(slot.part, msg.pagesDone, msg.pagesTotal, Date.now(), PROGRESS_LOG_EVERY_MS);
      if (totals) log.info('tool job progress', { jobId: job.id, tool: job.tool, requestId: job.requestId, ...totals, ms: Date.now() - run.startedAt });
      return;
    }
    slot.job = null;
    release(run, slot);
    const ms = Date.now() - run.startedAt;
    if (run.settled) {
      // A part of a job that has already answered (another part failed): only the worker is freed.
    } else if (msg.type === 'done') {
      if (run.finishPart(slot.part, msg.result, msg.pages)) {
        try {
          const result = run.split ? mergeParts(job.tool, run.partResults() as never[]) : msg.result;
          const pages = run.split ? run.pages() : msg.pages;
          log.info('tool job finished', { jobId: job.id, lane: job.lane, tool: job.tool, requestId: job.requestId, ms, queueMs: run.startedAt - job.enqueuedAt, pages, parts: run.parts });
          run.resolve(result);
        } catch (error) {
          log.error('tool job failed', { jobId: job.id, tool: job.tool, requestId: job.requestId, ms, error });
          run.fail(error);
        }
      }
    } else {
      const error = toError(msg.error);
      if (msg.error.app) log.info('tool job rejected the document', { jobId: job.id, tool: job.tool, requestId: job.requestId, ms, code: msg.error.code, message: msg.error.message });
      else log.error('tool job failed', { jobId: job.id, tool: job.tool, requestId: job.requestId, ms, error });
      run.fail(error);
    }
    // The worker asked to be replaced (PDFium's memory only grows): no job goes to it again.
    if (msg.retire) retire(slot, new Error('retired after a job that outgrew the memory limit'));
    dispatch();
    settleIdle();
  };

  /** A worker is done with its part. The time limit stays armed while any part runs, answered or not. */
  const release = (run: JobRun<Slot>, slot: Slot): void => {
    run.running.delete(slot);
    if (!run.running.size && run.timer) clearTimeout(run.timer);
  };

  const idle = (slot: Slot): boolean => slot.ready && !slot.job && !slot.dead;
  const splittable = (job: QueuedJob): boolean => job.lane === 'tools' && splitMinPages !== Infinity && SPLITTABLE_TOOLS.has(job.tool);

  const dispatch = (): void => {
    for (const slot of slots) {
      const waiting = queues[slot.lane];
      if (!waiting.length || !idle(slot)) continue;
      const job = waiting.shift()!;
      const team = [slot];
      // Idle workers join only when nobody else waits for them.
      if (splittable(job) && !waiting.length) {
        for (const other of slots) if (other !== slot && other.lane === 'tools' && idle(other)) team.push(other);
      }
      start(job, team);
    }
  };

  /** Sends a job to its worker, or its parts to a team of idle workers, and arms its time limit. */
  const start = (job: QueuedJob, team: Slot[]): void => {
    const run = new JobRun<Slot>(job, team.length);
    log.info('tool job started', { jobId: job.id, lane: job.lane, tool: job.tool, requestId: job.requestId, bytes: job.bytes.byteLength, queueMs: run.startedAt - job.enqueuedAt, parts: run.parts });
    // The other parts read one shared copy, made before the original moves to the first worker.
    let shared: Uint8Array | null = null;
    if (run.split) {
      shared = new Uint8Array(new SharedArrayBuffer(job.bytes.byteLength));
      shared.set(job.bytes);
    }
    // The parts take chunks of pages from one shared counter (see ToolPart).
    const cursor = run.split && opts.splitPages !== 'halves' ? new Int32Array(new SharedArrayBuffer(4)) : undefined;
    const partOf = (index: number): ToolPart | undefined => (run.split ? { index, count: run.parts, minPages: Math.max(1, splitMinPages), cursor } : undefined);
    const request = (bytes: Uint8Array, index: number): WorkerRequest =>
      job.lane === 'inspect' ? { type: 'inspect', jobId: job.id, tool: job.tool, bytes, maxPages: job.maxPages ?? Infinity } : { type: 'run', jobId: job.id, tool: job.tool, bytes, part: partOf(index), options: job.options };
    for (const [index, slot] of team.entries()) {
      try {
        if (index === 0) {
          const post = (bytes: Uint8Array) => slot.worker.postMessage(request(bytes, 0), [bytes.buffer as ArrayBuffer]);
          try {
            post(transferable(job.bytes));
          } catch (error) {
            // Memory owned by native code (a Buffer from an addon) cannot move between threads: send a copy.
            if ((error as Error)?.name !== 'DataCloneError') throw error;
            post(new Uint8Array(job.bytes));
          }
        } else slot.worker.postMessage(request(shared!, index));
      } catch (error) {
        log.error('tool job could not be sent to a worker', { jobId: job.id, tool: job.tool, requestId: job.requestId, error });
        run.fail(error);
        break;
      }
      slot.job = run;
      slot.part = index;
      run.running.add(slot);
    }
    job.bytes = new Uint8Array(0);
    if (!run.running.size) return;
    run.timer = setTimeout(() => {
      if (!run.settled) log.warn('tool job timed out', { jobId: job.id, tool: job.tool, requestId: job.requestId, ms: Date.now() - run.startedAt, timeoutMs: job.timeoutMs, parts: run.parts });
      run.fail(new AppError('processing_timeout', 504, `processing the document took longer than ${job.timeoutMs / 1000} s`));
      for (const slot of [...run.running]) retire(slot, new Error('terminated after a job timeout'));
    }, job.timeoutMs);
  };

  const settleIdle = (): void => {
    if (slots.some((s) => s.job) || queues.tools.length || queues.inspect.length) return;
    for (const w of idleWaiters.splice(0)) w();
  };

  const newJob = (fields: Omit<QueuedJob, 'id' | 'enqueuedAt'>): QueuedJob => ({ ...fields, id: nextJobId++, enqueuedAt: Date.now() });

  for (let i = 0; i < size; i++) spawn('tools');
  for (let i = 0; i < inspectSize; i++) spawn('inspect');
  log.info('tool pool started', { workers: size, jobTimeoutMs: opts.jobTimeoutMs, jobMemoryMb: opts.jobMemoryMb });

  return {
    run<T extends ToolName>(tool: T, bytes: Uint8Array, meta: { requestId?: string; timeoutMs?: number; options?: ToolOptions } = {}): Promise<ToolResultMap[T]> {
      if (closed) return Promise.reject(new AppError('service_unavailable', 503, 'the document tools are shutting down'));
      if (opts.maxQueue !== undefined && queue.length >= opts.maxQueue) {
        return Promise.reject(new AppError('tools_busy', 503, 'too many documents are waiting to be processed', { hint: 'retry in a few seconds', headers: { 'Retry-After': '5' } }));
      }
      return new Promise<ToolResultMap[T]>((resolve, reject) => {
        const job = newJob({ lane: 'tools', tool, bytes, requestId: meta.requestId, options: meta.options, timeoutMs: meta.timeoutMs ?? opts.jobTimeoutMs, resolve: resolve as (v: unknown) => void, reject });
        queue.push(job);
        if (splittable(job) && slots.filter((s) => s.lane === 'tools' && idle(s)).length > 1) {
          // It would be split: first let the jobs submitted in the same tick (Promise.all over a
          // batch) join the queue, so that a batch gets one worker per document instead.
          job.bytes = takeOwnership(bytes);
          if (!dispatchScheduled) {
            dispatchScheduled = true;
            queueMicrotask(() => {
              dispatchScheduled = false;
              dispatch();
            });
          }
        } else dispatch();
      });
    },
    async inspect(tool, bytes, inspectOpts) {
      if (closed || inspectSize === 0 || bytes.byteLength <= inlineInspectBytes) return inspectDocument(tool, bytes, inspectOpts);
      return new Promise((resolve, reject) => {
        // A copy: the caller still needs its bytes to run the tool after payment.
        queues.inspect.push(newJob({ lane: 'inspect', maxPages: inspectOpts.maxPages, tool, bytes: new Uint8Array(bytes), timeoutMs: opts.jobTimeoutMs, resolve: resolve as (v: unknown) => void, reject }));
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
          return s.worker.terminate();
        }),
      );
      log.info('tool pool closed');
    },
  };
}
