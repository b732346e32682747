/**
 * The stored-answers half of the receipt gate (receipt-gate.ts composes it with the exactly-once
 * reservation of receipt-lease.ts): a receipt's one final answer, stored by its holder and
 * replayed to every identical retry; a retry that finds the call still running waits for it; a
 * different request with the same receipt gets 409 tx_already_consumed. The SQL is in
 * receipt-store.ts.
 */
import { sqlOf, type Database } from '../db/orm.ts';
import { AppError } from '../http/app-error.ts';
import { createLru } from '../lib/lru.ts';
import type { Logger } from '../log.ts';
import type { ReceiptLeases } from './receipt-lease.ts';
import { createPreparedSql } from './prepared-sql.ts';
import { finishExhausted, loadReceipt, paymentTxAndPayer, storeAnswer, type AnswerColumns, type StoredAnswer } from './receipt-store.ts';

export type GateOutcome =
  /** This caller holds the receipt. payment: the ledger row's tx and payer when it already has one (a crashed run taken over). */
  | {
      kind: 'claimed';
      paymentId: number | null;
      payment?: { tx: string; payer: string };
      /** The first run attempt is already counted (a fresh consume): no beginRun before it. */
      runCounted?: boolean;
    }
  | { kind: 'replay'; answer: StoredAnswer };

export interface StoredAnswerOptions {
  /** Run attempts one receipt buys (default 3): named in the answer of a receipt whose runs all crashed. */
  maxRuns?: number;
  /** A waiting retry looks at the row this often (another instance's answer); this instance's own answers wake it at once. */
  waitPollMs?: number;
  cacheSize?: number;
  log?: Logger;
}

export interface StoredAnswers {
  /** A replay, a 409, a wait for a running call, a crashed one taken over, or null when the receipt was never consumed. */
  check(key: string, fingerprint: string): Promise<GateOutcome | null>;
  /** Stores the one answer while this instance holds the receipt; otherwise returns the one stored (if any). */
  complete(key: string, answer: StoredAnswer): Promise<{ stored: true } | { stored: false; answer: StoredAnswer | null }>;
  /** Every attempt is spent: the last stored failure (or a generic one) becomes the final answer. */
  exhausted(key: string): Promise<StoredAnswer>;
  /** Wakes the retries of this process waiting for a receipt (its lease was given back or dropped). */
  wake(key: string): void;
}

const consumed = () =>
  new AppError('tx_already_consumed', 409, 'This payment has already been used for a different request.', {
    hint: 'A transaction authorises exactly one call; pay again for a new request.',
  });

/** The answer of a receipt whose runs all crashed without answering. */
const exhaustedAnswer = (maxRuns: number): StoredAnswer => ({
  status: 500,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: Buffer.from(JSON.stringify({ error: 'internal_error', message: `The paid call failed on each of its ${maxRuns} attempts; this payment buys no further attempt.` })),
});

const toAnswer = (row: AnswerColumns): StoredAnswer => ({
  status: row.response_status ?? 500,
  headers: row.response_headers ?? {},
  body: Buffer.from(row.response_body ?? new Uint8Array()),
});

export function createStoredAnswers(orm: Database, leases: Pick<ReceiptLeases, 'holder' | 'takeOver' | 'unhold'>, opts: StoredAnswerOptions): StoredAnswers {
  const waitPollMs = opts.waitPollMs ?? 100;
  const maxRuns = opts.maxRuns ?? 3;
  const em = () => sqlOf(orm);
  // The paid call's reads and its stored answer: prepared statements on PostgreSQL (prepared-sql.ts).
  const prepared = createPreparedSql(orm);

  // Retries waiting in this process for a receipt's answer: woken as soon as it is stored here.
  const waiters = new Map<string, Set<() => void>>();
  const wake = (key: string) => {
    for (const w of waiters.get(key) ?? []) w();
    waiters.delete(key);
  };
  const waitFor = (key: string) =>
    new Promise<void>((resolve) => {
      const set = waiters.get(key) ?? new Set();
      waiters.set(key, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (!set.size && waiters.get(key) === set) waiters.delete(key);
        resolve();
      };
      const timer = setTimeout(done, waitPollMs);
      set.add(done);
    });
  // A finished answer never changes, so replays of recent receipts skip the database.
  // Only answers this instance stored or read are here; others are found in the database.
  const finished = createLru<string, { fingerprint: string; answer: StoredAnswer }>(opts.cacheSize ?? 1000);

  return {
    wake,

    async check(key, fingerprint) {
      const cached = finished.get(key);
      if (cached) {
        if (cached.fingerprint !== fingerprint) throw consumed();
        return { kind: 'replay', answer: cached.answer };
      }
      for (;;) {
        const row = await loadReceipt(prepared, key);
        if (!row) return null;
        if (row.fingerprint !== fingerprint) throw consumed();
        if (row.state === 'done') {
          const answer = toAnswer(row);
          finished.set(key, { fingerprint: row.fingerprint, answer });
          return { kind: 'replay', answer };
        }
        if (!row.lease_active) {
          const taken = await leases.takeOver(row.receipt_key, key);
          if (!taken) continue;
          if (taken.payment_id == null) return { kind: 'claimed', paymentId: null };
          const payment = await paymentTxAndPayer(em(), taken.payment_id);
          return { kind: 'claimed', paymentId: Number(taken.payment_id), payment };
        }
        await waitFor(row.receipt_key);
      }
    },

    async complete(key, answer) {
      // The first answer of the current holder is the one answer: a run that lost its lease (or
      // a second completion) stores nothing and learns what was stored instead.
      const stored = await storeAnswer(prepared, key, answer, leases.holder);
      const primary = stored?.receipt_key ?? key;
      leases.unhold(key);
      leases.unhold(primary);
      if (stored) {
        finished.set(key, { fingerprint: stored.fingerprint, answer });
        wake(primary);
        return { stored: true };
      }
      const row = await loadReceipt(prepared, key);
      opts.log?.warn('answer not stored: this instance no longer holds the receipt', { receipt: key, state: row?.state });
      if (row?.state !== 'done') return { stored: false, answer: null };
      const existing = toAnswer(row);
      finished.set(key, { fingerprint: row.fingerprint, answer: existing });
      return { stored: false, answer: existing };
    },

    async exhausted(key) {
      const fallback = exhaustedAnswer(maxRuns);
      const row = await finishExhausted(em(), key, fallback);
      return row ? toAnswer(row) : fallback;
    },
  };
}
