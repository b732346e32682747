/**
 * Reliability an agent can see, per live seller endpoint: the success rate of paid calls, the
 * upstream latency (p50, p95) and the probes' uptime over 24 h and 7 days (endpoint-store.ts
 * reliabilityRows says where each figure comes from). Every instance reads the same database,
 * so the figures are the same whichever instance answers.
 *
 * Cheap enough for every listing: one set-based statement for all endpoints, its result kept
 * per process for `ttlMs` (30 s in the app), so a figure is at most that old; concurrent
 * readers of an expired map share one query.
 */
import { sqlOf, type Database } from '../db/orm.ts';
import type { components } from '../generated/openapi.ts';
import { reliabilityRows, type ReliabilityRow } from './endpoint-store.ts';

/** The figures as the contract names them (openapi.yaml `Reliability`). */
export type Reliability = components['schemas']['Reliability'];

const ratio = (ok: string | number, total: string | number) => (Number(total) > 0 ? Math.round((Number(ok) / Number(total)) * 10_000) / 10_000 : null);
const ms = (v: number | string | null) => (v === null ? null : Math.round(Number(v)));

export function reliabilityOf(r: ReliabilityRow, asOf: Date): Reliability {
  const ended = Number(r.delivered_7d) + Number(r.undelivered_7d);
  return {
    success_rate_7d: ratio(r.delivered_7d, ended),
    paid_calls_7d: ended,
    p50_latency_ms: ms(r.p50),
    p95_latency_ms: ms(r.p95),
    uptime_24h: ratio(r.probes_ok_24h, r.probes_24h),
    uptime_7d: ratio(r.probes_ok_7d, r.probes_7d),
    as_of: asOf.toISOString(),
  };
}

export interface ReliabilityCache {
  /** Figures by endpoint id (live endpoints only), at most `ttlMs` old. */
  byEndpoint(): Promise<Map<number, Reliability>>;
}

export function createReliabilityCache(orm: Database, opts: { ttlMs: number; now?: () => number }): ReliabilityCache {
  const now = opts.now ?? Date.now;
  let cached: { at: number; map: Promise<Map<number, Reliability>> } | null = null;
  const load = async () => {
    const asOf = new Date(now());
    const rows = await reliabilityRows(sqlOf(orm));
    return new Map(rows.map((r) => [Number(r.endpoint_id), reliabilityOf(r, asOf)]));
  };
  return {
    byEndpoint() {
      if (!cached || now() - cached.at >= opts.ttlMs) {
        const entry = { at: now(), map: load() };
        // A failed read is not kept: the next listing tries again.
        entry.map.catch(() => {
          if (cached === entry) cached = null;
        });
        cached = entry;
      }
      return cached.map;
    },
  };
}
