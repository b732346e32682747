/**
 * Sending seller payouts from the treasury: the contract between the settlement engine
 * (src/settlement/) and the chains (one implementation per chain family, in src/chains/).
 *
 * Crash safety rests on one rule: a payout transaction is *signed first*, its id and raw bytes
 * are recorded in the payout row, and only then broadcast. After a crash the recorded
 * transaction is looked up before anything is signed again, so a payout is never sent twice:
 * - EVM: the signed transaction carries a fixed nonce of the treasury (deterministic); it can
 *   land at most once, and once the treasury's nonce has passed it without it, it never will.
 * - Solana: the signature is recorded; once the blockhash it was signed with has expired
 *   without it landing, it never will.
 */

/** Every chain a seller can be paid on (spec: payout_chain). */
export const PAYOUT_CHAINS = ['base', 'polygon', 'arbitrum', 'optimism', 'avalanche', 'solana'] as const;
export type PayoutChain = (typeof PAYOUT_CHAINS)[number];

/** A signed, not yet (or not surely) broadcast payout transaction. Stored as is in the payout row. */
export interface PreparedPayout {
  /** EVM transaction hash or Solana signature (base58). */
  tx: string;
  /** The signed transaction: EVM 0x-hex serialized, Solana base64 wire format. */
  raw: string;
  /** EVM: the nonce in decimal; Solana: lastValidBlockHeight in decimal. */
  validUntil: string;
}

/**
 * - confirmed: landed successfully (the USDC moved to the destination);
 * - failed: landed and failed (reverted / error): final, the money did not move;
 * - pending: known to the chain but not final yet;
 * - not_found: not seen, and it may still land: broadcast the same raw transaction again;
 * - expired: not seen and it can never land (nonce passed / blockhash expired): prepare anew.
 */
export type PayoutTxState = 'confirmed' | 'failed' | 'pending' | 'not_found' | 'expired';

export interface PayoutSender {
  chain: PayoutChain;
  /** The treasury address the payouts leave from. */
  treasury: string;
  /** Signs (does not send) a USDC transfer of `amount` atomic units from the treasury to `to`. */
  prepare(to: string, amount: bigint): Promise<PreparedPayout>;
  /** Broadcasts a prepared transaction. Idempotent: an already known transaction is not an error. */
  broadcast(p: PreparedPayout): Promise<void>;
  /** Where the transaction stands (see PayoutTxState). */
  lookup(p: PreparedPayout): Promise<PayoutTxState>;
  /** The treasury's USDC balance, atomic units. */
  treasuryBalance(): Promise<bigint>;
}

/** The chains this deployment can pay out on (configured RPC + treasury key). */
export type PayoutSenders = Partial<Record<PayoutChain, PayoutSender>>;
