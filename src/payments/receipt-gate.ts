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
 */
import { net } from './take-rate.ts';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { sqlOf, type Database } from '../db/orm.ts';
import type { Payment } from '../db/entities.ts';
import { AppError } from '../http/app-error.ts';
import { createLru } from '../lib/lru.ts';
import type { Logger } from '../log.ts';

/** What a payment row records; fee and net are derived from amount and take rate. */
export type LedgerEntry = Pick<Payment, 'network' | 'tx' | 'payer' | 'amount' | 'quotedAmount' | 'endpointPath' | 'sellerId' | 'endpointId' | 'takeBps'> & Partial<Pick<Payment, 'buyerWallet'>>;

export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

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

/** Money a reservation holds while it is settled, counted against the payer's balance. */
export interface BalanceHold {
  payer: string;
  amount: bigint;
  /** The payer's balance read from the chain; in-flight holds of the same payer plus this one must fit in it. */
  balance: bigint;
}

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

export interface ClaimScope {
  run<T>(fn: () => Promise<T>): Promise<T>;
  letGo(): void;
}

/** The claim scope of the request being served (AsyncLocalStorage: the rails need not pass it on). */
const claimScope = new AsyncLocalStorage<Set<string>>();

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

/** A key presented may be an alias (a settlement tx hash): runs are recorded on the receipt it names. */
const PRIMARY_KEY = `coalesce((select alias_of from consumed_receipt where receipt_key = ?), ?)`;


/** A ledger row's columns and their values (money as decimal text: numeric(78,0) never meets a float). */
const LEDGER_COLUMNS = 'network, tx, payer, amount, quoted_amount, endpoint_path, seller_id, endpoint_id, take_bps, fee, net, buyer_wallet, delivery';
const ledgerValues = (ledger: LedgerEntry) => {
  const netAmount = net(ledger.amount, ledger.takeBps);
  // A seller's row waits for its upstream's outcome ('pending' earns nothing until marked
  // delivered); a built-in earns for the service alone, so there is no seller to hold it from.
  const delivery = ledger.sellerId === null ? 'delivered' : 'pending';
  return [ledger.network, ledger.tx, ledger.payer, ledger.amount.toString(), ledger.quotedAmount.toString(), ledger.endpointPath, ledger.sellerId, ledger.endpointId, ledger.takeBps, (ledger.amount - netAmount).toString(), netAmount.toString(), ledger.buyerWallet ?? null, delivery];
};

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

export function createReceiptGate(orm: Database, opts: ReceiptGateOptions): ReceiptGate {
  const waitPollMs = opts.waitPollMs ?? 100;
  const maxRuns = opts.maxRuns ?? 3;
  const heartbeatMs = opts.heartbeatMs ?? Math.max(10, Math.floor(opts.leaseMs / 3));
  const maxHoldMs = opts.maxHoldMs ?? 3_600_000;
  const holder = randomUUID();
  const em = () => sqlOf(orm);

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
    const rows = await em().execute<{ receipt_key: string }[]>(
      `update consumed_receipt set lease_until = now() + (? * interval '1 millisecond')
        where receipt_key in (select jsonb_array_elements_text(?::jsonb)) and state = 'running' and lease_holder = ?
        returning receipt_key`,
      [opts.leaseMs, JSON.stringify(keys), holder],
    );
    const renewed = new Set(rows.map((r) => r.receipt_key));
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

  const ROW = 'r.receipt_key, r.fingerprint, r.alias_of, r.state, r.payment_id, r.response_status, r.response_headers, r.response_body';
  interface ReceiptRow {
    receipt_key: string;
    fingerprint: string;
    alias_of: string | null;
    state: string;
    payment_id: string | null;
    lease_active: boolean;
    response_status: number | null;
    response_headers: Record<string, string> | null;
    response_body: Buffer | Uint8Array | null;
  }

  const load = async (key: string): Promise<ReceiptRow | null> => {
    const rows = await em().execute<ReceiptRow[]>(
      `select ${ROW}, r.lease_until > now() as lease_active
         from consumed_receipt a join consumed_receipt r on r.receipt_key = coalesce(a.alias_of, a.receipt_key)
        where a.receipt_key = ?`,
      [key],
    );
    return rows[0] ?? null;
  };

  const takeOver = async (key: string, via: string): Promise<ReceiptRow | null> => {
    const rows = await em().execute<ReceiptRow[]>(
      `update consumed_receipt r set lease_until = now() + (? * interval '1 millisecond'), lease_holder = ?
        where receipt_key = ? and state = 'running' and lease_until <= now()
        returning ${ROW}, true as lease_active`,
      [opts.leaseMs, holder, key],
    );
    if (rows[0]) hold(rows[0].receipt_key, via);
    return rows[0] ?? null;
  };

  const toAnswer = (row: Pick<ReceiptRow, 'response_status' | 'response_headers' | 'response_body'>): StoredAnswer => ({
    status: row.response_status ?? 500,
    headers: row.response_headers ?? {},
    body: Buffer.from(row.response_body ?? new Uint8Array()),
  });

  /** Resolves a receipt that exists: replay, 409, wait for the running call, or take a crashed one over. */
  const resolveExisting = async (key: string, fingerprint: string): Promise<GateOutcome | null> => {
    const cached = finished.get(key);
    if (cached) {
      if (cached.fingerprint !== fingerprint) throw consumed();
      return { kind: 'replay', answer: cached.answer };
    }
    for (;;) {
      const row = await load(key);
      if (!row) return null;
      if (row.fingerprint !== fingerprint) throw consumed();
      if (row.state === 'done') {
        const answer = toAnswer(row);
        finished.set(key, { fingerprint: row.fingerprint, answer });
        return { kind: 'replay', answer };
      }
      if (!row.lease_active) {
        const taken = await takeOver(row.receipt_key, key);
        if (!taken) continue;
        if (taken.payment_id == null) return { kind: 'claimed', paymentId: null };
        const [payment] = await em().execute<{ tx: string; payer: string }[]>('select tx, payer from payment where id = ?', [taken.payment_id]);
        return { kind: 'claimed', paymentId: Number(taken.payment_id), payment };
      }
      await waitFor(row.receipt_key);
    }
  };

  const insertLedger = async (tx: SqlEntityManager, ledger: LedgerEntry): Promise<number> => {
    const rows = await tx.execute<{ id: string }[]>(`insert into payment (${LEDGER_COLUMNS}) values (${LEDGER_COLUMNS.split(',').map(() => '?').join(', ')}) returning id`, ledgerValues(ledger));
    return Number(rows[0].id);
  };

  /**
   * Second names of a receipt. A name already taken by this receipt (recorded before broadcast)
   * is fine; taken by another receipt cannot happen for a transaction the service signed itself,
   * and the tx-hash rail refuses transfers made through an authorization, so it is not an error
   * that could strand a settled payment.
   */
  const insertAliases = async (tx: SqlEntityManager, key: string, aliases: string[]) => {
    for (const alias of aliases) {
      await tx.execute(
        `insert into consumed_receipt (receipt_key, network, fingerprint, alias_of, state, lease_until)
         select ?, network, fingerprint, receipt_key, 'alias', now() from consumed_receipt where receipt_key = ?
         on conflict do nothing`,
        [alias, key],
      );
    }
  };

  const insertReceipt = (tx: SqlEntityManager, key: string, network: string, fingerprint: string, balanceHold?: BalanceHold) =>
    tx.execute<{ receipt_key: string }[]>(
      `insert into consumed_receipt (receipt_key, network, fingerprint, state, lease_until, lease_holder, payer, amount)
       values (?, ?, ?, 'running', now() + (? * interval '1 millisecond'), ?, ?, ?) on conflict do nothing returning receipt_key`,
      [key, network, fingerprint, opts.leaseMs, holder, balanceHold?.payer.toLowerCase() ?? null, balanceHold?.amount.toString() ?? null],
    );

  /** Reserves under a payer-wide lock: the sum of live holds (this one included) must fit in the balance. */
  const reserveWithHold = (key: string, network: string, fingerprint: string, balanceHold: BalanceHold) =>
    em().transactional(async (tx) => {
      const payer = balanceHold.payer.toLowerCase();
      await tx.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`hold:${network}:${payer}`]);
      const [{ held }] = await tx.execute<{ held: string }[]>(
        `select coalesce(sum(amount), 0)::text as held from consumed_receipt
          where payer = ? and network = ? and state = 'running' and payment_id is null and lease_until > now() and receipt_key <> ?`,
        [payer, network, key],
      );
      if (BigInt(held) + balanceHold.amount > balanceHold.balance) return { over: BigInt(held) };
      return { inserted: (await insertReceipt(tx, key, network, fingerprint, balanceHold)).length > 0 };
    });

  return {
    holder,
    check: resolveExisting,

    async consume(key, network, fingerprint, ledger) {
      // One statement, so one round trip and atomic without a transaction: the receipt row takes
      // the ledger row's id from its sequence, and the ledger row is written only when the
      // receipt row was (a receipt consumed before inserts nothing; a failing ledger insert
      // leaves no receipt row either). The run that follows at once is counted here too.
      const rows = await em().execute<{ id: string }[]>(
        `with r as (
           insert into consumed_receipt (receipt_key, network, fingerprint, state, lease_until, lease_holder, payment_id, attempts)
           values (?, ?, ?, 'running', now() + (? * interval '1 millisecond'), ?, nextval(pg_get_serial_sequence('payment', 'id')), 1)
           on conflict do nothing returning payment_id)
         insert into payment (id, ${LEDGER_COLUMNS})
         select r.payment_id, ${LEDGER_COLUMNS.split(',').map(() => '?').join(', ')} from r returning id`,
        [key, network, fingerprint, opts.leaseMs, holder, ...ledgerValues(ledger)],
      );
      if (rows.length) {
        hold(key);
        return { kind: 'claimed', paymentId: Number(rows[0].id), runCounted: true };
      }
      return (await resolveExisting(key, fingerprint)) ?? (await this.consume(key, network, fingerprint, ledger));
    },

    async reserve(key, network, fingerprint) {
      if ((await insertReceipt(em(), key, network, fingerprint)).length) {
        hold(key);
        return { kind: 'claimed', paymentId: null };
      }
      return (await resolveExisting(key, fingerprint)) ?? (await this.reserve(key, network, fingerprint));
    },

    async reserveWithin(key, network, fingerprint, balanceHold) {
      const r = await reserveWithHold(key, network, fingerprint, balanceHold);
      if ('over' in r) return { kind: 'over_balance', inFlight: r.over ?? 0n };
      if (r.inserted) {
        hold(key);
        return { kind: 'claimed', paymentId: null };
      }
      return (await resolveExisting(key, fingerprint)) ?? (await this.reserveWithin(key, network, fingerprint, balanceHold));
    },

    async alias(key, aliasKey) {
      await insertAliases(em(), key, [aliasKey]);
    },

    async release(key) {
      unhold(key);
      // Only the holder's reservation: one taken over meanwhile is being settled by its new holder.
      const gone = await em().execute(`delete from consumed_receipt where receipt_key = ? and state = 'running' and payment_id is null and lease_holder = ? returning receipt_key`, [key, holder]);
      if (gone.length) await em().execute(`delete from consumed_receipt where alias_of = ? and state = 'alias'`, [key]);
      wake(key);
    },

    async settle(key, ledger, aliases) {
      return em().transactional(async (tx) => {
        const [row] = await tx.execute<{ payment_id: string | null }[]>('select payment_id from consumed_receipt where receipt_key = ? for update', [key]);
        // Settled already by a holder that took this reservation over (after this one stalled
        // past its lease): the chain moved the money once, so the ledger gets one row.
        if (row?.payment_id != null) return Number(row.payment_id);
        await insertAliases(tx, key, aliases);
        const id = await insertLedger(tx, ledger);
        await tx.execute('update consumed_receipt set payment_id = ?, payer = null, amount = null where receipt_key = ?', [id, key]);
        return id;
      });
    },

    async complete(key, answer) {
      // The first answer of the current holder is the one answer: a run that lost its lease (or
      // a second completion) stores nothing and learns what was stored instead.
      const rows = await em().execute<{ receipt_key: string; fingerprint: string }[]>(
        `update consumed_receipt set state = 'done', response_status = ?, response_headers = ?, response_body = ?, completed_at = now(), payer = null, amount = null
          where receipt_key = ${PRIMARY_KEY} and state = 'running' and lease_holder = ? returning receipt_key, fingerprint`,
        [answer.status, JSON.stringify(answer.headers), answer.body, key, key, holder],
      );
      const primary = rows[0]?.receipt_key ?? key;
      unhold(key);
      unhold(primary);
      if (rows[0]) {
        finished.set(key, { fingerprint: rows[0].fingerprint, answer });
        wake(primary);
        return { stored: true };
      }
      const row = await load(key);
      opts.log?.warn('answer not stored: this instance no longer holds the receipt', { receipt: key, state: row?.state });
      if (row?.state !== 'done') return { stored: false, answer: null };
      const existing = toAnswer(row);
      finished.set(key, { fingerprint: row.fingerprint, answer: existing });
      return { stored: false, answer: existing };
    },

    async beginRun(key) {
      const started = await em().execute<{ attempts: number }[]>(
        `update consumed_receipt set attempts = attempts + 1 where receipt_key = ${PRIMARY_KEY} and attempts < ? returning attempts`,
        [key, key, maxRuns],
      );
      if (started.length) return { kind: 'run' };
      unhold(key);
      // Every attempt is spent: the last failure (or, when each run crashed, a generic one) is final.
      const fallback = exhaustedAnswer(maxRuns);
      const [row] = await em().execute<Pick<ReceiptRow, 'response_status' | 'response_headers' | 'response_body'>[]>(
        `update consumed_receipt set state = 'done', completed_at = now(),
           response_status = coalesce(response_status, ?), response_headers = coalesce(response_headers, ?), response_body = coalesce(response_body, ?)
          where receipt_key = ${PRIMARY_KEY} returning response_status, response_headers, response_body`,
        [fallback.status, JSON.stringify(fallback.headers), fallback.body, key, key],
      );
      return { kind: 'replay', answer: row ? toAnswer(row) : fallback };
    },

    async abandon(key, failure) {
      // The holder is cleared too: a heartbeat already on its way cannot renew a lease given back.
      const rows = !failure
        ? await em().execute<{ receipt_key: string }[]>(
            `update consumed_receipt set lease_until = now(), lease_holder = null where receipt_key = ${PRIMARY_KEY} and state = 'running' and lease_holder = ? returning receipt_key`,
            [key, key, holder],
          )
        : await em().execute<{ receipt_key: string }[]>(
            `update consumed_receipt set lease_until = now(), lease_holder = null, response_status = ?, response_headers = ?, response_body = ?
              where receipt_key = ${PRIMARY_KEY} and state = 'running' and lease_holder = ? returning receipt_key`,
            [failure.status, JSON.stringify(failure.headers), failure.body, key, key, holder],
          );
      unhold(key);
      if (rows[0]) {
        unhold(rows[0].receipt_key);
        // A retry waiting here may take the run over now.
        wake(rows[0].receipt_key);
      }
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
