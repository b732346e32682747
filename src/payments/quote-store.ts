/**
 * Quote records, one per request fingerprint (the last quote wins). Unpaid calls are the
 * hot path, so writes are batched: quotes queue in memory and go to the database as one
 * multi-row upsert every few milliseconds. A quote lost in a crash only means the
 * 1-hour fallback applies to its payment, never that a payment is lost.
 */
import type { Database } from '../db/orm.ts';
import type { Quote } from '../db/entities.ts';
import type { Logger } from '../log.ts';

export type QuoteRecord = Omit<Quote, 'id'>;

export interface QuoteStore {
  record(q: QuoteRecord): void;
  /** The last quote's time for a fingerprint, or null. Flushes pending writes first. */
  lastQuotedAt(fingerprint: string): Promise<Date | null>;
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
      values.push(q.fingerprint, q.resource, q.endpointKey, q.amount.toString(), q.pages, q.createdAt);
      return '(?, ?, ?, ?, ?, ?)';
    });
    await orm.em.getConnection().execute(
      `insert into quote (fingerprint, resource, endpoint_key, amount, pages, created_at) values ${rows.join(', ')}
       on conflict (fingerprint) do update set created_at = greatest(quote.created_at, excluded.created_at),
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

  return {
    record(q) {
      pending.set(q.fingerprint, q);
      timer ??= setTimeout(() => void flush(), flushEveryMs);
    },
    async lastQuotedAt(fingerprint) {
      await flush();
      const rows = await orm.em.getConnection().execute<{ created_at: Date }[]>('select created_at from quote where fingerprint = ?', [fingerprint]);
      return rows[0] ? new Date(rows[0].created_at) : null;
    },
    flush,
    close: flush,
  };
}
