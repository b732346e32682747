/**
 * The x402 v2 PaymentPayload for a v2 PaymentRequired (what the MCP transport carries in
 * `_meta["x402/payment"]`, and what PAYMENT-SIGNATURE carries base64), built with our own
 * wallet code rather than `@x402/*` (dev-only packages here): the `exact` scheme only, an
 * EIP-3009 authorization on Base or Polygon (gasless, the service settles it) or a Solana
 * transfer that the quote's fee payer co-signs.
 */
import { signEip3009Authorization } from './wallet-evm.ts';

export type V2Chain = 'base' | 'polygon' | 'solana';

/** CAIP-2 ids, as the service quotes them (src/payments/x402-v2.ts). */
export const V2_NETWORK: Record<V2Chain, string> = {
  base: 'eip155:8453',
  polygon: 'eip155:137',
  solana: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
};
const CHAIN_ID = { base: 8453, polygon: 137 } as const;

export interface V2Requirement {
  scheme: string;
  network: string;
  amount: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra?: Record<string, unknown>;
}

export interface V2PaymentRequired {
  x402Version: 2;
  resource?: unknown;
  accepts: V2Requirement[];
  extensions?: Record<string, unknown>;
}

export const isV2PaymentRequired = (v: unknown): v is V2PaymentRequired =>
  !!v && typeof v === 'object' && (v as { x402Version?: unknown }).x402Version === 2 && Array.isArray((v as { accepts?: unknown }).accepts);

/** The `exact` requirement of `chain` in the quote, or undefined when the quote does not offer it. */
export const exactRequirementOf = (required: V2PaymentRequired, chain: V2Chain) => required.accepts.find((a) => a.network === V2_NETWORK[chain] && a.scheme === 'exact');

/** Signs (EVM) or builds (Solana) a payment of exactly `requirement.amount` to `requirement.payTo`. */
export async function v2PaymentPayload(
  required: V2PaymentRequired,
  requirement: V2Requirement,
  wallet: { chain: V2Chain; key: string; rpcUrl?: string },
): Promise<Record<string, unknown>> {
  const amount = BigInt(requirement.amount);
  let payload: Record<string, unknown>;
  if (wallet.chain === 'solana') {
    const feePayer = requirement.extra?.feePayer;
    if (typeof feePayer !== 'string') throw new Error('the quote names no Solana fee payer');
    if (!wallet.rpcUrl) throw new Error('no Solana RPC URL');
    const { solanaPartiallySignedTransfer } = await import('./wallet-solana.ts'); // loaded for Solana only
    payload = { transaction: await solanaPartiallySignedTransfer({ rpcUrl: wallet.rpcUrl, mint: requirement.asset, secretKey: wallet.key, toOwner: requirement.payTo, amount, feePayer }) };
  } else {
    const domain = (requirement.extra ?? {}) as { name?: string; version?: string };
    const signed = await signEip3009Authorization({
      chainId: CHAIN_ID[wallet.chain],
      usdc: requirement.asset,
      privateKey: wallet.key,
      to: requirement.payTo,
      value: amount,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + requirement.maxTimeoutSeconds),
      name: domain.name,
      version: domain.version,
    });
    payload = { signature: signed.signature, authorization: signed.authorization };
  }
  return { x402Version: 2, ...(required.resource ? { resource: required.resource } : {}), accepted: requirement, payload };
}
