/**
 * Exactly-once execution. A receipt key is inserted into consumed_receipt in the same
 * database transaction as its ledger row; the primary key makes the insert the single
 * point where concurrent retries (on any number of instances) are decided:
 *  - the winner runs the call and stores the answer;
 *  - an identical retry waits for that answer and replays it;
 *  - a different request with the same receipt gets 409 tx_already_consumed;
 *  - a run whose lease ran out (the instance crashed) can be taken over by a retry;
 *  - one receipt buys at most `maxRuns` run attempts: after them the last failure is final.
 *
 * Leases are short (RUN_LEASE_SECONDS, default 5 s) and renewed by a heartbeat while this
 * instance holds the receipt (settling it, running the call, streaming its answer), so a dead
 * instance's work is taken over within one lease, while a live run of any length is not. Each
 * row names its holder (a random id per gate, i.e. per process): only the holder renews, stores
 * the answer, gives the lease back or releases, so a holder that stalled past its lease and was
 * taken over cannot overwrite the answer of the run that replaced it (one answer is stored).
 *
 * Two parts by concern, composed here: receipt-lease.ts (the exactly-once reservation: claim,
 * lease, heartbeat, consume with its ledger row) and stored-answers.ts (store, replay, wait).
 * Their SQL and the money rules are in receipt-store.ts; the take rate in take-rate.ts.
 */
import type { Database } from '../db/orm.ts';
import type { Logger } from '../log.ts';
import { createReceiptLeases, type BalanceHold, type ClaimScope } from './receipt-lease.ts';
import type { LedgerEntry, StoredAnswer } from './receipt-store.ts';
import { createStoredAnswers, type GateOutcome } from './stored-answers.ts';

export type { BalanceHold, ClaimScope } from './receipt-lease.ts';
export type { LedgerEntry, StoredAnswer } from './receipt-store.ts';
export type { GateOutcome } from './stored-answers.ts';

export interface ReceiptGate {
  /**
   * Looks a receipt up before any chain work: a replay, a 409, a wait for a running
   * call, or null when the receipt was never consumed (or its run crashed and may be retried).
   */
  check(key: string, fingerprint: string): Promise<GateOutcome | null>;
  /** Consumes a verified receipt and writes its ledger row in one transaction. */
  consume(key: string, network: string, fingerprint: string, ledger: LedgerEntry): Promise<GateOutcome>;
  /** Holds a receipt the service still has to settle (authorization, co-signed transfer). */
  reserve(key: string, network: string, fingerprint: string): Promise<GateOutcome>;
  /** reserve, refused (`over_balance`) when the payer's holds in flight plus this one would exceed its balance. */
  reserveWithin(key: string, network: string, fingerprint: string, hold: BalanceHold): Promise<GateOutcome | { kind: 'over_balance'; inFlight: bigint }>;
  /** Records another name of a held receipt (a transaction the service is about to broadcast), before anyone can see it. */
  alias(key: string, aliasKey: string): Promise<void>;
  /** Settlement failed before any money moved: the reservation is dropped so the buyer may try again. */
  release(key: string): Promise<void>;
  /** Settlement done: ledger row for a reserved receipt, plus the keys it is also known by. */
  settle(key: string, ledger: LedgerEntry, aliases: string[]): Promise<number>;
  /**
   * The final answer (a result, a final failure, or a final refusal): every retry replays it.
   * Stored only while this instance holds the receipt and nothing is stored yet; otherwise the
   * answer another run stored (if any) is returned, so the caller can pass that one on instead.
   */
  complete(key: string, answer: StoredAnswer): Promise<{ stored: true } | { stored: false; answer: StoredAnswer | null }>;
  /**
   * Before a paid run starts: counts the attempt. After `maxRuns` attempts the last stored
   * failure becomes the final answer and is replayed instead of running again.
   */
  beginRun(key: string): Promise<{ kind: 'run' } | { kind: 'replay'; answer: StoredAnswer }>;
  /**
   * Gives the lease back at once so the next identical retry may take over: after a run that
   * failed in a way worth retrying (its failure is stored, in case the attempts run out), or a
   * settlement that is still unconfirmed (no failure).
   */
  abandon(key: string, failure?: StoredAnswer): Promise<void>;
  /**
   * The receipts one request claims inside `run` (through any rail): `letGo` stops renewing
   * those it still holds, without touching their rows, for a request that ends in an unexpected
   * error or a refusal. Their leases then run out as if this instance had died.
   */
  claims(): ClaimScope;
  /** This instance's holder id (lease_holder of the rows it holds). */
  readonly holder: string;
  /** Stops the heartbeat (shutdown); held leases then run out on their own. */
  close(): void;
}

export interface ReceiptGateOptions {
  /** How long a lease lasts without a heartbeat: the time a dead instance's work waits to be taken over. */
  leaseMs: number;
  /** Heartbeat period (default leaseMs / 3: two beats may be missed before the lease runs out). */
  heartbeatMs?: number;
  /**
   * A receipt is renewed at most this long (default 1 hour): a hold that some unexpected path
   * never ended is not kept alive forever by a live process.
   */
  maxHoldMs?: number;
  maxRuns?: number;
  /** A waiting retry looks at the row this often (another instance's answer); this instance's own answers wake it at once. */
  waitPollMs?: number;
  cacheSize?: number;
  log?: Logger;
}

export function createReceiptGate(orm: Database, opts: ReceiptGateOptions): ReceiptGate {
  const leases = createReceiptLeases(orm, opts);
  const answers = createStoredAnswers(orm, leases, opts);

  return {
    holder: leases.holder,
    check: answers.check,

    async consume(key, network, fingerprint, ledger) {
      const paymentId = await leases.consume(key, network, fingerprint, ledger);
      if (paymentId !== null) return { kind: 'claimed', paymentId, runCounted: true };
      return (await answers.check(key, fingerprint)) ?? (await this.consume(key, network, fingerprint, ledger));
    },

    async reserve(key, network, fingerprint) {
      if (await leases.reserve(key, network, fingerprint)) return { kind: 'claimed', paymentId: null };
      return (await answers.check(key, fingerprint)) ?? (await this.reserve(key, network, fingerprint));
    },

    async reserveWithin(key, network, fingerprint, balanceHold) {
      const r = await leases.reserveWithin(key, network, fingerprint, balanceHold);
      if ('over' in r) return { kind: 'over_balance', inFlight: r.over };
      if (r.inserted) return { kind: 'claimed', paymentId: null };
      return (await answers.check(key, fingerprint)) ?? (await this.reserveWithin(key, network, fingerprint, balanceHold));
    },

    alias: leases.alias,

    async release(key) {
      await leases.release(key);
      answers.wake(key);
    },

    settle: leases.settle,
    complete: answers.complete,

    async beginRun(key) {
      if (await leases.countRun(key)) return { kind: 'run' };
      leases.unhold(key);
      // Every attempt is spent: the last failure (or, when each run crashed, a generic one) is final.
      return { kind: 'replay', answer: await answers.exhausted(key) };
    },

    async abandon(key, failure) {
      const primary = await leases.giveBack(key, failure);
      // A retry waiting here may take the run over now.
      if (primary !== null) answers.wake(primary);
    },

    claims: leases.claims,
    close: leases.close,
  };
}
