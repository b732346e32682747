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
import { reliabilityRows, type ReliabilityRow } from './endpoint-store.ts';

export interface Reliability {
  /** Paid calls served (delivered) over the paid calls that ended over 7 days, 0 to 1; null without paid calls. */
  success_rate_7d: number | null;
  /** Paid calls that ended (delivered or undelivered) over 7 days. */
  paid_calls_7d: number;
  /** Upstream latency of successful answers (calls and probes) over 24 h, in ms; null without data. */
  p50_latency_ms: number | null;
  p95_latency_ms: number | null;
  /** Share of probes that succeeded, 0 to 1; null without probes in the window. */
  uptime_24h: number | null;
  uptime_7d: number | null;
  /** When these figures were computed (ISO time); they are at most the cache's lifetime old. */
  as_of: string;
}

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
