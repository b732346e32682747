/**
 * Takes one payout a step further, crash-safely. The payout row says where it stands, so the
 * same function is both the normal path and the recovery after a crash at any point:
 *
 *   no tx recorded  -> sign (prepare) -> record tx + raw + validUntil -> broadcast -> look up
 *   tx recorded     -> look it up first:
 *                        confirmed -> mark the payout and its ledger rows (one transaction)
 *                        pending   -> look again later
 *                        not_found -> broadcast the same raw transaction again (it may still land)
 *                        expired   -> it can never land: sign a new one
 *                        failed    -> landed and failed: back-off, then sign a new one
 *
 * Nothing is broadcast that is not recorded first, and a recorded transaction is looked up
 * before anything new is signed, so a payout is sent at most once whatever the crash point.
 * An error (RPC down, treasury empty) is recorded on the payout with a back-off; it never
 * stops the other payouts of the pass.
 */
import type { PayoutSender, PayoutSenders, PreparedPayout } from '../chains/payout-sender.ts';
import type { SettlementConfig } from '../config.ts';
import { sqlOf, type Database, type Sql } from '../db/orm.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { markConfirmed, recordFailure, recordPrepared, recordWaiting } from './payout-store.ts';
import type { PayoutRow } from '../db/rows.ts';

/**
 * Points of the payout path where tests pause or kill the process: intent written (claimed),
 * tx recorded and not broadcast (before-send), broadcast and not confirmed (after-send),
 * confirmed on chain and its rows not marked yet (after-confirm).
 */
export const HOOK_POINTS = ['claimed', 'before-send', 'after-send', 'after-confirm'] as const;
export type HookPoint = (typeof HOOK_POINTS)[number];
export interface SettlementHooks {
  at(point: HookPoint, payout: { id: number; chain: string }): void | Promise<void>;
}

export interface PayoutWorkerDeps {
  orm: Database;
  senders: PayoutSenders;
  config: SettlementConfig;
  metrics: Metrics;
  log: Logger;
  hooks?: SettlementHooks;
}

const preparedOf = (p: PayoutRow): PreparedPayout | null => (p.tx && p.raw && p.valid_until !== null ? { tx: p.tx, raw: p.raw, validUntil: p.valid_until } : null);

export const retryDelayMs = (cfg: SettlementConfig, attempts: number): number => Math.min(cfg.retryMaxMs, cfg.retryBaseMs * 2 ** Math.min(attempts, 30));

/** What a step left to do: the confirmed payouts are marked by the caller, a batch at a time. */
export type StepOutcome = 'confirmed' | 'later';

/** One step of one payout (see the file comment). A failure is recorded on the payout; throws only when the database does. */
export async function workPayout(deps: PayoutWorkerDeps, p: PayoutRow): Promise<StepOutcome> {
  const em = sqlOf(deps.orm);
  const log = deps.log.child({ payout_id: p.id, chain: p.chain });
  const fail = async (error: string, dropTx: string | null): Promise<StepOutcome> => {
    const retryInMs = retryDelayMs(deps.config, p.attempts);
    deps.metrics.payouts.inc({ chain: p.chain, outcome: 'failed' });
    log.warn('payout attempt failed; retrying later', { error, attempts: p.attempts + 1, retry_in_ms: retryInMs });
    await recordFailure(em, p.id, { error, retryInMs, dropTx });
    return 'later';
  };
  const sender = deps.senders[p.chain];
  if (!sender) return fail(`no payout sender is configured for ${p.chain}`, null);
  try {
    return await step(deps, em, sender, p, fail);
  } catch (e) {
    // Whatever the step was, the row still tells the truth (a recorded tx is looked up next time).
    return fail((e as Error).message ?? String(e), null);
  }
}

/**
 * Marks confirmed payouts and their ledger rows (one statement for the batch) and counts them.
 * A crash before this leaves them confirmed on chain and unmarked: the next pass looks them up
 * (confirmed) and marks them then.
 */
export async function markPaid(deps: PayoutWorkerDeps, confirmed: PayoutRow[]): Promise<void> {
  const em = sqlOf(deps.orm);
  let ids: number[];
  try {
    ids = await markConfirmed(em, confirmed.map((p) => p.id));
  } catch (err) {
    // One bad payout (an amount that no longer matches its rows) must not keep the others unmarked.
    ids = [];
    for (const p of confirmed) {
      try {
        ids.push(...(await markConfirmed(em, [p.id])));
      } catch (e) {
        deps.log.error('a confirmed payout could not be marked', { payout_id: p.id, err: e });
        await recordFailure(em, p.id, { error: (e as Error).message, retryInMs: retryDelayMs(deps.config, p.attempts), dropTx: null }).catch(() => undefined);
      }
    }
    if (confirmed.length > 1) deps.log.warn('marking a batch of payouts failed; marked one by one', { err });
  }
  const marked = new Set(ids);
  for (const p of confirmed) {
    if (!marked.has(p.id)) continue;
    deps.metrics.payouts.inc({ chain: p.chain, outcome: 'confirmed' });
    deps.metrics.settlementPaidOut.inc({ chain: p.chain }, Number(p.amount));
    deps.log.info('payout confirmed', { payout_id: p.id, chain: p.chain, amount: p.amount, tx: p.tx });
  }
}

async function step(
  deps: PayoutWorkerDeps,
  em: Sql,
  sender: PayoutSender,
  p: PayoutRow,
  fail: (error: string, dropTx: string | null) => Promise<StepOutcome>,
): Promise<StepOutcome> {
  const hook = async (point: HookPoint) => deps.hooks?.at(point, { id: p.id, chain: p.chain });
  const confirmed = async (): Promise<StepOutcome> => {
    await hook('after-confirm');
    return 'confirmed';
  };
  const wait = async (note: string | null, broadcast: boolean): Promise<StepOutcome> => {
    if (note) deps.log.warn('payout transaction still unconfirmed', { payout_id: p.id, chain: p.chain, tx: p.tx, seconds: p.broadcast_age_s });
    await recordWaiting(em, p.id, { inMs: deps.config.pollMs, note, broadcast });
    return 'later';
  };
  const late = () =>
    p.broadcast_age_s !== null && p.broadcast_age_s > deps.config.confirmTimeoutSeconds ? `transaction ${p.tx} unconfirmed for ${p.broadcast_age_s} s` : null;
  // After a broadcast: most chains answer at once; otherwise the next pass looks again.
  const afterBroadcast = async (prepared: PreparedPayout): Promise<StepOutcome> => {
    const state = await sender.lookup(prepared);
    if (state === 'confirmed') return confirmed();
    if (state === 'failed') return fail(`transaction ${prepared.tx} failed on chain`, prepared.tx);
    if (state === 'expired') return fail(`transaction ${prepared.tx} expired before landing`, prepared.tx);
    return wait(null, true);
  };

  let prepared = preparedOf(p);
  if (prepared) {
    const state = await sender.lookup(prepared);
    if (state === 'confirmed') return confirmed();
    if (state === 'pending') return wait(late(), true);
    if (state === 'failed') return fail(`transaction ${prepared.tx} failed on chain`, prepared.tx);
    if (state === 'not_found') {
      await sender.broadcast(prepared);
      return afterBroadcast(prepared);
    }
    // expired: it can never land; a new one is signed below (compare-and-set on the old id).
  } else {
    await hook('claimed');
  }
  const previousTx = p.tx;
  prepared = await sender.prepare(p.wallet, BigInt(p.amount));
  // Another worker recorded a transaction meanwhile (our lease ran out): ours is dropped unsent.
  if (!(await recordPrepared(em, p.id, previousTx, prepared))) return 'later';
  p.tx = prepared.tx;
  await hook('before-send');
  await sender.broadcast(prepared);
  deps.metrics.payouts.inc({ chain: p.chain, outcome: 'sent' });
  await hook('after-send');
  return afterBroadcast(prepared);
}
