/**
 * The HTTP face of the payments port, for every paid HTTP operation (the built-ins here, the
 * seller call in sellers/): an HTTP request as the port sees it (payments/sellable.ts): the proof from the
 * header it came in (X-PAYMENT first, then PAYMENT-SIGNATURE, then X-Session-Token; an empty
 * header is no proof), the buyer a `pay` API key named, and the request's id and logger.
 */
import type { PaymentProof, SaleRequest } from '../payments/sellable.ts';
import type { RequestContext } from '../http/server.ts';
import { walletKey } from '../http/wallet-signature.ts';

const PROOF_HEADERS = [
  ['x-payment', 'x-payment'],
  ['payment-signature', 'payment-signature'],
  ['x-session-token', 'session-token'],
] as const satisfies readonly (readonly [string, PaymentProof['kind']])[];

const header = (ctx: RequestContext, name: string) => {
  const v = ctx.req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

export function saleRequestOf(ctx: RequestContext, fingerprint: string): SaleRequest {
  let proof: PaymentProof | undefined;
  for (const [name, kind] of PROOF_HEADERS) {
    const value = header(ctx, name);
    if (value) {
      proof = { kind, value };
      break;
    }
  }
  // A `pay` API key (checked by its wrapper) names the buyer; the payment proof still pays.
  return { fingerprint, proof, buyerWallet: ctx.apiKey ? walletKey(ctx.apiKey.wallet) : null, requestId: ctx.requestId, log: ctx.log };
}
