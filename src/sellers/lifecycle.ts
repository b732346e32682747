/**
 * The endpoint lifecycle (DESIGN.md, Endpoint lifecycle), every threshold from configuration:
 *  - pending -> active: one round of probes, one per probe region, in parallel; all 200 + JSON and
 *    their p95 latency under the threshold. Otherwise the round is retried with back-off.
 *  - active -> degraded: `degradeAfterFailures` consecutive failures (health probes or live calls).
 *  - degraded -> active: `recoverAfterSuccesses` consecutive successes.
 *  - degraded -> suspended: `suspendAfterFailures` consecutive failures (the streak that degraded
 *    it included), or `suspendAfterDegradedMs` degraded without a success. The seller is then
 *    suspended too, until it resumes (suspended endpoints go back to pending).
 * Paid calls count on their own: an upstream can tell a health probe (no X-Paycall-* headers)
 * from a paid call, so while the last live call failed (`callFailures` > 0) a probe's success
 * proves nothing about what buyers get: it neither breaks the failure streak, nor counts toward
 * recovery, nor restarts the degraded clock. Only a successful live call clears `callFailures`.
 * An upstream that answers probes and fails paid calls therefore degrades and is suspended at the
 * documented thresholds, counted on its paid calls alone.
 * Outcomes are applied under a row lock, so concurrent live calls and probes on several
 * instances count every outcome once.
 */
import type { SellersConfig } from '../config.ts';
import type { Logger } from '../log.ts';
import { finishActivationRound, lockEndpoint, recordObservation, writeHealthState } from './endpoint-store.ts';
import { countError, suspendSeller } from './seller-store.ts';
import type { EndpointStatus, ProbeResult } from '../db/entities.ts';
import type { EndpointRow } from '../db/rows.ts';
import type { SellerMetrics } from './seller-metrics.ts';
import { sqlOf, type Database } from '../db/orm.ts';

export interface HealthState {
  status: EndpointStatus;
  /** Consecutive failures of probes and calls (a success that proves nothing does not break it). */
  consecutiveFailures: number;
  consecutiveSuccesses: number;
  /** Consecutive failed live calls; only a successful live call clears it. */
  callFailures: number;
  /** ms; when the endpoint became degraded or last succeeded while degraded. */
  degradedSince: number | null;
}

export type Thresholds = Pick<SellersConfig, 'degradeAfterFailures' | 'recoverAfterSuccesses' | 'suspendAfterFailures' | 'suspendAfterDegradedMs'>;

/**
 * The state after one upstream outcome of an active or degraded endpoint (others are unchanged).
 * `source`: 'call' for a live paid call, 'health' for a health probe.
 */
export function nextHealthState(s: HealthState, ok: boolean, nowMs: number, t: Thresholds, source: 'health' | 'call'): HealthState {
  if (s.status !== 'active' && s.status !== 'degraded') return s;
  if (ok) {
    if (source === 'health' && s.callFailures > 0) {
      // Proves nothing while paid calls fail: the streaks and the degraded clock stay, and the
      // clock is still checked (an upstream that only ever answers probes is suspended on time).
      if (s.status === 'degraded' && nowMs - (s.degradedSince ?? nowMs) >= t.suspendAfterDegradedMs) return { ...s, status: 'suspended' };
      return s;
    }
    const successes = s.consecutiveSuccesses + 1;
    if (s.status === 'degraded' && successes >= t.recoverAfterSuccesses) return { status: 'active', consecutiveFailures: 0, consecutiveSuccesses: successes, callFailures: 0, degradedSince: null };
    return { status: s.status, consecutiveFailures: 0, consecutiveSuccesses: successes, callFailures: 0, degradedSince: s.status === 'degraded' ? nowMs : null };
  }
  const failures = s.consecutiveFailures + 1;
  const callFailures = source === 'call' ? s.callFailures + 1 : s.callFailures;
  if (s.status === 'active') {
    if (failures >= t.degradeAfterFailures) return { status: 'degraded', consecutiveFailures: failures, consecutiveSuccesses: 0, callFailures, degradedSince: nowMs };
    return { ...s, consecutiveFailures: failures, consecutiveSuccesses: 0, callFailures };
  }
  const since = s.degradedSince ?? nowMs;
  if (failures >= t.suspendAfterFailures || nowMs - since >= t.suspendAfterDegradedMs) return { status: 'suspended', consecutiveFailures: failures, consecutiveSuccesses: 0, callFailures, degradedSince: since };
  return { status: 'degraded', consecutiveFailures: failures, consecutiveSuccesses: 0, callFailures, degradedSince: since };
}

/** p95 by nearest rank. */
export function p95(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(0.95 * sorted.length) - 1)] ?? 0;
}

export interface LifecycleDeps {
  orm: Database;
  config: SellersConfig;
  metrics: SellerMetrics;
  log: Logger;
}

export interface UpstreamOutcome {
  ok: boolean;
  /** 'health' for a periodic probe, 'call' for a live paid call. */
  source: 'health' | 'call';
  region: string;
  statusCode: number | null;
  latencyMs: number | null;
  /** Why it failed (probe text); for calls the error code answered (upstream_5xx, upstream_timeout). */
  error: string | null;
  /** The code counted in the seller's hourly error counts for a failure. */
  errorCode?: string;
}

/**
 * Applies one outcome to an endpoint (live calls of the paid forwarding report here as well):
 * records the observation, moves the state and suspends the seller with its last endpoint
 * failure. Returns the new status, or null when the endpoint is gone.
 */
export async function recordUpstreamOutcome(deps: LifecycleDeps, endpointId: number, o: UpstreamOutcome): Promise<EndpointStatus | null> {
  const result = await sqlOf(deps.orm).transactional(async (tx) => {
    const e = await lockEndpoint(tx, endpointId);
    if (!e) return null;
    const probe: ProbeResult = { at: Math.floor(Date.now() / 1000), region: o.region, ok: o.ok, status_code: o.statusCode, latency_ms: o.latencyMs, error: o.error };
    await recordObservation(tx, e.id, o.source, probe);
    if (!o.ok) await countError(tx, e.id, e.seller_id, o.errorCode ?? 'probe_failed');
    const before: HealthState = {
      status: e.status,
      consecutiveFailures: e.consecutive_failures,
      consecutiveSuccesses: e.consecutive_successes,
      callFailures: e.call_failures,
      degradedSince: e.degraded_at_s === null ? null : Number(e.degraded_at_s) * 1000,
    };
    const after = nextHealthState(before, o.ok, Date.now(), deps.config, o.source);
    await writeHealthState(tx, e.id, after, o.source, probe);
    if (after.status === 'suspended' && before.status !== 'suspended') await suspendSeller(tx, e.seller_id);
    return { from: before.status, to: after.status };
  });
  if (result && result.from !== result.to) {
    deps.metrics.transitions.inc({ from: result.from, to: result.to });
    deps.log.info('endpoint state changed', { endpoint_id: endpointId, from: result.from, to: result.to });
  }
  return result?.to ?? null;
}

/**
 * One activation round of a pending endpoint: a probe per region, in parallel. Applied only if
 * the endpoint is still pending with the same upstream (an update or delete during the round
 * wins).
 */
export async function runActivationRound(deps: LifecycleDeps & { probe: (url: string, body: unknown, region: string) => Promise<ProbeResult> }, e: EndpointRow): Promise<void> {
  const results = await Promise.all(deps.config.probeRegions.map((region) => deps.probe(e.upstream_url, e.sample_body, region)));
  for (const r of results) deps.metrics.probes.inc({ region: r.region, outcome: r.ok ? 'ok' : 'failed' });
  const allOk = results.every((r) => r.ok);
  const latency = p95(results.map((r) => r.latency_ms ?? Number.POSITIVE_INFINITY));
  const activate = allOk && latency < deps.config.activationP95Ms;
  const shown = activate ? results.reduce((a, b) => ((b.latency_ms ?? 0) > (a.latency_ms ?? 0) ? b : a)) : (results.find((r) => !r.ok) ?? { ...results[0], ok: false, error: `p95 latency ${latency} ms is not under ${deps.config.activationP95Ms} ms` });
  const changed = await sqlOf(deps.orm).transactional(async (tx) => {
    for (const r of results) await recordObservation(tx, e.id, 'activation', r);
    if (!activate) {
      const failed = results.filter((r) => !r.ok).length || 1;
      for (let i = 0; i < failed; i++) await countError(tx, e.id, e.seller_id, 'probe_failed');
    }
    const delay = activate ? deps.config.healthIntervalMs : Math.min(deps.config.pendingRetryBaseMs * 2 ** Math.min(e.probe_attempts, 30), deps.config.pendingRetryMaxMs);
    return finishActivationRound(tx, e, { activate, shown, delayMs: delay });
  });
  if (changed && activate) {
    deps.metrics.transitions.inc({ from: 'pending', to: 'active' });
    deps.log.info('endpoint state changed', { endpoint_id: e.id, from: 'pending', to: 'active' });
  }
}
