/**
 * The settlement's scheduled task, run by every instance at every scheduler tick:
 *
 * 1. recovery: work the due, unfinished payouts (those a crash, a failure or a pending
 *    transaction left) before any new work;
 * 2. the daily settlement, once the day boundary (00:00 UTC) has passed: the instance whose
 *    insert of the day's settlement_run row wins runs it (a run whose instance died is taken
 *    over when its lease ends); it writes one payout per seller whose unsettled net earnings
 *    created before the cut-off reach PAYOUT_MIN_ATOMIC, and carries the others over;
 * 3. the payouts just written (and those a requested payout queued).
 *
 * Payouts are leased one batch at a time (FOR UPDATE SKIP LOCKED), so instances share them and
 * a payout is worked on by one instance at a time. Within a chain they are sent one after the
 * other (the treasury's nonce / fee account is one sequence); chains proceed in parallel, so a
 * slow or failing chain does not hold the others.
 */
import type { ScheduledTask } from '../jobs/scheduler.ts';
import { databaseNow, sqlOf } from '../db/orm.ts';
import {
  addToSettlementRun,
  claimPayouts,
  finishSettlementRun,
  leaseDuePayouts,
  retrySettlementRunSoon,
  sellerIdsAfter,
  settlementRunFinished,
  takeSettlementRun,
} from './payout-store.ts';
import type { PayoutRow } from '../db/rows.ts';
import { markPaid, workPayout, type PayoutWorkerDeps } from './payout-worker.ts';

export interface SettlementDeps extends PayoutWorkerDeps {
  /** The clock that decides the settlement day; tests move it to "midnight". */
  now: () => Date;
}

/** Sellers per claim transaction (one set-based statement each). */
const SELLER_BATCH = 1000;
const PAYOUT_BATCH = 200;

/** 00:00 UTC of the clock's day: rows created before it are settled by that day's run. */
export function settlementCutoff(now: Date): { day: string; cutoff: Date } {
  const cutoff = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  return { day: cutoff.toISOString().slice(0, 10), cutoff };
}

export function createSettlementJobs(deps: SettlementDeps): ScheduledTask {
  // The last day known finished (by any instance): its run is not attempted again at every tick.
  let finishedDay: string | null = null;
  return {
    name: 'settlement',
    async run(stopping) {
      await workDuePayouts(deps, stopping);
      if (stopping.aborted || finishedDay === settlementCutoff(deps.now()).day) return;
      const r = await runDailySettlement(deps);
      if (r.finished) finishedDay = r.day;
      if (r.ran) await workDuePayouts(deps, stopping);
    },
  };
}

/** Works the payouts due when the pass started (a payout rescheduled meanwhile waits for the next pass). */
export async function workDuePayouts(deps: PayoutWorkerDeps, stopping: AbortSignal): Promise<void> {
  const em = sqlOf(deps.orm);
  // The database's clock at full precision, like the probe jobs.
  const t = await databaseNow(em);
  while (!stopping.aborted) {
    const leased = await leaseDuePayouts(em, { dueBy: t, limit: PAYOUT_BATCH, leaseMs: deps.config.leaseMs });
    if (!leased.length) break;
    const byChain = new Map<string, PayoutRow[]>();
    for (const p of leased) {
      const lane = byChain.get(p.chain);
      if (lane) lane.push(p);
      else byChain.set(p.chain, [p]);
    }
    await Promise.all(
      [...byChain.values()].map(async (lane) => {
        const confirmed: PayoutRow[] = [];
        for (const p of lane) {
          const outcome = await workPayout(deps, p).catch((err) => {
            // The database failed us: the payout's lease runs out and a later pass takes it again.
            deps.log.error('payout job failed', { payout_id: p.id, err });
            return 'later' as const;
          });
          if (outcome === 'confirmed') confirmed.push(p);
        }
        await markPaid(deps, confirmed);
      }),
    );
  }
}

/**
 * Runs today's settlement if no instance has (or is), and returns whether it ran. Each batch of
 * sellers is one transaction that writes their payouts, claims their rows and adds to the run's
 * totals, so a run taken over after a crash continues where the dead one stopped.
 */
export async function runDailySettlement(deps: SettlementDeps): Promise<{ day: string; ran: boolean; finished: boolean }> {
  const em = sqlOf(deps.orm);
  const { day, cutoff } = settlementCutoff(deps.now());
  if (!(await takeSettlementRun(em, { day, cutoff: cutoff.toISOString(), leaseMs: deps.config.leaseMs }))) {
    // Another instance has it: finished, or still running (then ask again at a later pass).
    return { day, ran: false, finished: await settlementRunFinished(em, day) };
  }
  const started = performance.now();
  const log = deps.log.child({ settlement_day: day });
  log.info('daily settlement started', { cutoff: cutoff.toISOString() });
  try {
    let after = 0;
    for (;;) {
      const ids = await sellerIdsAfter(em, after, SELLER_BATCH);
      if (!ids.length) break;
      after = ids[ids.length - 1];
      const r = await em.transactional(async (tx) => {
        const claimed = await claimPayouts(tx, { sellerIds: ids, cutoff: cutoff.toISOString(), minAtomic: deps.config.minAtomic, day });
        const total = claimed.created.reduce((s, c) => s + BigInt(c.amount), 0n);
        const carried = Object.values(claimed.carriedOver).reduce((s, n) => s + n, 0);
        const renewed = await addToSettlementRun(tx, day, { sellers: claimed.created.length, total, carriedOver: carried, leaseMs: deps.config.leaseMs });
        // Lost the run (our lease ran out and another instance finished it): write nothing.
        if (!renewed) throw new Error(`settlement run ${day} is no longer ours`);
        return claimed;
      });
      for (const [chain, n] of Object.entries(r.carriedOver)) deps.metrics.payouts.inc({ chain, outcome: 'carried_over' }, n);
      if (r.noDestination) log.warn('sellers with earnings but no wallet on their payout chain were carried over', { sellers: r.noDestination });
    }
    const run = await finishSettlementRun(em, day);
    const seconds = (performance.now() - started) / 1000;
    deps.metrics.settlementRuns.inc({ outcome: 'success' });
    deps.metrics.settlementDuration.observe(seconds);
    log.info('daily settlement written; payouts follow', { payouts: run.sellers, total_atomic: run.total_atomic, carried_over: run.carried_over, seconds });
    return { day, ran: true, finished: true };
  } catch (err) {
    deps.metrics.settlementRuns.inc({ outcome: 'failure' });
    log.error('daily settlement failed; retried at a later pass', { err });
    // Let the next pass (of any instance) try again soon instead of after the whole lease.
    await retrySettlementRunSoon(em, day).catch(() => undefined);
    return { day, ran: false, finished: false };
  }
}
