/**
 * x402 v2 beside v1 on the same endpoints. The 402 body stays the spec's v1 quote; the same
 * answer carries the v2 PaymentRequired in the `PAYMENT-REQUIRED` header (CAIP-2 networks,
 * `amount`, `resource` as an object). A v2 proof arrives in `PAYMENT-SIGNATURE` and goes through
 * the same rails as X-Payment; a paid answer carries `PAYMENT-RESPONSE` beside X-PAYMENT-RESPONSE.
 */
import type { Network } from '../chains/chain-adapter.ts';
import type { PaymentQuote } from './quote.ts';
import { decodeBase64Json, receiptFrom, type Receipt } from './receipt.ts';
import { AppError } from '../http/app-error.ts';

/** CAIP-2 ids of the chains (Solana: the genesis hash prefix of mainnet-beta). */
export const CAIP2: Record<Network, string> = {
  base: 'eip155:8453',
  polygon: 'eip155:137',
  solana: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
};
const NETWORK_OF: Record<string, Network> = Object.fromEntries(Object.entries(CAIP2).map(([n, id]) => [id, n as Network]));

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

export function paymentRequiredV2(quote: PaymentQuote, extensions?: Record<string, unknown>) {
  const first = quote.accepts[0];
  return {
    x402Version: 2,
    ...(extensions ? { extensions } : {}),
    error: quote.error,
    resource: { url: first.resource, description: first.description, mimeType: first.mimeType },
    accepts: quote.accepts.map((a) => ({
      scheme: a.scheme,
      network: CAIP2[a.network],
      amount: a.maxAmountRequired,
      asset: a.asset,
      payTo: a.payTo,
      maxTimeoutSeconds: a.maxTimeoutSeconds,
      extra: a.extra,
    })),
  };
}

/** The `PAYMENT-REQUIRED` header of a 402 answer (extensions: e.g. `bazaar`, how to call the endpoint). */
export const paymentRequiredHeader = (quote: PaymentQuote, extensions?: Record<string, unknown>) => ({ 'payment-required': b64(paymentRequiredV2(quote, extensions)) });

/** `X-PAYMENT-RESPONSE` (v1 network names) and `PAYMENT-RESPONSE` (CAIP-2) of a paid answer. */
export const paymentResponseHeaders = (s: { tx: string; network: Network; payer: string }) => ({
  'x-payment-response': b64({ success: true, transaction: s.tx, network: s.network, payer: s.payer }),
  'payment-response': b64({ success: true, transaction: s.tx, network: CAIP2[s.network], payer: s.payer }),
});

const invalid = (message: string) => new AppError('invalid_payment', 402, message, { hint: 'PAYMENT-SIGNATURE is base64 JSON {x402Version: 2, accepted, payload}; see the PAYMENT-REQUIRED header of the quote.' });

/** A v2 PaymentPayload: `accepted` names the chosen requirement; the payload is the v1 `exact` one. */
export function decodePaymentSignature(header: string): Receipt {
  const doc = decodeBase64Json(header, 'PAYMENT-SIGNATURE');
  if (doc.x402Version !== 2) throw invalid('PAYMENT-SIGNATURE x402Version must be 2.');
  const accepted = doc.accepted;
  if (!accepted || typeof accepted !== 'object' || Array.isArray(accepted)) throw invalid('PAYMENT-SIGNATURE accepted must be the chosen entry of the quote.');
  const { network, scheme } = accepted as Record<string, unknown>;
  const ours = typeof network === 'string' ? NETWORK_OF[network] : undefined;
  if (!ours) throw invalid(`PAYMENT-SIGNATURE accepted.network must be one of ${Object.values(CAIP2).join(', ')}.`);
  return receiptFrom(ours, scheme, doc.payload, 'PAYMENT-SIGNATURE');
}
