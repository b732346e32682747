/**
 * The two states of a tool job, kept apart so each reads on its own:
 * - a `QueuedJob` is what waits in a lane's queue: the request and its promise;
 * - a `JobRun` is what a started job knows: its workers (more than one when split), what each
 *   part has reported, whether it has answered, and its time limit.
 * The pool (tool-pool.ts) moves a QueuedJob into a JobRun when it hands it to workers.
 */
import type { ToolName, ToolOptions } from './tool-types.ts';

export type Lane = 'tools' | 'inspect';

export interface QueuedJob {
  id: number;
  lane: Lane;
  /** inspect jobs: the page limit of the quote. */
  maxPages?: number;
  tool: ToolName;
  /** Emptied once the bytes have moved to a worker. */
  bytes: Uint8Array;
  requestId?: string;
  /** The buyer's options, handed to runTool in the worker. */
  options?: ToolOptions;
  timeoutMs: number;
  enqueuedAt: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** A started job over `parts` workers (W: the pool's worker slot). */
export class JobRun<W> {
  readonly startedAt = Date.now();
  /** Set once, when the job has answered; parts still running after that are ignored. */
  settled = false;
  timer: NodeJS.Timeout | null = null;
  /** The workers still running a part of it. */
  readonly running = new Set<W>();
  private readonly results: unknown[];
  private readonly partPages: (number | null)[];
  private readonly partDone: number[];
  private readonly partTotal: number[];
  private remaining: number;
  private lastProgressLog = 0;

  constructor(
    readonly job: QueuedJob,
    readonly parts: number,
  ) {
    this.results = Array.from({ length: parts }, () => null);
    this.partPages = Array.from({ length: parts }, () => null);
    this.partDone = Array.from({ length: parts }, () => 0);
    this.partTotal = Array.from({ length: parts }, () => 0);
    this.remaining = parts;
  }

  get split(): boolean {
    return this.parts > 1;
  }

  /**
   * Records a part's progress; returns the job's totals when they are worth a log line (one
   * part's last page, or `everyMs` since the last line: each worker already throttles).
   */
  progress(part: number, pagesDone: number, pagesTotal: number, now: number, everyMs: number): { pagesDone: number; pagesTotal: number } | null {
    this.partDone[part] = pagesDone;
    this.partTotal[part] = pagesTotal;
    if (this.settled || (this.split && now - this.lastProgressLog < everyMs && pagesDone !== pagesTotal)) return null;
    this.lastProgressLog = now;
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    return { pagesDone: sum(this.partDone), pagesTotal: sum(this.partTotal) };
  }

  /** Records a part's result; true when it was the last one outstanding. */
  finishPart(part: number, result: unknown, pages: number | null): boolean {
    this.results[part] = result;
    this.partPages[part] = pages;
    return --this.remaining === 0;
  }

  /** Every part's result, in part order (call once finishPart returned true). */
  partResults(): unknown[] {
    return this.results;
  }

  /** Pages done over all parts. */
  pages(): number {
    return this.partPages.reduce<number>((a, b) => a + (b ?? 0), 0);
  }

  /** Answers the caller once; a later answer (a part finishing after a failure) is dropped. */
  resolve(value: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.job.resolve(value);
  }

  fail(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.job.reject(error);
  }
}
