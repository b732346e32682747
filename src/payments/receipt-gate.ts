/**
 * Exactly-once execution. A receipt key is inserted into consumed_receipt in the same
 * database transaction as its ledger row; the primary key makes the insert the single
 * point where concurrent retries (on any number of instances) are decided:
 *  - the winner runs the call and stores the answer;
 *  - an identical retry waits for that answer and replays it;
 *  - a different request with the same receipt gets 409 tx_already_consumed;
 *  - a run whose lease ran out (the instance crashed) can be taken over by a retry;
 *  - one receipt buys at most `maxRuns` run attempts: after them the last failure is final.
 */
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { Database } from '../db/orm.ts';
import type { Payment } from '../db/entities.ts';
import { AppError } from '../http/app-error.ts';
import { createLru } from '../lib/lru.ts';

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
  /** The final answer (a result, a final failure, or a final refusal): every retry replays it. */
  complete(key: string, answer: StoredAnswer): Promise<void>;
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
}

/** A key presented may be an alias (a settlement tx hash): runs are recorded on the receipt it names. */
const PRIMARY_KEY = `coalesce((select alias_of from consumed_receipt where receipt_key = ?), ?)`;

export const net = (amount: bigint, takeBps: number) => (amount * BigInt(10_000 - takeBps)) / 10_000n;

/** A ledger row's columns and their values (money as decimal text: numeric(78,0) never meets a float). */
const LEDGER_COLUMNS = 'network, tx, payer, amount, quoted_amount, endpoint_path, seller_id, endpoint_id, take_bps, fee, net, buyer_wallet';
const ledgerValues = (ledger: LedgerEntry) => {
  const netAmount = net(ledger.amount, ledger.takeBps);
  return [ledger.network, ledger.tx, ledger.payer, ledger.amount.toString(), ledger.quotedAmount.toString(), ledger.endpointPath, ledger.sellerId, ledger.endpointId, ledger.takeBps, (ledger.amount - netAmount).toString(), netAmount.toString(), ledger.buyerWallet ?? null];
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

export function createReceiptGate(orm: Database, opts: { leaseMs: number; maxRuns?: number; waitPollMs?: number; cacheSize?: number }): ReceiptGate {
  const waitPollMs = opts.waitPollMs ?? 100;
  const maxRuns = opts.maxRuns ?? 3;
  const em = () => orm.em.fork() as unknown as SqlEntityManager;
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

  const takeOver = async (key: string): Promise<ReceiptRow | null> => {
    const rows = await em().execute<ReceiptRow[]>(
      `update consumed_receipt r set lease_until = now() + (? * interval '1 millisecond')
        where receipt_key = ? and state = 'running' and lease_until <= now()
        returning ${ROW}, true as lease_active`,
      [opts.leaseMs, key],
    );
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
        const taken = await takeOver(row.receipt_key);
        if (!taken) continue;
        if (taken.payment_id == null) return { kind: 'claimed', paymentId: null };
        const [payment] = await em().execute<{ tx: string; payer: string }[]>('select tx, payer from payment where id = ?', [taken.payment_id]);
        return { kind: 'claimed', paymentId: Number(taken.payment_id), payment };
      }
      await new Promise((r) => setTimeout(r, waitPollMs));
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

  const insertReceipt = (tx: SqlEntityManager, key: string, network: string, fingerprint: string, hold?: BalanceHold) =>
    tx.execute<{ receipt_key: string }[]>(
      `insert into consumed_receipt (receipt_key, network, fingerprint, state, lease_until, payer, amount)
       values (?, ?, ?, 'running', now() + (? * interval '1 millisecond'), ?, ?) on conflict do nothing returning receipt_key`,
      [key, network, fingerprint, opts.leaseMs, hold?.payer.toLowerCase() ?? null, hold?.amount.toString() ?? null],
    );

  /** Reserves under a payer-wide lock: the sum of live holds (this one included) must fit in the balance. */
  const reserveWithHold = (key: string, network: string, fingerprint: string, hold: BalanceHold) =>
    em().transactional(async (tx) => {
      const payer = hold.payer.toLowerCase();
      await tx.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`hold:${network}:${payer}`]);
      const [{ held }] = await tx.execute<{ held: string }[]>(
        `select coalesce(sum(amount), 0)::text as held from consumed_receipt
          where payer = ? and network = ? and state = 'running' and payment_id is null and lease_until > now() and receipt_key <> ?`,
        [payer, network, key],
      );
      if (BigInt(held) + hold.amount > hold.balance) return { over: BigInt(held) };
      return { inserted: (await insertReceipt(tx, key, network, fingerprint, hold)).length > 0 };
    });

  return {
    check: resolveExisting,

    async consume(key, network, fingerprint, ledger) {
      // One statement, so one round trip and atomic without a transaction: the receipt row takes
      // the ledger row's id from its sequence, and the ledger row is written only when the
      // receipt row was (a receipt consumed before inserts nothing; a failing ledger insert
      // leaves no receipt row either). The run that follows at once is counted here too.
      const rows = await em().execute<{ id: string }[]>(
        `with r as (
           insert into consumed_receipt (receipt_key, network, fingerprint, state, lease_until, payment_id, attempts)
           values (?, ?, ?, 'running', now() + (? * interval '1 millisecond'), nextval(pg_get_serial_sequence('payment', 'id')), 1)
           on conflict do nothing returning payment_id)
         insert into payment (id, ${LEDGER_COLUMNS})
         select r.payment_id, ${LEDGER_COLUMNS.split(',').map(() => '?').join(', ')} from r returning id`,
        [key, network, fingerprint, opts.leaseMs, ...ledgerValues(ledger)],
      );
      if (rows.length) return { kind: 'claimed', paymentId: Number(rows[0].id), runCounted: true };
      return (await resolveExisting(key, fingerprint)) ?? (await this.consume(key, network, fingerprint, ledger));
    },

    async reserve(key, network, fingerprint) {
      if ((await insertReceipt(em(), key, network, fingerprint)).length) return { kind: 'claimed', paymentId: null };
      return (await resolveExisting(key, fingerprint)) ?? (await this.reserve(key, network, fingerprint));
    },

    async reserveWithin(key, network, fingerprint, hold) {
      const r = await reserveWithHold(key, network, fingerprint, hold);
      if ('over' in r) return { kind: 'over_balance', inFlight: r.over ?? 0n };
      if (r.inserted) return { kind: 'claimed', paymentId: null };
      return (await resolveExisting(key, fingerprint)) ?? (await this.reserveWithin(key, network, fingerprint, hold));
    },

    async alias(key, aliasKey) {
      await insertAliases(em(), key, [aliasKey]);
    },

    async release(key) {
      await em().execute(`delete from consumed_receipt where alias_of = ? and state = 'alias'`, [key]);
      await em().execute(`delete from consumed_receipt where receipt_key = ? and state = 'running' and payment_id is null`, [key]);
    },

    async settle(key, ledger, aliases) {
      return em().transactional(async (tx) => {
        await tx.execute('select 1 from consumed_receipt where receipt_key = ? for update', [key]);
        await insertAliases(tx, key, aliases);
        const id = await insertLedger(tx, ledger);
        await tx.execute('update consumed_receipt set payment_id = ?, payer = null, amount = null where receipt_key = ?', [id, key]);
        return id;
      });
    },

    async complete(key, answer) {
      const rows = await em().execute<{ fingerprint: string }[]>(
        `update consumed_receipt set state = 'done', response_status = ?, response_headers = ?, response_body = ?, completed_at = now(), payer = null, amount = null
          where receipt_key = ${PRIMARY_KEY} returning fingerprint`,
        [answer.status, JSON.stringify(answer.headers), answer.body, key, key],
      );
      if (rows[0]) finished.set(key, { fingerprint: rows[0].fingerprint, answer });
    },

    async beginRun(key) {
      const started = await em().execute<{ attempts: number }[]>(
        `update consumed_receipt set attempts = attempts + 1 where receipt_key = ${PRIMARY_KEY} and attempts < ? returning attempts`,
        [key, key, maxRuns],
      );
      if (started.length) return { kind: 'run' };
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
      if (!failure) {
        await em().execute(`update consumed_receipt set lease_until = now() where receipt_key = ${PRIMARY_KEY} and state = 'running'`, [key, key]);
        return;
      }
      await em().execute(
        `update consumed_receipt set lease_until = now(), response_status = ?, response_headers = ?, response_body = ?
          where receipt_key = ${PRIMARY_KEY} and state = 'running'`,
        [failure.status, JSON.stringify(failure.headers), failure.body, key, key],
      );
    },
  };
}
