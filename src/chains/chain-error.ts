/**
 * ChainError: a refusal from a chain operation, with a reason from one closed list (like the
 * payment refusals in src/payments/refusal.ts) and the error it came from as `cause`, so that
 * a log line or an outage check can still see the RPC error underneath (viem's BaseError keeps
 * its cause the same way). Callers branch on `reason`, never on the message.
 */
import { walkCause } from '../lib/walk-cause.ts';

export const CHAIN_ERROR_REASONS = [
  // --- our own transactions (relayer settlement, payouts, co-signed Solana transfers) ---
  /** Mined (or landed) and failed: final, the same signed transaction can never succeed. */
  'reverted',
  /** Sent but not seen mined within the bound; it may still land, so look it up before sending again. */
  'confirmation_timeout',
  /** The treasury, relayer or payer holds less than the transfer moves. */
  'insufficient_funds',
  /** A transfer of zero or less was asked for. */
  'invalid_amount',
  /** A recipient that is not an address of the chain. */
  'invalid_address',
  /** A prepared payout whose bytes are not what the payout row says (tampered or from another chain). */
  'invalid_payout',
  /** The signer's nonce was taken by another transaction: this one can never land. */
  'nonce_used',
  /** Solana: the blockhash expired (or the node has not seen it yet). */
  'blockhash_expired',
  /** Solana: the transaction was already processed (it landed before; confirm, don't resend). */
  'already_processed',
  /** Solana: the fee payer cannot pay the fee. */
  'fee_payer_unfunded',
  /** Solana: a token account the transfer needs does not exist. */
  'token_account_missing',
  /** Solana: preflight simulation failed for a reason none of the above names. */
  'simulation_failed',
  /** USDC refuses the account (FiatToken blacklist). */
  'account_blacklisted',
  /** USDC is paused. */
  'token_paused',
  // --- EIP-3009 authorizations (verified off-chain before anything is reserved) ---
  /** A field of the authorization is malformed. */
  'invalid_authorization',
  /** The signature does not recover to (or is not accepted by) the authorizer. */
  'invalid_signature',
  /** validBefore is not after the chain time. */
  'authorization_expired',
  /** validAfter is not before the chain time. */
  'authorization_not_yet_valid',
  /** The nonce was used or cancelled. */
  'authorization_used',
  /** The authorization pays someone other than this service's payTo. */
  'wrong_recipient',
  // --- Solana transactions offered to the facilitator (what the fee payer co-signs) ---
  /** Not a well-formed transaction. */
  'invalid_transaction',
  /** Address lookup tables hide accounts from the checks. */
  'address_lookup_tables_not_allowed',
  /** The fee payer is not the service's. */
  'wrong_fee_payer',
  /** The fee payer appears in an instruction (it could be made to pay or sign for something). */
  'fee_payer_in_instruction',
  /** An instruction other than compute budget, memo and one TransferChecked. */
  'unexpected_instruction',
  /** Signers other than the fee payer and the transfer's authority. */
  'unexpected_signers',
  /** The buyer's signature is missing. */
  'missing_signature',
  /** No USDC TransferChecked in the transaction. */
  'missing_transfer',
  /** More than one transfer. */
  'multiple_transfers',
  /** A mint other than USDC. */
  'wrong_mint',
  /** A destination other than payTo's USDC account. */
  'wrong_destination',
  /** A compute-unit limit above the cap. */
  'compute_limit_too_high',
  /** A priority fee above the cap. */
  'priority_fee_too_high',
] as const;

export type ChainErrorReason = (typeof CHAIN_ERROR_REASONS)[number];

export class ChainError extends Error {
  constructor(
    readonly reason: ChainErrorReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ChainError';
  }

  /** The first error in this one's cause chain (itself included) that `match` accepts. */
  walk(match: (e: unknown) => boolean): unknown {
    return walkCause(this, match);
  }
}
