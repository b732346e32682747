/**
 * POST /v1/_seller/{wallet}/payouts: a seller's withdrawable earnings paid now rather than at
 * the next daily settlement. The request only writes the payout (the intent, claiming the rows,
 * exactly as the daily run does) and answers 202; the scheduler sends it on the crash-safe path
 * of payout-worker.ts. The destination is always the seller's registered wallet on its payout
 * chain: the body carries nothing but the signature (SignedRequest has additionalProperties
 * false, so a `to` is a 400 invalid_input before this code runs).
 *
 * Rules (docs/settlement.md): PAYOUT_MIN_ATOMIC applies here as at the daily run (a payout below
 * it costs the treasury more in fees than it is worth: 409 nothing_to_pay); one requested payout
 * per PAYOUT_REQUEST_INTERVAL_SECONDS (429 rate_limited with Retry-After); none while another
 * payout of the seller is unfinished (409 payout_in_progress).
 */
import type { OperationId } from '../generated/operation-ids.ts';
import type { Handler } from '../http/server.ts';
import { AppError } from '../http/app-error.ts';
import { createSignatureCheck, type SignatureDeps } from '../http/with-seller-signature.ts';
import { walletPayload } from '../http/wallet-signature.ts';
import { refuseSuspended, requireSeller } from '../sellers/seller-store.ts';
import type { PayoutRow, SellerRow } from '../db/rows.ts';
import type { SettlementConfig } from '../config.ts';
import { sqlOf, type Database } from '../db/orm.ts';
import { claimPayouts, findPayout, lockSellers, payoutRequestState } from './payout-store.ts';

export interface SettlementHandlerDeps {
  orm: Database;
  config: SettlementConfig;
  signature: SignatureDeps;
  /** Wakes the scheduler so the payout is sent now, not at the next tick. */
  kick: () => void;
}

const payoutJson = (seller: Pick<SellerRow, 'wallet'>, p: PayoutRow) => ({
  id: p.id,
  wallet: seller.wallet,
  chain: p.chain,
  to: p.wallet,
  amount_atomic: p.amount,
  status: p.status,
  tx: p.tx,
  created_at: Number(p.created_at),
});

/** The handler without authentication: the signature check (here) wraps it; a Bearer key with scope payout:request may stand in for it (src/policies.ts). */
export function requestPayoutHandler(deps: SettlementHandlerDeps): Handler {
  return async (ctx) => {
    const em = sqlOf(deps.orm);
    const seller = await requireSeller(em, ctx.params.wallet, 404);
    await refuseSuspended(em, seller);
    const id = await em.transactional(async (tx) => {
      // The seller's lock first: a racing daily run (or a second request) waits, then sees our claims.
      await lockSellers(tx, [seller.id]);
      const state = await payoutRequestState(tx, seller.id, deps.config.requestIntervalSeconds);
      if (state.unfinished > 0) {
        throw new AppError('payout_in_progress', 409, 'A payout of this seller is not finished yet.', { hint: 'Wait until it is confirmed; the account shows it.' });
      }
      if (state.wait_s !== null && state.wait_s > 0) {
        throw new AppError('rate_limited', 429, `One payout may be requested every ${deps.config.requestIntervalSeconds} s.`, {
          hint: `Retry after ${state.wait_s} s`,
          headers: { 'retry-after': String(state.wait_s) },
        });
      }
      const r = await claimPayouts(tx, { sellerIds: [seller.id], cutoff: 'infinity', minAtomic: deps.config.minAtomic, day: null });
      if (r.noDestination) throw new AppError('invalid_input', 400, `The seller has no registered wallet on its payout chain ${seller.payout_chain}.`);
      if (!r.created.length) {
        throw new AppError('nothing_to_pay', 409, `There are no unsettled earnings of at least ${deps.config.minAtomic} atomic units to pay out.`, {
          hint: 'Smaller balances are carried over to a later payout.',
        });
      }
      return r.created[0].id;
    });
    deps.kick();
    const payout = await findPayout(em, id);
    return { status: 202, body: payoutJson(seller, payout!) };
  };
}

export function createSettlementHandlers(deps: SettlementHandlerDeps): Partial<Record<OperationId, Handler>> {
  const signed = createSignatureCheck(deps.signature);
  return {
    requestPayout: signed({ action: 'request_payout', from: 'body', singleUse: true, payloadOf: (ctx) => walletPayload(ctx.params.wallet) }, requestPayoutHandler(deps)),
  };
}
