/**
 * Exactly-once execution. A receipt key is inserted into consumed_receipt in the same
 * database transaction as its ledger row; the primary key makes the insert the single
 * point where concurrent retries (on any number of instances) are decided:
 *  - the winner runs the call and stores the answer;
 *  - an identical retry waits for that answer and replays it;
 *  - a different request with the same receipt gets 409 tx_already_consumed;
 *  - a run whose lease ran out (the instance crashed) can be taken over by a retry.
 */
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { Database } from '../db/orm.ts';
import type { Payment } from '../db/entities.ts';
import { AppError } from '../http/app-error.ts';
import { createLru } from '../lib/lru.ts';

/** What a payment row records; fee and net are derived from amount and take rate. */
export type LedgerEntry = Pick<Payment, 'network' | 'tx' | 'payer' | 'amount' | 'quotedAmount' | 'endpointPath' | 'sellerId' | 'endpointId' | 'takeBps'>;

export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export type GateOutcome =
  /** paymentTx: the ledger row's tx when the receipt already has one (a crashed run taken over). */
  | { kind: 'claimed'; paymentId: number | null; paymentTx?: string }
  | { kind: 'replay'; answer: StoredAnswer };

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

export interface ReceiptGate {
  /**
   * Looks a receipt up before any chain work: a replay, a 409, a wait for a running
   * call, or null when the receipt was never consumed (or its run crashed and may be retried).
   */
  check(key: string, fingerprint: string): Promise<GateOutcome | null>;
  /** Consumes a verified receipt and writes its ledger row in one transaction. */
  consume(key: string, network: string, fingerprint: string, ledger: LedgerEntry, aliases?: string[]): Promise<GateOutcome>;
  /** Holds a receipt the service still has to settle (authorization, co-signed transfer). */
  reserve(key: string, network: string, fingerprint: string): Promise<GateOutcome>;
  /** Settlement failed: the reservation is dropped so the buyer may try again. */
  release(key: string): Promise<void>;
  /** Settlement done: ledger row for a reserved receipt, plus the keys it is also known by. */
  settle(key: string, ledger: LedgerEntry, aliases: string[]): Promise<number>;
  complete(key: string, answer: StoredAnswer): Promise<void>;
  /** The run failed in a way worth retrying: let the next identical retry run it again. */
  abandon(key: string): Promise<void>;
}

/** A key presented may be an alias (a settlement tx hash): runs are recorded on the receipt it names. */
const PRIMARY_KEY = `coalesce((select alias_of from consumed_receipt where receipt_key = ?), ?)`;

export const net = (amount: bigint, takeBps: number) => (amount * BigInt(10_000 - takeBps)) / 10_000n;

const consumed = () =>
  new AppError('tx_already_consumed', 409, 'This payment has already been used for a different request.', {
    hint: 'A transaction authorises exactly one call; pay again for a new request.',
  });

export function createReceiptGate(orm: Database, opts: { leaseMs: number; waitPollMs?: number; cacheSize?: number }): ReceiptGate {
  const waitPollMs = opts.waitPollMs ?? 100;
  const em = () => orm.em.fork() as unknown as SqlEntityManager;
  // A finished answer never changes, so replays of recent receipts skip the database.
  // Only answers this instance stored or read are here; others are found in the database.
  const finished = createLru<string, { fingerprint: string; answer: StoredAnswer }>(opts.cacheSize ?? 1000);

  const load = async (key: string): Promise<ReceiptRow | null> => {
    const rows = await em().execute<ReceiptRow[]>(
      `select r.receipt_key, r.fingerprint, r.alias_of, r.state, r.payment_id, r.lease_until > now() as lease_active,
              r.response_status, r.response_headers, r.response_body
         from consumed_receipt a join consumed_receipt r on r.receipt_key = coalesce(a.alias_of, a.receipt_key)
        where a.receipt_key = ?`,
      [key],
    );
    return rows[0] ?? null;
  };

  const takeOver = async (key: string): Promise<ReceiptRow | null> => {
    const rows = await em().execute<ReceiptRow[]>(
      `update consumed_receipt set lease_until = now() + (? * interval '1 millisecond')
        where receipt_key = ? and state = 'running' and lease_until <= now()
        returning receipt_key, fingerprint, alias_of, state, payment_id, true as lease_active, response_status, response_headers, response_body`,
      [opts.leaseMs, key],
    );
    return rows[0] ?? null;
  };

  const toAnswer = (row: ReceiptRow): StoredAnswer => ({
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
        if (taken?.payment_id == null) {
          if (taken) return { kind: 'claimed', paymentId: null };
          continue;
        }
        const [payment] = await em().execute<{ tx: string }[]>('select tx from payment where id = ?', [taken.payment_id]);
        return { kind: 'claimed', paymentId: Number(taken.payment_id), paymentTx: payment?.tx };
      }
      await new Promise((r) => setTimeout(r, waitPollMs));
    }
  };

  const insertLedger = async (tx: SqlEntityManager, ledger: LedgerEntry): Promise<number> => {
    const netAmount = net(ledger.amount, ledger.takeBps);
    const rows = await tx.execute<{ id: string }[]>(
      `insert into payment (network, tx, payer, amount, quoted_amount, endpoint_path, seller_id, endpoint_id, take_bps, fee, net)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning id`,
      [ledger.network, ledger.tx, ledger.payer, ledger.amount.toString(), ledger.quotedAmount.toString(), ledger.endpointPath, ledger.sellerId, ledger.endpointId, ledger.takeBps, (ledger.amount - netAmount).toString(), netAmount.toString()],
    );
    return Number(rows[0].id);
  };

  const insertAliases = async (tx: SqlEntityManager, key: string, network: string, fingerprint: string, aliases: string[]) => {
    for (const alias of aliases) {
      const rows = await tx.execute<{ receipt_key: string }[]>(
        `insert into consumed_receipt (receipt_key, network, fingerprint, alias_of, state, lease_until) values (?, ?, ?, ?, 'alias', now())
         on conflict do nothing returning receipt_key`,
        [alias, network, fingerprint, key],
      );
      // The settlement tx was presented on its own already: refuse the whole consumption.
      if (!rows.length) throw consumed();
    }
  };

  const insertReceipt = (tx: SqlEntityManager, key: string, network: string, fingerprint: string) =>
    tx.execute<{ receipt_key: string }[]>(
      `insert into consumed_receipt (receipt_key, network, fingerprint, state, lease_until)
       values (?, ?, ?, 'running', now() + (? * interval '1 millisecond')) on conflict do nothing returning receipt_key`,
      [key, network, fingerprint, opts.leaseMs],
    );

  return {
    check: resolveExisting,

    async consume(key, network, fingerprint, ledger, aliases = []) {
      const paymentId = await em().transactional(async (tx) => {
        const inserted = await insertReceipt(tx, key, network, fingerprint);
        if (!inserted.length) return null;
        await insertAliases(tx, key, network, fingerprint, aliases);
        const id = await insertLedger(tx, ledger);
        await tx.execute('update consumed_receipt set payment_id = ? where receipt_key = ?', [id, key]);
        return id;
      });
      if (paymentId !== null) return { kind: 'claimed', paymentId };
      return (await resolveExisting(key, fingerprint)) ?? (await this.consume(key, network, fingerprint, ledger, aliases));
    },

    async reserve(key, network, fingerprint) {
      const inserted = await insertReceipt(em(), key, network, fingerprint);
      if (inserted.length) return { kind: 'claimed', paymentId: null };
      return (await resolveExisting(key, fingerprint)) ?? (await this.reserve(key, network, fingerprint));
    },

    async release(key) {
      await em().execute(`delete from consumed_receipt where receipt_key = ? and state = 'running' and payment_id is null`, [key]);
    },

    async settle(key, ledger, aliases) {
      return em().transactional(async (tx) => {
        const [row] = await tx.execute<{ network: string; fingerprint: string }[]>('select network, fingerprint from consumed_receipt where receipt_key = ? for update', [key]);
        await insertAliases(tx, key, row.network, row.fingerprint, aliases);
        const id = await insertLedger(tx, ledger);
        await tx.execute('update consumed_receipt set payment_id = ? where receipt_key = ?', [id, key]);
        return id;
      });
    },

    async complete(key, answer) {
      const rows = await em().execute<{ fingerprint: string }[]>(
        `update consumed_receipt set state = 'done', response_status = ?, response_headers = ?, response_body = ?, completed_at = now() where receipt_key = ${PRIMARY_KEY} returning fingerprint`,
        [answer.status, JSON.stringify(answer.headers), answer.body, key, key],
      );
      if (rows[0]) finished.set(key, { fingerprint: rows[0].fingerprint, answer });
    },

    async abandon(key) {
      await em().execute(`update consumed_receipt set lease_until = now() where receipt_key = ${PRIMARY_KEY} and state = 'running'`, [key, key]);
    },
  };
}
