/**
 * SQL of consumed receipts and their ledger rows (raw SQL through the ORM's connection, same on
 * PostgreSQL and PGlite). Every function takes the entity manager first and runs one statement.
 *
 * The money rules live here:
 * - a receipt is consumed once in the whole cluster: consumed_receipt's primary key (network +
 *   tx hash / signature / authorization nonce) decides, and an insert that loses returns nothing;
 * - a consumed receipt and its ledger row (`payment`) are written together: in one statement for
 *   a verified receipt (consumeWithLedger), in one transaction for a reserved one the service
 *   settled (lockReceiptPayment, insertLedger, setReceiptPayment): never a ledger row without
 *   its receipt, nor a receipt that moved money without its row;
 * - a ledger row's fee and net come from take-rate.ts's `net` (fee = amount - net), amounts as
 *   decimal text (numeric(78,0) never meets a float); a seller's row is written 'pending' (it
 *   earns once the seller call marks it delivered, settlement/payout-store.ts), a built-in's
 *   'delivered' (no seller to hold it from);
 * - only the lease holder renews, stores the answer, gives the lease back or deletes a
 *   reservation (`lease_holder = ?` in each of those statements), so a holder that stalled past
 *   its lease cannot overwrite what the run that replaced it did;
 * - a reservation holds money against its payer's balance until it is settled (payer, amount),
 *   and the sum of a payer's live holds is read under a payer-wide advisory lock;
 * - a stored answer is final (state 'done'); a key given may be an alias (a settlement tx hash):
 *   runs and answers are recorded on the receipt it names.
 */
import type { Sql } from '../db/orm.ts';
import type { SqlRunner } from './prepared-sql.ts';
import type { Payment } from '../db/entities.ts';
import type { ReceiptRow } from '../db/rows.ts';
import { net } from './take-rate.ts';

/** What a payment row records; fee and net are derived from amount and take rate. */
export type LedgerEntry = Pick<Payment, 'network' | 'tx' | 'payer' | 'amount' | 'quotedAmount' | 'endpointPath' | 'sellerId' | 'endpointId' | 'takeBps'> & Partial<Pick<Payment, 'buyerWallet'>>;

export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The stored answer's columns of a receipt row. */
export type AnswerColumns = Pick<ReceiptRow, 'response_status' | 'response_headers' | 'response_body'>;

/** Who holds a lease and for how long: the gate's holder id, its lease length. */
export interface Lease {
  holder: string;
  leaseMs: number;
}

/** A key presented may be an alias (a settlement tx hash): runs are recorded on the receipt it names. */
const PRIMARY_KEY = `coalesce((select alias_of from consumed_receipt where receipt_key = ?), ?)`;

const ROW = 'r.receipt_key, r.fingerprint, r.alias_of, r.state, r.payment_id, r.response_status, r.response_headers, r.response_body';

/** A ledger row's columns and their values (money as decimal text: numeric(78,0) never meets a float). */
const LEDGER_COLUMNS = 'network, tx, payer, amount, quoted_amount, endpoint_path, seller_id, endpoint_id, take_bps, fee, net, buyer_wallet, delivery';
const LEDGER_PLACEHOLDERS = LEDGER_COLUMNS.split(',').map(() => '?').join(', ');
const ledgerValues = (ledger: LedgerEntry) => {
  const netAmount = net(ledger.amount, ledger.takeBps);
  // A seller's row waits for its upstream's outcome ('pending' earns nothing until marked
  // delivered); a built-in earns for the service alone, so there is no seller to hold it from.
  const delivery = ledger.sellerId === null ? 'delivered' : 'pending';
  return [ledger.network, ledger.tx, ledger.payer, ledger.amount.toString(), ledger.quotedAmount.toString(), ledger.endpointPath, ledger.sellerId, ledger.endpointId, ledger.takeBps, (ledger.amount - netAmount).toString(), netAmount.toString(), ledger.buyerWallet ?? null, delivery];
};

/** The receipt a key names (through its alias), with whether its lease is still running. */
export async function loadReceipt(em: SqlRunner, key: string): Promise<ReceiptRow | null> {
  const rows = await em.execute<ReceiptRow[]>(
    `select ${ROW}, r.lease_until > now() as lease_active
       from consumed_receipt a join consumed_receipt r on r.receipt_key = coalesce(a.alias_of, a.receipt_key)
      where a.receipt_key = ?`,
    [key],
  );
  return rows[0] ?? null;
}

/** Takes a running receipt whose lease ran out (its instance died) over; null when it is not one (any more). */
export async function takeOverReceipt(em: Sql, key: string, lease: Lease): Promise<ReceiptRow | null> {
  const rows = await em.execute<ReceiptRow[]>(
    `update consumed_receipt r set lease_until = now() + (? * interval '1 millisecond'), lease_holder = ?
      where receipt_key = ? and state = 'running' and lease_until <= now()
      returning ${ROW}, true as lease_active`,
    [lease.leaseMs, lease.holder, key],
  );
  return rows[0] ?? null;
}

/** Renews the leases of the running receipts `keys` this holder holds; returns those renewed. */
export async function renewLeases(em: Sql, keys: string[], lease: Lease): Promise<string[]> {
  const rows = await em.execute<{ receipt_key: string }[]>(
    `update consumed_receipt set lease_until = now() + (? * interval '1 millisecond')
      where receipt_key in (select jsonb_array_elements_text(?::jsonb)) and state = 'running' and lease_holder = ?
      returning receipt_key`,
    [lease.leaseMs, JSON.stringify(keys), lease.holder],
  );
  return rows.map((r) => r.receipt_key);
}

/** The ledger row's tx and payer (a crashed run taken over carries them on). */
export async function paymentTxAndPayer(em: Sql, paymentId: string | number): Promise<{ tx: string; payer: string }> {
  const [payment] = await em.execute<{ tx: string; payer: string }[]>('select tx, payer from payment where id = ?', [paymentId]);
  return payment;
}

/**
 * Consumes a verified receipt and writes its ledger row in one statement, so one round trip and
 * atomic without a transaction: the receipt row takes the ledger row's id from its sequence, and
 * the ledger row is written only when the receipt row was (a receipt consumed before inserts
 * nothing; a failing ledger insert leaves no receipt row either). The run that follows at once
 * is counted here too. Returns the ledger row's id, or null when the receipt was consumed before.
 */
export async function consumeWithLedger(em: SqlRunner, r: { key: string; network: string; fingerprint: string }, lease: Lease, ledger: LedgerEntry): Promise<number | null> {
  const rows = await em.execute<{ id: string }[]>(
    `with r as (
       insert into consumed_receipt (receipt_key, network, fingerprint, state, lease_until, lease_holder, payment_id, attempts)
       values (?, ?, ?, 'running', now() + (? * interval '1 millisecond'), ?, nextval(pg_get_serial_sequence('payment', 'id')), 1)
       on conflict do nothing returning payment_id)
     insert into payment (id, ${LEDGER_COLUMNS})
     select r.payment_id, ${LEDGER_PLACEHOLDERS} from r returning id`,
    [r.key, r.network, r.fingerprint, lease.leaseMs, lease.holder, ...ledgerValues(ledger)],
  );
  return rows.length ? Number(rows[0].id) : null;
}

/** A reservation (no ledger row yet), holding `hold` of its payer's balance if given; false when the receipt exists. */
export async function insertReservation(
  em: Sql,
  r: { key: string; network: string; fingerprint: string },
  lease: Lease,
  hold?: { payer: string; amount: bigint },
): Promise<boolean> {
  const rows = await em.execute<{ receipt_key: string }[]>(
    `insert into consumed_receipt (receipt_key, network, fingerprint, state, lease_until, lease_holder, payer, amount)
     values (?, ?, ?, 'running', now() + (? * interval '1 millisecond'), ?, ?, ?) on conflict do nothing returning receipt_key`,
    [r.key, r.network, r.fingerprint, lease.leaseMs, lease.holder, hold?.payer.toLowerCase() ?? null, hold?.amount.toString() ?? null],
  );
  return rows.length > 0;
}

/** Serializes the reservations of one payer on one network for this transaction (its holds are summed next). */
export async function lockPayerHolds(tx: Sql, network: string, payer: string): Promise<void> {
  await tx.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`hold:${network}:${payer.toLowerCase()}`]);
}

/** The money a payer's live reservations hold, other than `exceptKey`'s (read after lockPayerHolds). */
export async function heldAmount(tx: Sql, network: string, payer: string, exceptKey: string): Promise<bigint> {
  const [{ held }] = await tx.execute<{ held: string }[]>(
    `select coalesce(sum(amount), 0)::text as held from consumed_receipt
      where payer = ? and network = ? and state = 'running' and payment_id is null and lease_until > now() and receipt_key <> ?`,
    [payer.toLowerCase(), network, exceptKey],
  );
  return BigInt(held);
}

/**
 * Second names of a receipt. A name already taken by this receipt (recorded before broadcast)
 * is fine; taken by another receipt cannot happen for a transaction the service signed itself,
 * and the tx-hash rail refuses transfers made through an authorization, so it is not an error
 * that could strand a settled payment.
 */
export async function insertAliases(em: Sql, key: string, aliases: string[]): Promise<void> {
  if (!aliases.length) return;
  await em.execute(
    `insert into consumed_receipt (receipt_key, network, fingerprint, alias_of, state, lease_until)
     select a.alias, r.network, r.fingerprint, r.receipt_key, 'alias', now()
       from consumed_receipt r, (select distinct jsonb_array_elements_text(?::jsonb) as alias) a
      where r.receipt_key = ?
     on conflict do nothing`,
    [JSON.stringify(aliases), key],
  );
}

/**
 * Drops this holder's reservation (settlement failed before any money moved) and, with it, its
 * aliases. Only the holder's: one taken over meanwhile is being settled by its new holder.
 */
export async function deleteReservation(em: Sql, key: string, holder: string): Promise<void> {
  await em.execute(
    `with gone as (delete from consumed_receipt where receipt_key = ? and state = 'running' and payment_id is null and lease_holder = ? returning receipt_key)
     delete from consumed_receipt where alias_of in (select receipt_key from gone) and state = 'alias'`,
    [key, holder],
  );
}

/**
 * The receipt's ledger row id under a row lock for this transaction (undefined: no such
 * receipt, null: no ledger row yet). A reservation settled by a holder that took it over has one.
 */
export async function lockReceiptPayment(tx: Sql, key: string): Promise<number | null | undefined> {
  const [row] = await tx.execute<{ payment_id: string | null }[]>('select payment_id from consumed_receipt where receipt_key = ? for update', [key]);
  if (!row) return undefined;
  return row.payment_id == null ? null : Number(row.payment_id);
}

/** Writes a ledger row (in the transaction that links it to its receipt); returns its id. */
export async function insertLedger(tx: Sql, ledger: LedgerEntry): Promise<number> {
  const rows = await tx.execute<{ id: string }[]>(`insert into payment (${LEDGER_COLUMNS}) values (${LEDGER_PLACEHOLDERS}) returning id`, ledgerValues(ledger));
  return Number(rows[0].id);
}

/** Links a settled reservation to its ledger row; the money it held against its payer is released. */
export async function setReceiptPayment(tx: Sql, key: string, paymentId: number): Promise<void> {
  await tx.execute('update consumed_receipt set payment_id = ?, payer = null, amount = null where receipt_key = ?', [paymentId, key]);
}

/**
 * Stores the final answer, only while `holder` holds the running receipt: the first answer of
 * the current holder is the one answer. Returns the primary receipt's key and fingerprint, or
 * null when nothing was stored (the lease was lost, or an answer is stored already).
 */
export async function storeAnswer(em: SqlRunner, key: string, answer: StoredAnswer, holder: string): Promise<{ receipt_key: string; fingerprint: string } | null> {
  const rows = await em.execute<{ receipt_key: string; fingerprint: string }[]>(
    `update consumed_receipt set state = 'done', response_status = ?, response_headers = ?, response_body = ?, completed_at = now(), payer = null, amount = null
      where receipt_key = ${PRIMARY_KEY} and state = 'running' and lease_holder = ? returning receipt_key, fingerprint`,
    [answer.status, JSON.stringify(answer.headers), answer.body, key, key, holder],
  );
  return rows[0] ?? null;
}

/** Counts a run attempt if fewer than `maxRuns` were made; false: every attempt is spent. */
export async function countRun(em: Sql, key: string, maxRuns: number): Promise<boolean> {
  const started = await em.execute<{ attempts: number }[]>(
    `update consumed_receipt set attempts = attempts + 1 where receipt_key = ${PRIMARY_KEY} and attempts < ? returning attempts`,
    [key, key, maxRuns],
  );
  return started.length > 0;
}

/**
 * Every attempt is spent: the last stored failure becomes the final answer, or `fallback` when
 * each run crashed without one. Returns the answer now stored (null: no such receipt).
 */
export async function finishExhausted(em: Sql, key: string, fallback: StoredAnswer): Promise<AnswerColumns | null> {
  const [row] = await em.execute<AnswerColumns[]>(
    `update consumed_receipt set state = 'done', completed_at = now(),
       response_status = coalesce(response_status, ?), response_headers = coalesce(response_headers, ?), response_body = coalesce(response_body, ?)
      where receipt_key = ${PRIMARY_KEY} returning response_status, response_headers, response_body`,
    [fallback.status, JSON.stringify(fallback.headers), fallback.body, key, key],
  );
  return row ?? null;
}

/**
 * Gives this holder's lease back at once (the next identical retry may take over), keeping
 * `failure` as the answer should the attempts run out. The holder is cleared too: a heartbeat
 * already on its way cannot renew a lease given back. Returns the primary key, or null when
 * this holder did not hold it.
 */
export async function giveLeaseBack(em: Sql, key: string, holder: string, failure?: StoredAnswer): Promise<string | null> {
  const rows = !failure
    ? await em.execute<{ receipt_key: string }[]>(
        `update consumed_receipt set lease_until = now(), lease_holder = null where receipt_key = ${PRIMARY_KEY} and state = 'running' and lease_holder = ? returning receipt_key`,
        [key, key, holder],
      )
    : await em.execute<{ receipt_key: string }[]>(
        `update consumed_receipt set lease_until = now(), lease_holder = null, response_status = ?, response_headers = ?, response_body = ?
          where receipt_key = ${PRIMARY_KEY} and state = 'running' and lease_holder = ? returning receipt_key`,
        [failure.status, JSON.stringify(failure.headers), failure.body, key, key, holder],
      );
  return rows[0]?.receipt_key ?? null;
}
