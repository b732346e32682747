/**
 * The seller marketplace's operations, each wrapped in the wallet-signature check with its
 * action, where it carries the signature, and whether the signature is single-use. Whether a
 * Bearer API key may stand in for the signature, and the rate limits, are the policy table's
 * (src/policies.ts), applied in app.ts.
 */
import type { OperationId } from '../generated/operation-ids.ts';
import type { PayoutChain } from '../chains/payout-sender.ts';
import type { Handler } from '../http/server.ts';
import { AppError } from '../http/app-error.ts';
import { createSignatureCheck } from '../http/with-seller-signature.ts';
import { addEndpointPayload, idPayload, updateEndpointPayload, walletPayload, type EndpointFields } from '../http/wallet-signature.ts';
import { registerSellerHandler } from './register-seller.handler.ts';
import { addEndpointHandler, deleteEndpointHandler, listEndpointsHandler, mergedUpdate, updateEndpointHandler, type EndpointHandlerDeps } from './endpoint.handlers.ts';
import { sellerErrorsHandler, sellerStatsHandler } from './seller-reports.handlers.ts';
import { sqlOf } from '../db/orm.ts';
import { findEndpoint, resumeSuspendedEndpoints } from './endpoint-store.ts';
import { reactivateSeller, requireSeller, sellerJson, sellerWallets } from './seller-store.ts';

export interface SellerHandlerDeps extends EndpointHandlerDeps {
  serviceName: string;
  /** The chains this deployment can pay sellers on (configuredPayoutChains). */
  payoutChains: readonly PayoutChain[];
  /** A registration named this payout chain (the devnet starts a lazily started chain then). */
  onPayoutChain?: (chain: PayoutChain) => void;
  /** Unix seconds; tests of the signature window may inject it. */
  now?: () => number;
}

export function createSellerHandlers(deps: SellerHandlerDeps): Partial<Record<OperationId, Handler>> {
  const signatureDeps = { serviceName: deps.serviceName, orm: deps.orm, now: deps.now, onRefusal: (reason: string) => deps.metrics.signatureRefusals.inc({ reason }) };
  const signed = createSignatureCheck(signatureDeps);
  const walletAsSent = (ctx: { params: Record<string, string> }) => walletPayload(ctx.params.wallet);
  return {
    registerSeller: registerSellerHandler({ ...signatureDeps, payoutChains: deps.payoutChains, onPayoutChain: deps.onPayoutChain }),
    addSellerEndpoint: signed({ action: 'add_endpoint', from: 'body', singleUse: true, payloadOf: (ctx) => addEndpointPayload(ctx.body as EndpointFields) }, addEndpointHandler(deps)),
    listSellerEndpoints: signed({ action: 'list_endpoints', from: 'query', singleUse: false, payloadOf: walletAsSent }, listEndpointsHandler(deps)),
    updateSellerEndpoint: signed(
      {
        action: 'update_endpoint',
        from: 'body',
        singleUse: true,
        // The signed values are those the endpoint has after the update.
        payloadOf: async (ctx) => {
          const endpoint = await findEndpoint(sqlOf(deps.orm), Number(ctx.params.id));
          if (!endpoint) throw new AppError('endpoint_not_found', 404, `No endpoint ${ctx.params.id} for this wallet.`);
          return updateEndpointPayload(mergedUpdate(endpoint, ctx.body as object));
        },
      },
      updateEndpointHandler(deps),
    ),
    deleteSellerEndpoint: signed({ action: 'delete_endpoint', from: 'headers', singleUse: true, payloadOf: (ctx) => idPayload(Number(ctx.params.id)) }, deleteEndpointHandler(deps)),
    resumeSeller: signed({ action: 'resume', from: 'body', singleUse: true, payloadOf: walletAsSent }, resumeHandler(deps)),
    getSellerStats: signed({ action: 'stats', from: 'query', singleUse: false, payloadOf: walletAsSent }, sellerStatsHandler(deps.orm)),
    getSellerErrors: signed({ action: 'errors', from: 'query', singleUse: false, payloadOf: walletAsSent }, sellerErrorsHandler(deps.orm)),
  };
}

/** Lifts the suspension; suspended endpoints go back to pending and are probed again at once. */
function resumeHandler(deps: SellerHandlerDeps): Handler {
  return async (ctx) => {
    const em = sqlOf(deps.orm);
    const seller = await requireSeller(em, ctx.params.wallet, 404);
    const resumed = await em.transactional(async (tx) => {
      await reactivateSeller(tx, seller.id);
      return resumeSuspendedEndpoints(tx, seller.id);
    });
    if (resumed.length) {
      for (let i = 0; i < resumed.length; i++) deps.metrics.transitions.inc({ from: 'suspended', to: 'pending' });
      deps.kickProbes();
    }
    const ids = resumed.map((r) => r.id).sort((a, b) => a - b);
    return { status: 200, body: { ...sellerJson({ ...seller, status: 'active' }, await sellerWallets(em, seller.id)), resumed_endpoint_ids: ids } };
  };
}
