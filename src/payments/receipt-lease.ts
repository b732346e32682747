/**
 * The exactly-once half of the receipt gate (receipt-gate.ts composes it with the stored
 * answers of stored-answers.ts): claiming a receipt (consume with its ledger row, or reserve it
 * while the service settles it), the lease that holds it, the heartbeat that renews the leases
 * this instance holds, taking over a receipt whose holder died, counting run attempts, and
 * giving a lease back. The SQL and the money rules are in receipt-store.ts.
 *
 * Leases are short and renewed by one heartbeat while this instance holds the receipt, so a
 * dead instance's work is taken over within one lease, while a live run of any length is not.
 * Each row names its holder (a random id per gate, i.e. per process): only the holder renews,
 * stores the answer, gives the lease back or releases.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createPreparedSql } from './prepared-sql.ts';
import { randomUUID } from 'node:crypto';
import { sqlOf, type Database } from '../db/orm.ts';
import type { Logger } from '../log.ts';
import {
  consumeWithLedger,
  countRun,
  deleteReservation,
  giveLeaseBack,
  heldAmount,
  insertAliases,
  insertLedger,
  insertReservation,
  lockPayerHolds,
  lockReceiptPayment,
  renewLeases,
  setReceiptPayment,
  takeOverReceipt,
  type LedgerEntry,
  type StoredAnswer,
} from './receipt-store.ts';
import type { ReceiptRow } from '../db/rows.ts';

/** Money a reservation holds while it is settled, counted against the payer's balance. */
export interface BalanceHold {
  payer: string;
  amount: bigint;
  /** The payer's balance read from the chain; in-flight holds of the same payer plus this one must fit in it. */
  balance: bigint;
}

export interface ClaimScope {
  run<T>(fn: () => Promise<T>): Promise<T>;
  letGo(): void;
}

export interface ReceiptLeaseOptions {
  /** How long a lease lasts without a heartbeat: the time a dead instance's work waits to be taken over. */
  leaseMs: number;
  /** Heartbeat period (default leaseMs / 3: two beats may be missed before the lease runs out). */
  heartbeatMs?: number;
  /**
   * A receipt is renewed at most this long (default 1 hour): a hold that some unexpected path
   * never ended is not kept alive forever by a live process.
   */
  maxHoldMs?: number;
  /** Run attempts one receipt buys (default 3). */
  maxRuns?: number;
  log?: Logger;
}

export interface ReceiptLeases {
  /** This instance's holder id (lease_holder of the rows it holds). */
  readonly holder: string;
  /** Stops renewing a receipt (and the receipts claimed through it as an alias). */
  unhold(key: string): void;
  /** Takes a receipt whose lease ran out over and holds it (`via`: the key it was presented by). */
  takeOver(key: string, via: string): Promise<ReceiptRow | null>;
  /** Consumes a verified receipt with its ledger row and holds it; null: the receipt exists. */
  consume(key: string, network: string, fingerprint: string, ledger: LedgerEntry): Promise<number | null>;
  /** Reserves a receipt the service still has to settle and holds it; false: the receipt exists. */
  reserve(key: string, network: string, fingerprint: string): Promise<boolean>;
  /** reserve under a payer-wide lock: refused (`over`) when the payer's live holds plus this one exceed its balance. */
  reserveWithin(key: string, network: string, fingerprint: string, hold: BalanceHold): Promise<{ over: bigint } | { inserted: boolean }>;
  alias(key: string, aliasKey: string): Promise<void>;
  /** Drops this holder's reservation (nothing was settled) and stops renewing it. */
  release(key: string): Promise<void>;
  /** The ledger row of a settled reservation and its aliases, once (a holder that took it over may have written it). */
  settle(key: string, ledger: LedgerEntry, aliases: string[]): Promise<number>;
  /** Counts a run attempt; false when every attempt is spent. */
  countRun(key: string): Promise<boolean>;
  /** Gives the lease back (keeping `failure` for when the attempts run out); returns the primary key it held, or null. */
  giveBack(key: string, failure?: StoredAnswer): Promise<string | null>;
  claims(): ClaimScope;
  close(): void;
}

/** The claim scope of the request being served (AsyncLocalStorage: the rails need not pass it on). */
const claimScope = new AsyncLocalStorage<Set<string>>();

export function createReceiptLeases(orm: Database, opts: ReceiptLeaseOptions): ReceiptLeases {
  const maxRuns = opts.maxRuns ?? 3;
  const heartbeatMs = opts.heartbeatMs ?? Math.max(10, Math.floor(opts.leaseMs / 3));
  const maxHoldMs = opts.maxHoldMs ?? 3_600_000;
  const holder = randomUUID();
  const lease = { holder, leaseMs: opts.leaseMs };
  const em = () => sqlOf(orm);
  // The consume of every paid call: a prepared statement on PostgreSQL (prepared-sql.ts).
  const prepared = createPreparedSql(orm);

  // Receipts this instance holds (primary key -> when the hold began and the key it was
  // claimed by, which may be an alias), renewed by one timer with one statement per beat; the
  // timer runs only while something is held.
  const held = new Map<string, { since: number; via: string; owner: Set<string> | undefined }>();
  let beat: NodeJS.Timeout | null = null;
  let closed = false;
  const renew = async () => {
    const now = Date.now();
    for (const [key, { since }] of held) {
      if (now - since > maxHoldMs) {
        held.delete(key);
        opts.log?.warn('receipt held past its limit: no longer renewed', { receipt: key });
      }
    }
    if (!held.size) return;
    const keys = [...held.keys()];
    const renewed = new Set(await renewLeases(em(), keys, lease));
    for (const key of keys) {
      if (renewed.has(key) || !held.has(key)) continue;
      // Answered meanwhile (the hold ends with it) or taken over after a stall past the lease.
      held.delete(key);
      opts.log?.warn('receipt lease lost: not renewed any more', { receipt: key });
    }
  };
  const hold = (key: string, via = key) => {
    if (closed) return;
    const owner = claimScope.getStore();
    owner?.add(key);
    held.set(key, { since: Date.now(), via, owner });
    if (beat) return;
    beat = setInterval(() => {
      if (!held.size) {
        clearInterval(beat!);
        beat = null;
        return;
      }
      renew().catch((err: unknown) => opts.log?.error('receipt lease heartbeat failed', { err }));
    }, heartbeatMs);
    // A held lease never keeps the process alive: shutdown waits for requests, not for timers.
    beat.unref();
  };
  const unhold = (key: string) => {
    held.delete(key);
    for (const [primary, h] of held) if (h.via === key) held.delete(primary);
  };

  return {
    holder,
    unhold,

    async takeOver(key, via) {
      const row = await takeOverReceipt(em(), key, lease);
      if (row) hold(row.receipt_key, via);
      return row;
    },

    async consume(key, network, fingerprint, ledger) {
      const id = await consumeWithLedger(prepared, { key, network, fingerprint }, lease, ledger);
      if (id !== null) hold(key);
      return id;
    },

    async reserve(key, network, fingerprint) {
      const inserted = await insertReservation(em(), { key, network, fingerprint }, lease);
      if (inserted) hold(key);
      return inserted;
    },

    async reserveWithin(key, network, fingerprint, balanceHold) {
      const r = await em().transactional(async (tx): Promise<{ over: bigint } | { inserted: boolean }> => {
        await lockPayerHolds(tx, network, balanceHold.payer);
        const inFlight = await heldAmount(tx, network, balanceHold.payer, key);
        if (inFlight + balanceHold.amount > balanceHold.balance) return { over: inFlight };
        return { inserted: await insertReservation(tx, { key, network, fingerprint }, lease, balanceHold) };
      });
      if ('inserted' in r && r.inserted) hold(key);
      return r;
    },

    async alias(key, aliasKey) {
      await insertAliases(em(), key, [aliasKey]);
    },

    async release(key) {
      unhold(key);
      await deleteReservation(em(), key, holder);
    },

    async settle(key, ledger, aliases) {
      return em().transactional(async (tx) => {
        const existing = await lockReceiptPayment(tx, key);
        // Settled already by a holder that took this reservation over (after this one stalled
        // past its lease): the chain moved the money once, so the ledger gets one row.
        if (existing != null) return existing;
        await insertAliases(tx, key, aliases);
        const id = await insertLedger(tx, ledger);
        await setReceiptPayment(tx, key, id);
        return id;
      });
    },

    countRun: (key) => countRun(em(), key, maxRuns),

    async giveBack(key, failure) {
      const primary = await giveLeaseBack(em(), key, holder, failure);
      unhold(key);
      if (primary !== null) unhold(primary);
      return primary;
    },

    claims() {
      const mine = new Set<string>();
      return {
        run: (fn) => claimScope.run(mine, fn),
        letGo() {
          // Only holds this request still owns: the same receipt claimed since by another
          // request of this process keeps its heartbeat.
          for (const key of mine) if (held.get(key)?.owner === mine) held.delete(key);
          mine.clear();
        },
      };
    },

    close() {
      closed = true;
      held.clear();
      if (beat) clearInterval(beat);
      beat = null;
    },
  };
}
