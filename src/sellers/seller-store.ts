/**
 * SQL of sellers (raw SQL through the ORM's connection, same on PostgreSQL and PGlite) and the
 * JSON shape of the contract's Seller; endpoints have endpoint-store.ts. Every function takes
 * the entity manager first and runs one statement.
 *
 * The rules kept here:
 * - a wallet belongs to at most one seller (seller_wallet_claim's primary key) and a slug to one
 *   wallet (seller.slug unique): registration's inserts return nothing on a conflict, and the
 *   caller rolls the whole registration back;
 * - suspending a seller keeps the first suspended_at;
 * - a seller's figures count what the ledger says (settlement/payout-store.ts): earned, fee and
 *   withdrawable only for delivered rows, undelivered calls and what their buyers paid apart.
 */
import type { Sql } from '../db/orm.ts';
import { AppError } from '../http/app-error.ts';
import { walletKey } from '../http/wallet-signature.ts';
import type { ProbeResult } from '../db/entities.ts';
import type { LiveEndpoint, SellerRow } from '../db/rows.ts';

const SELLER_COLUMNS = `s.id, s.wallet, s.slug, s.payout_chain, s.status, extract(epoch from s.created_at)::bigint as created_at`;

/** The seller owning a wallet (any of its registered wallets), or null. */
export async function findSellerByWallet(em: Sql, wallet: string): Promise<SellerRow | null> {
  const [row] = await em.execute<SellerRow[]>(
    `select ${SELLER_COLUMNS} from seller s join seller_wallet_claim c on c.seller_id = s.id where c.address_key = ?`,
    [walletKey(wallet)],
  );
  return row ?? null;
}

export async function sellerWallets(em: Sql, sellerId: number): Promise<Record<string, string>> {
  const rows = await em.execute<{ chain: string; address: string }[]>('select chain, address from seller_wallet where seller_id = ? order by id', [sellerId]);
  return Object.fromEntries(rows.map((r) => [r.chain, r.address]));
}

export const sellerJson = (s: SellerRow, wallets: Record<string, string>) => ({
  wallet: s.wallet,
  slug: s.slug,
  wallets,
  payout_chain: s.payout_chain,
  status: s.status,
  created_at: Number(s.created_at),
});

/** Registered seller or 400/404 seller_not_found (the spec uses 400 on writes, 404 on reads). */
export async function requireSeller(em: Sql, wallet: string, notFoundStatus: 400 | 404): Promise<SellerRow> {
  const seller = await findSellerByWallet(em, wallet);
  if (!seller) throw new AppError('seller_not_found', notFoundStatus, `No seller is registered for ${wallet}.`, { hint: 'Register the wallet with POST /v1/_seller/register first.' });
  return seller;
}

/** 400 seller_suspended, naming the suspended endpoints and why, so the seller knows what to fix. */
export async function refuseSuspended(em: Sql, seller: SellerRow): Promise<void> {
  if (seller.status !== 'suspended') return;
  const rows = await em.execute<{ slug: string; path_suffix: string; last_probe: ProbeResult | null }[]>(
    `select slug, path_suffix, last_probe from seller_endpoint where seller_id = ? and status = 'suspended' and deleted_at is null order by id`,
    [seller.id],
  );
  const why = rows.map((r) => `/v1/${r.slug}/${r.path_suffix}${r.last_probe?.error ? ` (last probe: ${r.last_probe.error})` : ''}`).join(', ');
  throw new AppError('seller_suspended', 400, `This seller is suspended after repeated upstream failures${why ? `: ${why}` : ''}.`, {
    hint: `Fix the upstream, then POST /v1/_seller/${seller.wallet}/resume.`,
  });
}

/** Adds one to an hourly error count of an endpoint (the seller errors call reads them). */
export async function countError(em: Sql, endpointId: number, sellerId: number, code: string): Promise<void> {
  await em.execute(
    `insert into endpoint_error_count (endpoint_id, seller_id, hour, code, count) values (?, ?, date_trunc('hour', now()), ?, 1)
     on conflict (endpoint_id, hour, code) do update set count = endpoint_error_count.count + 1`,
    [endpointId, sellerId, code],
  );
}

/** A new seller, active; null when the wallet key or the slug is taken. */
export async function insertSeller(tx: Sql, s: { wallet: string; walletKey: string; slug: string; payoutChain: string }): Promise<SellerRow | null> {
  const [row] = await tx.execute<SellerRow[]>(
    `insert into seller (wallet, wallet_key, slug, payout_chain, status) values (?, ?, ?, ?, 'active') on conflict do nothing
     returning id, wallet, slug, payout_chain, status, extract(epoch from created_at)::bigint as created_at`,
    [s.wallet, s.walletKey, s.slug, s.payoutChain],
  );
  return row ?? null;
}

/** Claims a wallet address (by walletKey) for a seller; false when another seller owns it. */
export async function claimWallet(tx: Sql, addressKey: string, sellerId: number): Promise<boolean> {
  const claimed = await tx.execute<unknown[]>('insert into seller_wallet_claim (address_key, seller_id) values (?, ?) on conflict do nothing returning address_key', [addressKey, sellerId]);
  return claimed.length > 0;
}

export async function insertSellerWallet(tx: Sql, sellerId: number, w: { chain: string; address: string; addressKey: string }): Promise<void> {
  await tx.execute('insert into seller_wallet (seller_id, chain, address, address_key) values (?, ?, ?, ?)', [sellerId, w.chain, w.address, w.addressKey]);
}

/** The seller of an endpoint that was just suspended (lifecycle.ts); a suspended seller keeps its first suspended_at. */
export async function suspendSeller(tx: Sql, sellerId: number): Promise<void> {
  await tx.execute(`update seller set status = 'suspended', suspended_at = now() where id = ? and status <> 'suspended'`, [sellerId]);
}

/** The seller is active again (its suspended endpoints are resumed by endpoint-store's resumeSuspendedEndpoints). */
export async function reactivateSeller(tx: Sql, sellerId: number): Promise<void> {
  await tx.execute(`update seller set status = 'active', suspended_at = null where id = ?`, [sellerId]);
}

/**
 * The live endpoint a paid call names (not deleted; the caller refuses 'pending' and
 * 'suspended'), or null: one indexed lookup per paid call (sellers/seller-call.handlers.ts).
 */
export async function findLiveEndpoint(em: Sql, slug: string, pathSuffix: string): Promise<LiveEndpoint | null> {
  const [endpoint] = await em.execute<LiveEndpoint[]>(
    `select id, seller_id, status, mode, upstream_url, atomic_price::text as atomic_price, "desc", sample_body
       from seller_endpoint where slug = ? and path_suffix = ? and deleted_at is null`,
    [slug, pathSuffix],
  );
  return endpoint ?? null;
}

/** A seller's totals since `since` (Unix seconds), amounts as decimal text. */
export async function sellerTotals(em: Sql, sellerId: number, since: number): Promise<Record<string, string>> {
  const [totals] = await em.execute<Record<string, string>[]>(
    `select count(*) as calls, coalesce(sum(amount), 0)::text as paid,
            coalesce(sum(fee) filter (where delivery = 'delivered'), 0)::text as fee, coalesce(sum(net) filter (where delivery = 'delivered'), 0)::text as net,
            coalesce(sum(net) filter (where payout_id is null and delivery = 'delivered'), 0)::text as withdrawable, coalesce(sum(net) filter (where payout_id is not null), 0)::text as settled,
            count(*) filter (where delivery = 'undelivered') as undelivered_calls, coalesce(sum(amount) filter (where delivery = 'undelivered'), 0)::text as undelivered
       from payment where seller_id = ? and created_at >= to_timestamp(?)`,
    [sellerId, since],
  );
  return totals;
}

/**
 * Per endpoint of a seller (deleted ones too), its call figures in three windows starting at
 * `starts` (Unix seconds): columns calls_<w>, paid_<w>, net_<w>, undelivered_calls_<w>, undelivered_<w>.
 */
export function endpointFigures(em: Sql, sellerId: number, starts: { since: number; d1: number; d30: number }) {
  const windowCols = (w: string) =>
    `count(p.id) filter (where p.created_at >= to_timestamp(?)) as calls_${w},
     coalesce(sum(p.amount) filter (where p.created_at >= to_timestamp(?)), 0)::text as paid_${w},
     coalesce(sum(p.net) filter (where p.created_at >= to_timestamp(?) and p.delivery = 'delivered'), 0)::text as net_${w},
     count(p.id) filter (where p.created_at >= to_timestamp(?) and p.delivery = 'undelivered') as undelivered_calls_${w},
     coalesce(sum(p.amount) filter (where p.created_at >= to_timestamp(?) and p.delivery = 'undelivered'), 0)::text as undelivered_${w}`;
  return em.execute<Record<string, string | number | null>[]>(
    `select e.id, e.slug, e.path_suffix, e.status, extract(epoch from e.deleted_at)::bigint as deleted_at, ${windowCols('since')}, ${windowCols('d1')}, ${windowCols('d30')}
       from seller_endpoint e left join payment p on p.endpoint_id = e.id and p.seller_id = e.seller_id
      where e.seller_id = ? group by e.id order by e.id`,
    [...Array(5).fill(starts.since), ...Array(5).fill(starts.d1), ...Array(5).fill(starts.d30), sellerId],
  );
}

/** Per endpoint of a seller, its error counts in the three windows (columns e_since, e_d1, e_d30). */
export function endpointErrorCounts(em: Sql, sellerId: number, starts: { since: number; d1: number; d30: number }) {
  return em.execute<Record<string, string | number>[]>(
    `select endpoint_id, coalesce(sum(count) filter (where hour >= date_trunc('hour', to_timestamp(?))), 0) as e_since,
            coalesce(sum(count) filter (where hour >= date_trunc('hour', to_timestamp(?))), 0) as e_d1,
            coalesce(sum(count) filter (where hour >= date_trunc('hour', to_timestamp(?))), 0) as e_d30
       from endpoint_error_count where seller_id = ? group by endpoint_id`,
    [starts.since, starts.d1, starts.d30, sellerId],
  );
}

/** Per endpoint of a seller, p50/p95 upstream latency of successful observations since d1 and d30. */
export function endpointLatencies(em: Sql, sellerId: number, starts: { d1: number; d30: number }) {
  return em.execute<Record<string, string | number | null>[]>(
    `select o.endpoint_id,
            percentile_cont(0.5) within group (order by o.latency_ms) filter (where o.at >= to_timestamp(?)) as p50_d1,
            percentile_cont(0.95) within group (order by o.latency_ms) filter (where o.at >= to_timestamp(?)) as p95_d1,
            percentile_cont(0.5) within group (order by o.latency_ms) as p50_d30,
            percentile_cont(0.95) within group (order by o.latency_ms) as p95_d30
       from endpoint_observation o join seller_endpoint e on e.id = o.endpoint_id
      where e.seller_id = ? and o.ok and o.latency_ms is not null and o.at >= to_timestamp(?)
      group by o.endpoint_id`,
    [starts.d1, starts.d1, sellerId, starts.d30],
  );
}

/**
 * A seller's figures per UTC day from the day of `from` to today, days without calls as zeros
 * (generate_series left-joined), amounts as decimal text. Rows before `since` are not counted,
 * so the first day agrees with the totals since `since`.
 */
export function dailyFigures(em: Sql, sellerId: number, from: number, since: number) {
  return em.execute<{ day: string; calls: string; paid: string; net: string; undelivered_calls: string; undelivered: string }[]>(
    `select extract(epoch from d.day)::bigint as day, count(p.id) as calls, coalesce(sum(p.amount), 0)::text as paid,
            coalesce(sum(p.net) filter (where p.delivery = 'delivered'), 0)::text as net,
            count(p.id) filter (where p.delivery = 'undelivered') as undelivered_calls,
            coalesce(sum(p.amount) filter (where p.delivery = 'undelivered'), 0)::text as undelivered
       from generate_series(date_trunc('day', to_timestamp(?) at time zone 'UTC'), date_trunc('day', now() at time zone 'UTC'), interval '1 day') as d(day)
       left join payment p on p.seller_id = ? and p.created_at >= to_timestamp(?)
                          and p.created_at >= d.day at time zone 'UTC' and p.created_at < (d.day + interval '1 day') at time zone 'UTC'
      group by d.day order by d.day`,
    [from, sellerId, since],
  );
}

/** A seller's hourly error counts by code since `since` (Unix seconds), newest hour first. */
export function hourlyErrors(em: Sql, sellerId: number, since: number) {
  return em.execute<{ ts: string; code: string; count: string }[]>(
    `select extract(epoch from hour)::bigint as ts, code, sum(count) as count from endpoint_error_count
      where seller_id = ? and hour >= date_trunc('hour', to_timestamp(?)) group by hour, code order by hour desc, code`,
    [sellerId, since],
  );
}
