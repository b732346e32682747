/**
 * Quote records, one row per request fingerprint: the last quote's fields plus its recent
 * issue times. Unpaid calls are the hot path, so writes are batched: quotes queue in memory
 * and go to the database as one multi-row upsert every few milliseconds. A transfer pays only
 * for a request quoted before its block, so a quote lost in a crash (the last few ms) means
 * its buyer must quote again before paying; no payment is ever accepted because of it.
 */
import type { Database } from '../db/orm.ts';
import type { Quote } from '../db/entities.ts';
import type { Logger } from '../log.ts';
import { createLru } from '../lib/lru.ts';

export type QuoteRecord = Omit<Quote, 'id' | 'quotedTimes'>;

/** How many recent issue times a fingerprint keeps: enough for any honest client's re-quotes around one payment. */
export const QUOTE_TIMES_KEPT = 16;

export interface QuoteStore {
  record(q: QuoteRecord): void;
  /** Recent issue times (unix seconds, oldest first) of a fingerprint's quotes. Flushes pending writes first. */
  quoteTimes(fingerprint: string): Promise<number[]>;
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function createQuoteStore(orm: Database, log: Logger, flushEveryMs = 20): QuoteStore {
  let pending = new Map<string, QuoteRecord>();
  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<void> = Promise.resolve();

  const write = async (batch: QuoteRecord[]) => {
    const values: unknown[] = [];
    const rows = batch.map((q) => {
      values.push(q.fingerprint, q.resource, q.endpointKey, q.amount.toString(), q.pages, q.createdAt, q.createdAt);
      return '(?, ?, ?, ?, ?, ?, array[?::timestamptz])';
    });
    await orm.em.getConnection().execute(
      `insert into quote (fingerprint, resource, endpoint_key, amount, pages, created_at, quoted_times) values ${rows.join(', ')}
       on conflict (fingerprint) do update set created_at = greatest(quote.created_at, excluded.created_at),
         quoted_times = (quote.quoted_times || excluded.quoted_times)[greatest(1, cardinality(quote.quoted_times) + 2 - ${QUOTE_TIMES_KEPT}):],
         amount = excluded.amount, pages = excluded.pages, resource = excluded.resource, endpoint_key = excluded.endpoint_key`,
      values,
    );
  };

  const flush = (): Promise<void> => {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    if (pending.size === 0) return inFlight;
    const batch = [...pending.values()];
    pending = new Map();
    inFlight = inFlight.then(() => write(batch)).catch((err) => log.error('quote batch write failed', { err, quotes: batch.length }));
    return inFlight;
  };

  // Quote times are kept to the second: the same request quoted again within the second it
  // was last recorded at the same price adds nothing, so a client re-quoting in a loop costs
  // no database write.
  const recorded = createLru<string, string>(4096);

  return {
    record(q) {
      const mark = `${Math.floor(q.createdAt.getTime() / 1000)}|${q.amount}|${q.pages}`;
      if (recorded.get(q.fingerprint) === mark) return;
      recorded.set(q.fingerprint, mark);
      pending.set(q.fingerprint, q);
      timer ??= setTimeout(() => void flush(), flushEveryMs);
    },
    async quoteTimes(fingerprint) {
      await flush();
      const rows = await orm.em.getConnection().execute<{ t: string | number }[]>(
        'select extract(epoch from t)::float8 as t from quote, unnest(quoted_times) as t where fingerprint = ? order by t',
        [fingerprint],
      );
      return rows.map((r: { t: string | number }) => Math.floor(Number(r.t)));
    },
    flush,
    close: flush,
  };
}
