/**
 * Payers for every rail paycall serves. The authorization rail only signs (no RPC, no gas:
 * the service settles it); the transfer rails move USDC themselves and need an RPC URL.
 */
import type { AcceptEntry, Payer } from './paycall-client.ts';
import { evmTransferUsdc, signEip3009Authorization } from './wallet-evm.ts';

export type EvmNetwork = 'base' | 'polygon';
const CHAIN_ID: Record<EvmNetwork, number> = { base: 8453, polygon: 137 };

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const xPayment = (network: string, scheme: string, payload: Record<string, unknown>) => b64url({ x402Version: 1, scheme, network, payload });
const entryOf = (accepts: AcceptEntry[], network: string, scheme: string) => accepts.find((a) => a.network === network && a.scheme === scheme);

/** Gasless EIP-3009: signs an authorization of the quoted amount to payTo; sent as X-Session-Token. */
export function evmAuthorizationPayer(opts: { privateKey: string; network: EvmNetwork }): Payer {
  return {
    choose: (accepts) => entryOf(accepts, opts.network, 'transfer-with-authorization'),
    async prove(entry, accepts) {
      // The token's EIP-712 domain is announced on the exact entry of the same chain.
      const domain = (entryOf(accepts, opts.network, 'exact')?.extra ?? {}) as { name?: string; version?: string };
      const signed = await signEip3009Authorization({
        chainId: CHAIN_ID[opts.network],
        usdc: entry.asset,
        privateKey: opts.privateKey,
        to: entry.payTo,
        value: BigInt(entry.maxAmountRequired),
        validBefore: BigInt(Math.floor(Date.now() / 1000) + entry.maxTimeoutSeconds),
        name: domain.name,
        version: domain.version,
      });
      return { 'x-session-token': b64url({ network: opts.network, ...signed.authorization, signature: signed.signature }) };
    },
  };
}

/** A plain USDC transfer, then X-Payment {tx_hash}. */
export function evmTransferPayer(opts: { privateKey: string; network: EvmNetwork; rpcUrl: string }): Payer {
  return {
    choose: (accepts) => entryOf(accepts, opts.network, 'exact'),
    async prove(entry) {
      const txHash = await evmTransferUsdc({ rpcUrl: opts.rpcUrl, chainId: CHAIN_ID[opts.network], usdc: entry.asset, privateKey: opts.privateKey, to: entry.payTo, amount: BigInt(entry.maxAmountRequired) });
      return { 'x-payment': xPayment(opts.network, 'exact', { tx_hash: txHash }) };
    },
  };
}

/** Solana: a transfer the buyer signs with the service's fee payer; the service co-signs and broadcasts it. */
export function solanaTransactionPayer(opts: { secretKey: string; rpcUrl: string }): Payer {
  return {
    choose: (accepts) => entryOf(accepts, 'solana', 'exact'),
    async prove(entry) {
      const feePayer = (entry.extra as { feePayer?: string }).feePayer;
      if (!feePayer) throw new Error('the quote names no Solana fee payer');
      // Loaded when a Solana payment is made: EVM callers never pay for @solana/web3.js.
      const { solanaPartiallySignedTransfer } = await import('./wallet-solana.ts');
      const transaction = await solanaPartiallySignedTransfer({ rpcUrl: opts.rpcUrl, mint: entry.asset, secretKey: opts.secretKey, toOwner: entry.payTo, amount: BigInt(entry.maxAmountRequired), feePayer });
      return { 'x-payment': xPayment('solana', 'exact', { transaction }) };
    },
  };
}
