/**
 * In-process scheduler every instance runs. It only decides *when to look* for work: each task
 * claims its jobs in PostgreSQL (`FOR UPDATE SKIP LOCKED` plus a lease), so with several
 * instances on one database every job is done by exactly one of them, and a job whose instance
 * died is taken again when its lease runs out. Nothing here is correctness-critical state.
 *
 * We did not use pg-boss: it needs its own schema, a pool of connections and background
 * maintenance, which the single-connection embedded PGlite does not offer well; the jobs we
 * have are rows we already store (an endpoint's next probe time), so claiming those rows is the
 * whole queue (see docs/decisions.md).
 */
import type { Logger } from '../log.ts';

export interface ScheduledTask {
  name: string;
  /** Claims and does the due jobs; resolves when this pass is over. Stop claiming once `stopping` is aborted. */
  run(stopping: AbortSignal): Promise<void>;
}

export interface Scheduler {
  register(task: ScheduledTask): void;
  start(): void;
  /** Runs the tasks soon (e.g. right after a publish) instead of at the next tick. */
  kick(): void;
  /** One pass now, after the one in progress (tests and operators; works when ticking is off). */
  runOnce(): Promise<void>;
  /** Stops ticking and waits for the pass in progress. */
  close(): Promise<void>;
}

export function createScheduler(opts: { tickMs: number; log: Logger }): Scheduler {
  const tasks: ScheduledTask[] = [];
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;
  let started = false;
  const stopping = new AbortController();

  const pass = async () => {
    for (const t of tasks) {
      try {
        await t.run(stopping.signal);
      } catch (err) {
        opts.log.error('scheduled task failed', { task: t.name, err });
      }
    }
  };

  const runNow = () => {
    if (closed || !started) return;
    if (running) {
      again = true;
      return;
    }
    running = pass().finally(() => {
      running = null;
      if (again && !closed) {
        again = false;
        runNow();
      }
    });
  };

  return {
    register: (task) => void tasks.push(task),
    start() {
      if (opts.tickMs <= 0 || started) return;
      started = true;
      timer = setInterval(runNow, opts.tickMs);
      timer.unref();
      runNow();
    },
    kick: () => setImmediate(runNow),
    async runOnce() {
      while (running) await running;
      const p = pass();
      running = p.finally(() => {
        running = null;
      });
      await running;
    },
    async close() {
      closed = true;
      stopping.abort();
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
