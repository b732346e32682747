/**
 * last_used_at of API keys, without a database write per request: uses are remembered in
 * memory (key id -> latest time) and written every `flushMs` in one UPDATE, and once more on
 * close. The times are informational (the listing shows them); a crash loses at most one
 * interval of them, never anything that decides access. Each instance batches its own uses;
 * `greatest` keeps the column monotonic when several instances flush out of order.
 */
import { sqlOf, type Database } from '../db/orm.ts';
import type { Logger } from '../log.ts';
import { MAX_KEY_USES_PER_STATEMENT, recordKeyUses } from './account-store.ts';

export interface KeyUsage {
  /** Remembers that a key was used now. */
  touch(id: number): void;
  /** Writes the remembered uses (one statement), then forgets them. */
  flush(): Promise<void>;
  /** Stops the timer and flushes what is left. */
  close(): Promise<void>;
}

export function createKeyUsage(deps: { orm: Database; flushMs: number; log: Logger; now?: () => Date }): KeyUsage {
  const now = deps.now ?? (() => new Date());
  let pending = new Map<number, number>();
  // Flushes run one after another, so close() waits for one the timer started.
  let running: Promise<void> = Promise.resolve();

  const write = async () => {
    if (!pending.size) return;
    const batch = pending;
    pending = new Map();
    const rows = [...batch];
    const em = sqlOf(deps.orm);
    try {
      // One statement per flush, unless more keys were used than one statement may carry
      // parameters for (PostgreSQL: 65535).
      for (let i = 0; i < rows.length; i += MAX_KEY_USES_PER_STATEMENT) {
        const chunk = rows.slice(i, i + MAX_KEY_USES_PER_STATEMENT);
        await recordKeyUses(em, chunk);
      }
    } catch (err) {
      // Kept for the next flush (newer uses of the same key win).
      for (const [id, ms] of batch) if ((pending.get(id) ?? 0) < ms) pending.set(id, ms);
      deps.log.warn('could not record API key use times; retrying at the next flush', { err });
    }
  };

  const flush = () => (running = running.then(write));
  const timer = setInterval(() => void flush(), deps.flushMs);
  timer.unref();

  return {
    touch: (id) => {
      pending.set(id, now().getTime());
    },
    flush,
    close: async () => {
      clearInterval(timer);
      await flush();
    },
  };
}
