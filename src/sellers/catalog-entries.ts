/**
 * Seller endpoints in /v1/_meta: active and degraded ones, with measured p50/p99 upstream
 * latency and success rate over the last 24 h (probes and live calls), so agents can choose.
 */
import { sqlOf, type Database } from '../db/orm.ts';
import { NETWORKS } from '../chains/chain-adapter.ts';
import type { CatalogEntry } from '../catalog/meta.ts';
import { catalogRows } from './endpoint-store.ts';
import type { ReliabilityCache } from './reliability.ts';

export async function listSellerCatalogEntries(orm: Database, reliability: ReliabilityCache): Promise<CatalogEntry[]> {
  const [rows, figures] = await Promise.all([catalogRows(sqlOf(orm)), reliability.byEndpoint()]);
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
    reliability: figures.get(Number(r.id)) ?? null,
  }));
}
