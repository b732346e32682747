/**
 * SQL access of the seller marketplace (raw SQL through the ORM's connection, same on
 * PostgreSQL and PGlite) and the JSON shapes of the contract's Seller and SellerEndpoint.
 */
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { Database } from '../db/orm.ts';
import { AppError } from '../http/app-error.ts';
import { walletKey } from '../http/wallet-signature.ts';
import type { ProbeResult } from './probe-upstream.ts';

export const sqlOf = (orm: Database) => orm.em.fork() as unknown as SqlEntityManager;

export interface SellerRow {
  id: number;
  wallet: string;
  slug: string;
  payout_chain: string;
  status: 'active' | 'suspended';
  created_at: string;
}

export interface EndpointRow {
  id: number;
  seller_id: number;
  slug: string;
  path_suffix: string;
  upstream_url: string;
  atomic_price: string;
  unit: string;
  desc: string;
  mode: string;
  sample_body: unknown;
  status: 'pending' | 'active' | 'degraded' | 'suspended';
  consecutive_failures: number;
  consecutive_successes: number;
  probe_attempts: number;
  degraded_at_s: string | null;
  last_probe: ProbeResult | null;
  created_at: string;
  deleted_at: string | null;
}

const SELLER_COLUMNS = `s.id, s.wallet, s.slug, s.payout_chain, s.status, extract(epoch from s.created_at)::bigint as created_at`;
export const ENDPOINT_COLUMNS = `e.id, e.seller_id, e.slug, e.path_suffix, e.upstream_url, e.atomic_price::text as atomic_price, e.unit, e."desc", e.mode, e.sample_body,
  e.status, e.consecutive_failures, e.consecutive_successes, e.probe_attempts, extract(epoch from e.degraded_at)::bigint as degraded_at_s, e.last_probe,
  extract(epoch from e.created_at)::bigint as created_at, extract(epoch from e.deleted_at)::bigint as deleted_at`;

/** The seller owning a wallet (any of its registered wallets), or null. */
export async function findSellerByWallet(em: SqlEntityManager, wallet: string): Promise<SellerRow | null> {
  const [row] = await em.execute<SellerRow[]>(
    `select ${SELLER_COLUMNS} from seller s join seller_wallet_claim c on c.seller_id = s.id where c.address_key = ?`,
    [walletKey(wallet)],
  );
  return row ?? null;
}

export async function sellerWallets(em: SqlEntityManager, sellerId: number): Promise<Record<string, string>> {
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

export const endpointJson = (e: EndpointRow) => ({
  id: e.id,
  path: `/v1/${e.slug}/${e.path_suffix}`,
  slug: e.slug,
  path_suffix: e.path_suffix,
  upstream_url: e.upstream_url,
  atomic_price: e.atomic_price,
  unit: e.unit,
  desc: e.desc,
  mode: e.mode,
  status: e.status,
  created_at: Number(e.created_at),
  last_probe: e.last_probe ?? null,
});

export async function findEndpoint(em: SqlEntityManager, id: number): Promise<EndpointRow | null> {
  const [row] = await em.execute<EndpointRow[]>(`select ${ENDPOINT_COLUMNS} from seller_endpoint e where e.id = ? and e.deleted_at is null`, [id]);
  return row ?? null;
}

/** Registered seller or 400/404 seller_not_found (the spec uses 400 on writes, 404 on reads). */
export async function requireSeller(em: SqlEntityManager, wallet: string, notFoundStatus: 400 | 404): Promise<SellerRow> {
  const seller = await findSellerByWallet(em, wallet);
  if (!seller) throw new AppError('seller_not_found', notFoundStatus, `No seller is registered for ${wallet}.`, { hint: 'Register the wallet with POST /v1/_seller/register first.' });
  return seller;
}

/** 400 seller_suspended, naming the suspended endpoints and why, so the seller knows what to fix. */
export async function refuseSuspended(em: SqlEntityManager, seller: SellerRow): Promise<void> {
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

export async function requireOwnEndpoint(em: SqlEntityManager, seller: SellerRow | null, id: number): Promise<EndpointRow> {
  const endpoint = await findEndpoint(em, id);
  if (!endpoint) throw new AppError('endpoint_not_found', 404, `No endpoint ${id} for this wallet.`);
  if (!seller || endpoint.seller_id !== seller.id) throw new AppError('wallet_mismatch', 401, `Endpoint ${id} belongs to another wallet.`);
  return endpoint;
}

export async function recordObservation(em: SqlEntityManager, endpointId: number, source: string, p: ProbeResult): Promise<void> {
  await em.execute('insert into endpoint_observation (endpoint_id, source, region, ok, status_code, latency_ms, error) values (?, ?, ?, ?, ?, ?, ?)', [
    endpointId,
    source,
    p.region,
    p.ok,
    p.status_code,
    p.latency_ms === null ? null : Math.round(p.latency_ms),
    p.error,
  ]);
}

/** Adds one to an hourly error count of an endpoint (the seller errors call reads them). */
export async function countError(em: SqlEntityManager, endpointId: number, sellerId: number, code: string): Promise<void> {
  await em.execute(
    `insert into endpoint_error_count (endpoint_id, seller_id, hour, code, count) values (?, ?, date_trunc('hour', now()), ?, 1)
     on conflict (endpoint_id, hour, code) do update set count = endpoint_error_count.count + 1`,
    [endpointId, sellerId, code],
  );
}

/** What a paid call needs of an endpoint; `status` decides 404 (pending) and 410 (suspended) before any quote. */
export interface LiveEndpoint {
  id: number;
  seller_id: number;
  status: string;
  mode: 'proxy' | 'paywall';
  upstream_url: string;
  atomic_price: string;
  desc: string;
  sample_body: unknown;
}

/** The endpoint a buyer calls by slug and path suffix, unless deleted (one indexed lookup per paid call). */
export async function findLiveEndpoint(em: SqlEntityManager, slug: string, pathSuffix: string): Promise<LiveEndpoint | null> {
  const [endpoint] = await em.execute<LiveEndpoint[]>(
    `select id, seller_id, status, mode, upstream_url, atomic_price::text as atomic_price, "desc", sample_body
       from seller_endpoint where slug = ? and path_suffix = ? and deleted_at is null`,
    [slug, pathSuffix],
  );
  return endpoint ?? null;
}
