/**
 * SQL of the settlement (raw SQL through the ORM's connection; set-based: one statement per
 * batch of sellers, never one per ledger row).
 *
 * The money rules live here:
 * - a payout row is the intent: it is written in the same transaction that claims its payment
 *   rows (payout_item, primary key the payment: a row is claimed once), before anything is
 *   signed or sent;
 * - payout.amount = sum(net) of its claimed rows, checked in SQL in that transaction (a mismatch
 *   rolls it back);
 * - payment.payout_id (the settlement reference the account's withdrawable balance reads) is set
 *   for all rows of a payout in the one statement that marks the payout confirmed ('sent');
 * - claims of one seller are serialized by locking the seller row, so the daily settlement and
 *   a requested payout racing for the same seller never see each other's rows half claimed;
 * - a seller earns only for calls its upstream served: only 'delivered' payment rows are
 *   earned, withdrawable and claimed (DESIGN.md 5, Money). A row is written 'pending' with the
 *   receipt, before the run; the seller call marks it (markDelivery) once the outcome is known
 *   and before the buyer sees any of the answer. An 'undelivered' row (upstream_5xx,
 *   upstream_timeout, an upstream 5xx passed back) keeps its amount, fee and net as written:
 *   net is what the seller would have earned, and it is never paid; the service keeps the
 *   whole amount (the buyer is not refunded). 'delivered' is final (a later failed attempt of
 *   the same receipt cannot take it back, so a claimed row never changes), 'undelivered' is
 *   not (a retried receipt that is then served ends 'delivered'). A crash between the run and
 *   the mark leaves 'pending': not paid, and the buyer, who got no answer, may retry with the
 *   same receipt, whose run then marks it. Before claiming, a 'pending' row whose receipt has
 *   its final answer is resolved from that answer (resolvePendingDeliveries).
 */
import type { Sql } from '../db/orm.ts';
import type { PayoutChain, PreparedPayout } from '../chains/payout-sender.ts';
import type { PayoutRow } from '../db/rows.ts';
import type { SettlementSnapshot } from '../metrics/metrics.ts';

const PAYOUT_COLUMNS = `o.id::int as id, o.seller_id, o.wallet, o.chain, o.amount::text as amount, o.status, o.tx, o.raw, o.valid_until, o.error, o.settlement_day,
  o.attempts, extract(epoch from now() - o.broadcast_at)::int as broadcast_age_s, extract(epoch from o.created_at)::bigint as created_at`;

/**
 * The destination of a seller `s`: its registered wallet for its payout chain, or else a wallet
 * of the same family (EVM 0x addresses for the EVM chains, base58 for Solana). Null: none (the
 * seller is carried over; registration makes this impossible for sellers it creates).
 */
const DESTINATION = `coalesce(
  (select w.address from seller_wallet w where w.seller_id = s.id and w.chain = s.payout_chain order by w.id limit 1),
  (select w.address from seller_wallet w where w.seller_id = s.id and (w.address like '0x%') = (s.payout_chain <> 'solana') order by w.id limit 1))`;

export class AmountMismatchError extends Error {
  constructor(what: string) {
    super(`payout amount differs from the sum of its ledger rows (${what}); nothing was written`);
    this.name = 'AmountMismatchError';
  }
}

export interface ClaimResult {
  /** Payouts written, by chain: count and total atomic amount. */
  created: { id: number; chain: PayoutChain; amount: string }[];
  /** Sellers below the minimum, by payout chain. */
  carriedOver: Record<string, number>;
  /** Sellers with earnings but no wallet on their payout chain. */
  noDestination: number;
}

/** A PostgreSQL int[] literal (query parameters would spread a JS array into a list). */
const intArray = (ids: number[]) => `{${ids.map((i) => Math.trunc(i)).join(',')}}`;

/** Locks the sellers' rows for this transaction (claims of one seller are serialized). */
export const lockSellers = (tx: Sql, ids: number[]) => tx.execute(`select id from seller where id = any(?::int[]) order by id for update`, [intArray(ids)]);

/**
 * Writes one payout per seller of `sellerIds` whose unclaimed net earnings created before
 * `cutoff` reach `minAtomic`, and claims those rows, in the caller's transaction.
 * `day` null: a requested payout (not bound to a settlement day).
 */
export async function claimPayouts(
  tx: Sql,
  p: { sellerIds: number[]; cutoff: string; minAtomic: bigint; day: string | null },
): Promise<ClaimResult> {
  await lockSellers(tx, p.sellerIds);
  await resolvePendingDeliveries(tx, p.sellerIds);
  // Data-modifying CTEs share one snapshot: the sums, the inserted payouts and the claimed rows
  // describe the same rows. The seller locks above keep another claimer out of them.
  const [r] = await tx.execute<{ created: ClaimResult['created'] | null; carried: Record<string, number> | null; no_destination: number; mismatched: number }[]>(
    `with unclaimed as (
       select p.id, p.seller_id, p.net from payment p
        where p.seller_id = any(?::int[]) and p.payout_id is null and p.created_at < ?::timestamptz and p.delivery = 'delivered'
          and not exists (select 1 from payout_item i where i.payment_id = p.id)),
     sums as (select seller_id, sum(net) as total from unclaimed group by seller_id),
     due as (
       select s.id as seller_id, s.payout_chain as chain, ${DESTINATION} as wallet, sums.total
         from sums join seller s on s.id = sums.seller_id),
     ins as (
       insert into payout (seller_id, wallet, chain, amount, status, settlement_day)
       select seller_id, wallet, chain, total, 'pending', ? from due where total >= ? and wallet is not null
       on conflict (seller_id, settlement_day) do nothing
       returning id, seller_id, chain, amount),
     claimed as (
       insert into payout_item (payment_id, payout_id)
       select u.id, ins.id from unclaimed u join ins on ins.seller_id = u.seller_id
       returning payment_id, payout_id),
     claimed_sums as (select c.payout_id as id, sum(p.net) as total from claimed c join payment p on p.id = c.payment_id group by c.payout_id)
     select
       (select json_agg(json_build_object('id', i.id, 'chain', i.chain, 'amount', i.amount::text) order by i.id) from ins i) as created,
       (select json_object_agg(chain, n) from (select chain, count(*) as n from due where total < ? group by chain) c) as carried,
       (select count(*) from due where total >= ? and wallet is null)::int as no_destination,
       (select count(*) from ins i left join claimed_sums c on c.id = i.id where c.total is distinct from i.amount)::int as mismatched`,
    [intArray(p.sellerIds), p.cutoff, p.day, p.minAtomic.toString(), p.minAtomic.toString(), p.minAtomic.toString()],
  );
  if (r.mismatched > 0) throw new AmountMismatchError(`${r.mismatched} payout(s)`);
  return { created: (r.created ?? []).map((c) => ({ ...c, id: Number(c.id) })), carriedOver: r.carried ?? {}, noDestination: r.no_destination };
}

/**
 * What a requested payout of a seller must wait for, read under the seller's lock (lockSellers
 * first, in the same transaction): its unfinished payouts (one at a time), and the seconds until
 * `intervalSeconds` have passed since its last requested payout (null or <= 0: none to wait).
 */
export async function payoutRequestState(tx: Sql, sellerId: number, intervalSeconds: number): Promise<{ unfinished: number; wait_s: number | null }> {
  const [state] = await tx.execute<{ unfinished: number; wait_s: number | null }[]>(
    `select (select count(*) from payout where seller_id = ? and status <> 'sent')::int as unfinished,
            (select ceil(extract(epoch from max(created_at) + (? * interval '1 second') - now()))::int
               from payout where seller_id = ? and settlement_day is null) as wait_s`,
    [sellerId, intervalSeconds, sellerId],
  );
  return state;
}

/** What a paid seller call's outcome means for its ledger row. */
export type CallDelivery = 'delivered' | 'undelivered';

/**
 * Marks the ledger row of a receipt (`key` may be an alias of it) with the call's outcome.
 * 'delivered' is final: marking a delivered row 'undelivered' changes nothing (an attempt that
 * served wins over one that failed, in whatever order they finish), so a row a payout claimed,
 * always a delivered one, never changes under it. Returns whether the row now has `delivery`.
 */
export async function markDelivery(em: Sql, key: string, delivery: CallDelivery): Promise<boolean> {
  const rows = await em.execute<{ delivery: string }[]>(
    `update payment set delivery = case when delivery = 'delivered' then delivery else ? end
      where id = (select payment_id from consumed_receipt where receipt_key = coalesce((select alias_of from consumed_receipt where receipt_key = ?), ?))
      returning delivery`,
    [delivery, key, key],
  );
  return rows[0]?.delivery === delivery;
}

/**
 * Rows still 'pending' whose receipt has its final answer are resolved from that answer: below
 * 500 the buyer got what the upstream served ('delivered'), 500 and above it did not
 * ('undelivered'). The seller call marks every row before its answer leaves, so this only finds
 * rows whose mark was lost (a failed write on a failure) or rows an instance running older code
 * wrote during a rolling deploy (the column default is 'pending'), which are then paid as served.
 * A row whose run crashed has no final answer until a retry (or the last attempt) gives it one.
 */
async function resolvePendingDeliveries(tx: Sql, sellerIds: number[]): Promise<void> {
  await tx.execute(
    `update payment p set delivery = case when r.response_status < 500 then 'delivered' else 'undelivered' end
       from consumed_receipt r
      where p.seller_id = any(?::int[]) and p.delivery = 'pending' and r.payment_id = p.id and r.state = 'done' and r.response_status is not null`,
    [intArray(sellerIds)],
  );
}

/**
 * Leases up to `limit` due, unfinished payouts (FOR UPDATE SKIP LOCKED): next_attempt_at moves
 * past the lease, so no other instance takes them meanwhile, and a payout of an instance that
 * died is due again when its lease ends. Oldest first: recovery before new work. Only those due
 * by `dueBy` (the pass's start): one rescheduled during the pass waits for the next pass.
 */
export function leaseDuePayouts(em: Sql, p: { dueBy: string; limit: number; leaseMs: number }): Promise<PayoutRow[]> {
  return em.execute<PayoutRow[]>(
    `with due as (
       select id from payout where status <> 'sent' and next_attempt_at <= ?::timestamptz
        order by next_attempt_at, id limit ? for update skip locked)
     update payout o set next_attempt_at = now() + (? * interval '1 millisecond')
       from due where o.id = due.id
     returning ${PAYOUT_COLUMNS}`,
    [p.dueBy, p.limit, p.leaseMs],
  );
}

/**
 * Records a signed transaction before it is broadcast. Compare-and-set on the transaction the
 * worker saw (`previousTx`, null for the first): false means another worker recorded one
 * meanwhile, and this one must not be broadcast.
 */
export async function recordPrepared(em: Sql, id: number, previousTx: string | null, p: PreparedPayout): Promise<boolean> {
  const rows = await em.execute<{ id: number }[]>(
    `update payout set status = 'pending', tx = ?, raw = ?, valid_until = ?, broadcast_at = null where id = ? and status <> 'sent' and tx is not distinct from ? returning id`,
    [p.tx, p.raw, p.validUntil, id, previousTx],
  );
  return rows.length === 1;
}

/**
 * Payouts confirmed on chain: in one statement, mark them 'sent' and set payout_id on all their
 * claimed rows; for each, the marked sum must equal its amount, or the transaction is rolled
 * back. Set-based (one statement for a whole batch of payouts). Returns the ids marked now
 * (not those marked already by another worker or an earlier pass).
 */
export async function markConfirmed(em: Sql, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  return em.transactional(async (tx) => {
    const [r] = await tx.execute<{ marked: number[] | null; mismatched: number }[]>(
      `with o as (
         update payout set status = 'sent', confirmed_at = now(), sent_at = now(), broadcast_at = coalesce(broadcast_at, now()), error = null
          where id = any(?::bigint[]) and status <> 'sent' returning id, amount),
       m as (
         update payment p set payout_id = i.payout_id from payout_item i join o on o.id = i.payout_id
          where i.payout_id = any(?::bigint[]) and p.id = i.payment_id and p.payout_id is null returning p.payout_id, p.net),
       ms as (select payout_id as id, sum(net) as total from m group by payout_id)
       select (select json_agg(id::int) from o) as marked,
              (select count(*) from o left join ms on ms.id = o.id where ms.total is distinct from o.amount)::int as mismatched`,
      [intArray(ids), intArray(ids)],
    );
    if (r.mismatched > 0) throw new AmountMismatchError(`${r.mismatched} of payouts ${ids.join(', ')}`);
    return r.marked ?? [];
  });
}

/**
 * A failed attempt: kept visible (status 'failed', the error text), tried again after a back-off.
 * `dropTx`: that recorded transaction can never land (failed on chain, or expired), so the next
 * attempt signs a new one; it is dropped only if it is still the recorded one (a worker whose
 * lease ran out must not drop a newer transaction another worker recorded and sent). Null: the
 * recorded transaction stays, and the next attempt looks it up first.
 */
export async function recordFailure(em: Sql, id: number, p: { error: string; retryInMs: number; dropTx: string | null }): Promise<void> {
  await em.execute(
    `update payout set status = 'failed', error = ?, attempts = attempts + 1, next_attempt_at = now() + (? * interval '1 millisecond')
       ${p.dropTx !== null ? ', tx = null, raw = null, valid_until = null, broadcast_at = null' : ''}
     where id = ? and status <> 'sent' ${p.dropTx !== null ? 'and tx = ?' : ''}`,
    [p.error.slice(0, 2000), p.retryInMs, id, ...(p.dropTx !== null ? [p.dropTx] : [])],
  );
}

/**
 * Not final yet: look again after `inMs` (a note, e.g. "unconfirmed for 40 min", stays visible).
 * `broadcast`: the transaction has been broadcast (its age counts from the first time).
 */
export async function recordWaiting(em: Sql, id: number, p: { inMs: number; note?: string | null; broadcast: boolean }): Promise<void> {
  await em.execute(
    `update payout set next_attempt_at = now() + (? * interval '1 millisecond'), error = coalesce(?, error)
       ${p.broadcast ? ', broadcast_at = coalesce(broadcast_at, now())' : ''}
     where id = ? and status <> 'sent'`,
    [p.inMs, p.note ?? null, id],
  );
}

export async function findPayout(em: Sql, id: number): Promise<PayoutRow | null> {
  const [row] = await em.execute<PayoutRow[]>(`select ${PAYOUT_COLUMNS} from payout o where o.id = ?`, [id]);
  return row ?? null;
}

/**
 * The daily run's row (settlement_run, one per day): the instance whose insert wins runs the
 * day; a run whose lease ended unfinished (its instance died) is taken over. True: it is ours.
 */
export async function takeSettlementRun(em: Sql, p: { day: string; cutoff: string; leaseMs: number }): Promise<boolean> {
  const mine = await em.execute<{ day: string }[]>(
    `insert into settlement_run (day, cutoff, lease_until) values (?, ?::timestamptz, now() + (? * interval '1 millisecond'))
     on conflict (day) do update set lease_until = excluded.lease_until
       where settlement_run.finished_at is null and settlement_run.lease_until < now()
     returning day`,
    [p.day, p.cutoff, p.leaseMs],
  );
  return mine.length > 0;
}

export async function settlementRunFinished(em: Sql, day: string): Promise<boolean> {
  const [row] = await em.execute<{ finished: boolean }[]>('select finished_at is not null as finished from settlement_run where day = ?', [day]);
  return row?.finished === true;
}

/** The next `limit` seller ids after `after` (the daily run walks the sellers in batches). */
export async function sellerIdsAfter(em: Sql, after: number, limit: number): Promise<number[]> {
  return (await em.execute<{ id: number }[]>('select id from seller where id > ? order by id limit ?', [after, limit])).map((r) => Number(r.id));
}

/**
 * Adds a batch's figures to the run's totals and renews its lease, in the batch's transaction.
 * False: the run is no longer ours (our lease ran out and another instance finished it), and the
 * caller must roll the batch back.
 */
export async function addToSettlementRun(tx: Sql, day: string, p: { sellers: number; total: bigint; carriedOver: number; leaseMs: number }): Promise<boolean> {
  const renewed = await tx.execute<{ day: string }[]>(
    `update settlement_run set sellers = sellers + ?, total_atomic = total_atomic + ?::numeric, carried_over = carried_over + ?,
       lease_until = now() + (? * interval '1 millisecond') where day = ? and finished_at is null returning day`,
    [p.sellers, p.total.toString(), p.carriedOver, p.leaseMs, day],
  );
  return renewed.length > 0;
}

export async function finishSettlementRun(em: Sql, day: string): Promise<{ sellers: number; total_atomic: string; carried_over: number }> {
  const [run] = await em.execute<{ sellers: number; total_atomic: string; carried_over: number }[]>(
    `update settlement_run set finished_at = now() where day = ? returning sellers, total_atomic::text as total_atomic, carried_over`,
    [day],
  );
  return run;
}

/** A failed run: the next pass (of any instance) tries again soon instead of after the whole lease. */
export async function retrySettlementRunSoon(em: Sql, day: string): Promise<void> {
  await em.execute(`update settlement_run set lease_until = now() + interval '1 minute' where day = ? and finished_at is null`, [day]);
}

/**
 * The scrape-time source of the settlement gauges: every gauge of one scrape asks at once, and
 * they share one read of the database.
 */
export function settlementSource(read: () => Sql): () => Promise<SettlementSnapshot> {
  let inFlight: Promise<SettlementSnapshot> | null = null;
  return () =>
    (inFlight ??= settlementSnapshot(read()).finally(() => {
      inFlight = null;
    }));
}

async function settlementSnapshot(em: Sql): Promise<SettlementSnapshot> {
  const unconfirmed = await em.execute<{ chain: string; count: number; oldest_s: number }[]>(
    `select chain, count(*)::int as count, coalesce(max(extract(epoch from now() - broadcast_at)), 0)::int as oldest_s
       from payout where status <> 'sent' and broadcast_at is not null group by chain`,
  );
  const retrying = await em.execute<{ chain: string; count: number }[]>(`select chain, count(*)::int as count from payout where status = 'failed' group by chain`);
  const [lastRun] = await em.execute<{ finished_s: number; sellers: number; total_atomic: string }[]>(
    `select extract(epoch from finished_at)::bigint::int as finished_s, sellers, total_atomic::text as total_atomic
       from settlement_run where finished_at is not null order by day desc limit 1`,
  );
  return { unconfirmed, retrying, lastRun: lastRun ?? null };
}
