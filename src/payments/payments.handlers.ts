/**
 * Payments' own operations: the description of the session-token rail and the Solana
 * facilitator (co-signs a buyer's USDC transfer as fee payer).
 */
import type { ChainAdapterSet } from '../chains/create-chain-adapters.ts';
import type { OperationId } from '../generated/operation-ids.ts';
import type { Handler } from '../http/server.ts';
import { getSessionTokenHandler } from './session-token.handler.ts';
import { solanaFacilitatorHandler } from './solana-facilitator.handler.ts';

export interface PaymentHandlerDeps {
  /** null: no chain configured (both answer 503). */
  adapters: ChainAdapterSet | null;
  /** The least USDC a co-signed transfer must move to the service. */
  facilitatorMinAtomic: bigint;
}

export const createPaymentHandlers = (deps: PaymentHandlerDeps): Partial<Record<OperationId, Handler>> => ({
  getSessionToken: getSessionTokenHandler(deps.adapters),
  solanaFacilitator: solanaFacilitatorHandler(deps.adapters, { minAtomic: deps.facilitatorMinAtomic }),
});
