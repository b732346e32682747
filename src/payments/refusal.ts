/**
 * Why a payment proof is refused: one closed list, shared by every rail. A refusal is an
 * expected result (the buyer gets 402 with the quote and this reason), never an exception.
 */
export const REFUSAL_REASONS = [
  /** Malformed proof, a transaction that failed on chain, or one that cannot pay (e.g. made through an authorization). */
  'invalid_payment',
  /** Not (yet) visible on chain: retry the same proof after a block. */
  'payment_unconfirmed',
  'amount_mismatch',
  'wrong_recipient',
  'wrong_asset',
  /** Paid outside the quote's lifetime, or for a request that was not quoted before the payment. */
  'quote_expired',
  /** An EIP-3009 authorization that does not verify or cannot be settled (signature, validity window, balance, nonce). */
  'authorization_invalid',
] as const;

export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export interface Refusal {
  ok: false;
  reason: RefusalReason;
  message: string;
}

export const refusal = (reason: RefusalReason, message: string): Refusal => ({ ok: false, reason, message });
