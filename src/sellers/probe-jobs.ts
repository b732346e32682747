/**
 * The probe jobs of the scheduler. An endpoint's `next_probe_at` is its job: due rows of live
 * endpoints are claimed with `FOR UPDATE SKIP LOCKED` and leased (next_probe_at moves past the
 * probe's timeout) in one statement, so concurrent instances never take the same job; a job of
 * an instance that died is due again when the lease ends. Pending endpoints get an activation
 * round, active and degraded ones a health probe.
 */
import type { ScheduledTask } from '../jobs/scheduler.ts';
import type { UpstreamClient } from '../proxy/upstream-client.ts';
import { databaseNow, sqlOf } from '../db/orm.ts';
import { purgeSignatureUses } from '../http/signature-store.ts';
import { claimDueProbes, purgeObservations, scheduleHealthProbe } from './endpoint-store.ts';
import type { EndpointRow } from '../db/rows.ts';
import { recordUpstreamOutcome, runActivationRound, type LifecycleDeps } from './lifecycle.ts';
import { probeUpstream } from './probe-upstream.ts';

const BATCH = 10;
const PURGE_EVERY_MS = 10 * 60_000;

export function createProbeJobs(deps: LifecycleDeps & { client: UpstreamClient }): ScheduledTask {
  const cfg = deps.config;
  const leaseMs = cfg.probeTimeoutMs + 30_000;
  const probe = (url: string, body: unknown, region: string) => probeUpstream(deps.client, url, body, { region, timeoutMs: cfg.probeTimeoutMs });
  let lastPurge = 0;
  let healthTurn = 0;

  // A pass takes the jobs due when it started, so a job rescheduled during the pass (a short
  // health interval) waits for the next pass instead of looping.
  const claim = (passStart: string) => claimDueProbes(sqlOf(deps.orm), { dueBy: passStart, limit: BATCH, leaseMs });

  const health = async (e: EndpointRow) => {
    const region = cfg.probeRegions[healthTurn++ % cfg.probeRegions.length];
    const r = await probe(e.upstream_url, e.sample_body, region);
    deps.metrics.probes.inc({ region, outcome: r.ok ? 'ok' : 'failed' });
    await recordUpstreamOutcome(deps, e.id, { ok: r.ok, source: 'health', region, statusCode: r.status_code, latencyMs: r.latency_ms, error: r.error, errorCode: 'probe_failed' });
    // The next health probe, unless the outcome suspended it or the endpoint changed meanwhile.
    await scheduleHealthProbe(sqlOf(deps.orm), e, cfg.healthIntervalMs);
  };

  const purge = async () => {
    if (Date.now() - lastPurge < PURGE_EVERY_MS) return;
    lastPurge = Date.now();
    const em = sqlOf(deps.orm);
    await purgeSignatureUses(em);
    await purgeObservations(em);
  };

  return {
    name: 'seller-probes',
    async run(stopping) {
      // The database's clock at full precision (a value truncated to milliseconds could make a
      // job rescheduled a millisecond ago look not yet due).
      const t = await databaseNow(sqlOf(deps.orm));
      // Shutting down: finish the jobs in hand, claim no more (their leases are ours until then).
      while (!stopping.aborted) {
        const jobs = await claim(t);
        if (!jobs.length) break;
        await Promise.all(
          jobs.map((e) =>
            (e.status === 'pending' ? runActivationRound({ ...deps, probe }, e) : health(e)).catch((err) => deps.log.error('probe job failed', { endpoint_id: e.id, err })),
          ),
        );
      }
      await purge();
    },
  };
}
