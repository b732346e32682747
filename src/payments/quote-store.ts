/**
 * Quote records, one row per request fingerprint: the last quote's fields plus its recent
 * issue times and the amount each of them quoted.
 *
 * A quote is an offer the buyer may pay at once, so it must exist before the 402 that carries
 * it leaves: `record` resolves only when the quote is committed to the database (and so is
 * seen by every instance, and survives a crash of this one). Unpaid calls are the hot path, so
 * writes are group-committed: quotes that arrive while a write is in flight wait together and
 * go to the database as one multi-row upsert as soon as it ends; each 402 waits for the write
 * that holds its quote. A lone quote waits for one round trip; under load a batch holds every
 * quote that arrived during the previous write, so the number of writes stays bounded by the
 * database's round-trip time, not by the request rate.
 */
import { createPreparedSql } from './prepared-sql.ts';
import type { Database } from '../db/orm.ts';
import type { Quote } from '../db/entities.ts';
import type { Logger } from '../log.ts';
import { createLru } from '../lib/lru.ts';

export type QuoteRecord = Omit<Quote, 'id' | 'quotedTimes' | 'quotedAmounts'>;

/** One recent quote of a request: when it was issued (unix seconds) and the amount it asked. */
export interface QuotedOffer {
  at: number;
  amount: bigint;
}

/** How many recent quotes a fingerprint keeps: enough for any honest client's re-quotes around one payment. */
export const QUOTE_TIMES_KEPT = 16;

export interface QuoteStore {
  /** Resolves once the quote is committed: only then may its 402 be sent. Rejects when it could not be written. */
  record(q: QuoteRecord): Promise<void>;
  /** The fingerprint's recent quotes, oldest first. */
  offers(fingerprint: string): Promise<QuotedOffer[]>;
  /** Waits for every quote recorded so far to be written (or to fail). */
  close(): Promise<void>;
}

interface Batch {
  rows: Map<string, { q: QuoteRecord; times: Date[]; amounts: bigint[] }>;
  done: Promise<void>;
  settle: (err?: unknown) => void;
}

/** What the same-second dedupe remembers of a fingerprint's last recorded quote. */
interface Mark {
  mark: string;
  done: Promise<void>;
  failed: boolean;
}

const arrayLiteral = (items: string[]) => `{${items.map((i) => `"${i}"`).join(',')}}`;

export interface QuoteStoreOptions {
  /**
   * Commit without waiting for the server's WAL flush (PostgreSQL only). Never on PGlite: its
   * WAL buffers live in this process, so an unflushed commit dies with it.
   */
  commitWithoutFlush?: boolean;
}

export function createQuoteStore(orm: Database, log: Logger, opts: QuoteStoreOptions = {}): QuoteStore {
  const asyncCommit = opts.commitWithoutFlush ? `, (select set_config('synchronous_commit', 'off', true)) as async_commit` : '';
  let open: Batch | null = null;
  // The offers a payment is judged against, read on every paid call: a prepared statement on PostgreSQL (prepared-sql.ts).
  const prepared = createPreparedSql(orm);
  let writing: Promise<void> | null = null;

  const newBatch = (): Batch => {
    let settle!: Batch['settle'];
    const done = new Promise<void>((resolve, reject) => (settle = (err) => (err === undefined ? resolve() : reject(err))));
    // Deduped waiters may come and go; a failed write must never be an unhandled rejection.
    done.catch(() => undefined);
    return { rows: new Map(), done, settle };
  };

  const write = async (batch: Batch) => {
    const values: unknown[] = [];
    const rows = [...batch.rows.values()].map(({ q, times, amounts }) => {
      values.push(q.fingerprint, q.resource, q.endpointKey, q.amount.toString(), q.pages, q.createdAt, arrayLiteral(times.map((t) => t.toISOString())), arrayLiteral(amounts.map(String)));
      return '(?::varchar, ?::text, ?::varchar, ?::numeric(78,0), ?::int, ?::timestamptz, ?::timestamptz[], ?::numeric(78,0)[])';
    });
    // The two arrays are appended and trimmed alike, so the i-th amount stays the i-th time's.
    const keepFrom = `greatest(1, cardinality(quote.quoted_times) + cardinality(excluded.quoted_times) + 1 - ${QUOTE_TIMES_KEPT})`;
    // On a PostgreSQL server, synchronous_commit is off for this statement's transaction only
    // (set_config(..., true)): the commit is visible to every instance at once and survives any
    // crash of a service process, but does not wait for the server's WAL flush, which on a busy
    // disk costs tens of milliseconds and would bound the 402 rate at connections / fsync time.
    // Only a crash of the PostgreSQL server itself within a few wal_writer_delay can lose it.
    await orm.em.getConnection().execute(
      `insert into quote (fingerprint, resource, endpoint_key, amount, pages, created_at, quoted_times, quoted_amounts)
       select q.* from (values ${rows.join(', ')}) as q${asyncCommit}
       on conflict (fingerprint) do update set created_at = greatest(quote.created_at, excluded.created_at),
         quoted_times = (quote.quoted_times || excluded.quoted_times)[${keepFrom}:],
         quoted_amounts = (quote.quoted_amounts || excluded.quoted_amounts)[${keepFrom}:],
         amount = excluded.amount, pages = excluded.pages, resource = excluded.resource, endpoint_key = excluded.endpoint_key`,
      values,
    );
  };

  // One write at a time: the next batch starts the moment the previous one ends, holding every
  // quote that arrived meanwhile.
  const startNext = () => {
    if (writing || !open) return;
    const batch = open;
    open = null;
    writing = write(batch)
      .then(
        () => batch.settle(),
        (err: unknown) => {
          log.error('quote write failed: its 402 answers are not sent', { err, quotes: batch.rows.size });
          batch.settle(err);
        },
      )
      .finally(() => {
        writing = null;
        startNext();
      });
  };

  // Quote times are kept to the second: the same request quoted again within the second it
  // was last recorded at the same price adds nothing, so a client re-quoting in a loop costs
  // no database write. It still waits for the write that holds the first one.
  const recorded = createLru<string, Mark>(4096);

  return {
    record(q) {
      const mark = `${Math.floor(q.createdAt.getTime() / 1000)}|${q.amount}|${q.pages}`;
      const last = recorded.get(q.fingerprint);
      if (last && last.mark === mark && !last.failed) return last.done;
      if (!open) {
        open = newBatch();
        // The requests read in this turn of the event loop join the same write.
        setImmediate(startNext);
      }
      const batch = open;
      const row = batch.rows.get(q.fingerprint);
      if (row) {
        // The same request quoted twice in one batch (a price change within it): both offers are kept.
        row.q = q;
        row.times.push(q.createdAt);
        row.amounts.push(q.amount);
      } else batch.rows.set(q.fingerprint, { q, times: [q.createdAt], amounts: [q.amount] });
      const entry: Mark = { mark, done: batch.done, failed: false };
      batch.done.catch(() => (entry.failed = true));
      recorded.set(q.fingerprint, entry);
      return batch.done;
    },
    async offers(fingerprint) {
      // No flush needed: a quote whose 402 was sent is already committed.
      const rows = await prepared.execute<{ t: string | number; amount: string }[]>(
        'select extract(epoch from t)::float8 as t, a::text as amount from quote, unnest(quoted_times, quoted_amounts) as o(t, a) where fingerprint = ? and a is not null order by t',
        [fingerprint],
      );
      return rows.map((r: { t: string | number; amount: string }) => ({ at: Math.floor(Number(r.t)), amount: BigInt(r.amount) }));
    },
    async close() {
      while (open || writing) {
        startNext();
        await writing?.catch(() => undefined);
      }
    },
  };
}
