/**
 * Seller endpoints in /v1/_meta: active and degraded ones, with measured p50/p99 upstream
 * latency and success rate over the last 24 h (probes and live calls), so agents can choose.
 */
import { sqlOf, type Database } from '../db/orm.ts';
import { NETWORKS } from '../chains/chain-adapter.ts';
import type { CatalogEntry } from '../catalog/meta.ts';

export async function listSellerCatalogEntries(orm: Database): Promise<CatalogEntry[]> {
  const rows = await sqlOf(orm).execute<Record<string, string | number | null>[]>(
    `select e.slug, e.path_suffix, s.wallet, e.atomic_price::text as price, e.unit, e."desc", e.mode, e.status,
            o.p50, o.p99, o.total, o.ok_count
       from seller_endpoint e join seller s on s.id = e.seller_id
       left join lateral (
         select percentile_cont(0.5) within group (order by latency_ms) filter (where ok) as p50,
                percentile_cont(0.99) within group (order by latency_ms) filter (where ok) as p99,
                count(*) as total, count(*) filter (where ok) as ok_count
           from endpoint_observation where endpoint_id = e.id and at >= now() - interval '24 hours') o on true
      where e.deleted_at is null and e.status in ('active', 'degraded')
      order by e.slug, e.path_suffix`,
  );
  return rows.map((r) => ({
    path: `/v1/${r.slug}/${r.path_suffix}`,
    seller: String(r.wallet),
    method: 'POST',
    price: String(r.price),
    unit: String(r.unit),
    description: String(r.desc),
    networks: [...NETWORKS],
    mode: r.mode as 'paywall' | 'proxy',
    status: String(r.status),
    p50_latency_ms: r.p50 === null ? null : Math.round(Number(r.p50)),
    p99_latency_ms: r.p99 === null ? null : Math.round(Number(r.p99)),
    success_rate_24h: Number(r.total) > 0 ? Math.round((Number(r.ok_count) / Number(r.total)) * 10_000) / 10_000 : null,
  }));
}
