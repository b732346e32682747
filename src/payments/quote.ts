/**
 * The x402 quote: exactly six accept entries in the contract's order, and the quote record
 * (last quote per request fingerprint) that quote_expired is judged against.
 */
import type { Network } from '../chains/chain-adapter.ts';

export type Scheme = 'exact' | 'transfer-with-authorization' | 'spl-transfer';

export const TIMEOUT_SECONDS: Record<Scheme, number> = { exact: 60, 'transfer-with-authorization': 30, 'spl-transfer': 60 };

export interface QuoteChains {
  base: { usdc: string; payTo: string };
  polygon: { usdc: string; payTo: string };
  solana: { usdc: string; payTo: string; feePayer: string };
}

export interface QuoteInput {
  resource: string;
  description: string;
  mimeType: string;
  amount: bigint;
  /** Per-unit price and units (pages for the PDF tools, 1 for per-request endpoints). */
  perPagePrice: bigint;
  estimatedPages: number;
}

export interface AcceptEntry {
  scheme: Scheme;
  network: Network;
  maxAmountRequired: string;
  asset: string;
  payTo: string;
  resource: string;
  description: string;
  mimeType: string;
  maxTimeoutSeconds: number;
  extra: Record<string, unknown>;
}

export interface PaymentQuote {
  x402Version: 1;
  error: string;
  accepts: AcceptEntry[];
}

/** Largest integer extra fields may carry as JSON numbers without losing precision. */
const asInteger = (v: bigint) => (v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString());

export function buildQuote(chains: QuoteChains, publicBaseUrl: string, input: QuoteInput, error = 'X-PAYMENT header is required'): PaymentQuote {
  const common = {
    maxAmountRequired: input.amount.toString(),
    resource: input.resource,
    description: input.description,
    mimeType: input.mimeType,
  };
  const pricing = { perPagePrice: asInteger(input.perPagePrice), estimatedPages: input.estimatedPages, totalEstimate: asInteger(input.amount) };
  const authorizationRail = {
    sessionHeader: 'X-Session-Token',
    generateToken: `${publicBaseUrl}/v1/_session-token`,
    gasPolicy: 'service-pays',
  };
  const evm = (network: 'base' | 'polygon'): AcceptEntry[] => [
    { scheme: 'exact', network, ...common, asset: chains[network].usdc, payTo: chains[network].payTo, maxTimeoutSeconds: TIMEOUT_SECONDS.exact, extra: { ...pricing, name: 'USD Coin', version: '2' } },
    { scheme: 'transfer-with-authorization', network, ...common, asset: chains[network].usdc, payTo: chains[network].payTo, maxTimeoutSeconds: TIMEOUT_SECONDS['transfer-with-authorization'], extra: { ...authorizationRail } },
  ];
  return {
    x402Version: 1,
    error,
    accepts: [
      ...evm('base'),
      ...evm('polygon'),
      { scheme: 'exact', network: 'solana', ...common, asset: chains.solana.usdc, payTo: chains.solana.payTo, maxTimeoutSeconds: TIMEOUT_SECONDS.exact, extra: { ...pricing, feePayer: chains.solana.feePayer } },
      {
        scheme: 'spl-transfer',
        network: 'solana',
        ...common,
        asset: chains.solana.usdc,
        payTo: chains.solana.payTo,
        maxTimeoutSeconds: TIMEOUT_SECONDS['spl-transfer'],
        extra: { facilitatorBroadcast: 'true', feePayer: 'facilitator', gasPolicy: 'facilitator-pays', facilitatorUrl: `${publicBaseUrl}/v1/_facilitator/solana` },
      },
    ],
  };
}
