/**
 * A seller earns only for calls its upstream served. The ledger row is written 'pending' with
 * the receipt, before the run; the run's outcome marks it: 'delivered' when the upstream
 * answered below 500, 'undelivered' when the call ended upstream_5xx or upstream_timeout (the
 * proxy's final failures, forward.ts) or with an upstream 5xx passed back (paywall). The mark is
 * written before the buyer sees any of the answer: an answer that reached a buyer always has its
 * mark, and a crash before the mark leaves a row that is not paid and a buyer with no answer,
 * who may retry with the same receipt (settlement/payout-store.ts pays only 'delivered' rows).
 * A built-in's row is written 'delivered' with the receipt (the service is its own upstream).
 */
import { Readable } from 'node:stream';
import { AppError } from '../http/app-error.ts';
import type { Logger } from '../log.ts';
import type { Payee, RunAnswer } from './sellable.ts';

export type CallDelivery = 'delivered' | 'undelivered';

/** Writes a ledger row's delivery mark (settlement/payout-store.ts markDelivery, bound to the database). */
export type MarkDelivery = (receipt: string, delivery: CallDelivery) => Promise<unknown>;

/** Failures of a forwarded call that mean the upstream did not serve it. */
const UNDELIVERED_CODES = new Set(['upstream_5xx', 'upstream_timeout']);

/** Runs a sold call and marks its ledger row from the outcome (a seller's call only). */
export async function runAndMark(
  mark: MarkDelivery,
  payee: Payee,
  receipt: string,
  log: Logger,
  run: () => Promise<RunAnswer>,
): Promise<RunAnswer> {
  if (payee.kind !== 'seller') return run();
  let answer: RunAnswer;
  try {
    answer = await run();
  } catch (e) {
    if (e instanceof AppError && UNDELIVERED_CODES.has(e.code)) {
      // If this write fails the row stays 'pending': not paid either, which is right for a failed call.
      await mark(receipt, 'undelivered').catch((err: unknown) => log.error('marking an undelivered call failed', { err, endpoint_id: payee.endpointId, receipt }));
    }
    throw e;
  }
  try {
    await mark(receipt, answer.status < 500 ? 'delivered' : 'undelivered');
  } catch (err) {
    // No answer without its mark: the buyer gets a 500 it may retry with the same receipt.
    if (answer.body instanceof Readable) answer.body.destroy();
    throw err;
  }
  return answer;
}
