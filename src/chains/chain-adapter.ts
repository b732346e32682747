/**
 * The port the payment code talks to. Adapters (evm-adapter.ts, solana-adapter.ts) implement
 * it over JSON-RPC, so the same code runs against the devnet and against mainnet RPC URLs.
 * Amounts are bigint atomic units, never numbers.
 */
export type Network = 'base' | 'polygon' | 'solana';
export type EvmNetwork = 'base' | 'polygon';
export const NETWORKS: readonly Network[] = ['base', 'polygon', 'solana'];

/** One movement of a token inside a transaction. On Solana `from`/`to` are the token-account owners. */
export interface TokenTransfer {
  from: string;
  to: string;
  value: bigint;
  /** ERC-20 contract address (EVM, checksummed) or SPL mint (Solana). */
  token: string;
}

export type TxLookup =
  | { status: 'not_found' }
  | { status: 'pending' }
  | { status: 'reverted'; blockTime: number }
  | {
      status: 'confirmed';
      blockTime: number;
      transfers: TokenTransfer[];
      sender: string;
      /** EVM: the USDC moved through an EIP-3009 authorization (the authorization, not the hash, is then the receipt). */
      viaAuthorization: boolean;
    };

export interface ChainHealth {
  ok: boolean;
  latencyMs: number;
  blockNumber?: string;
  error?: string;
}

/** The service's own signer on a chain (EVM relayer, Solana fee payer): funded or not. */
export interface FacilitatorHealth extends ChainHealth {
  address: string;
  /** Native balance (wei / lamports) as a decimal string. */
  balance?: string;
}

export interface ChainAdapter {
  readonly network: Network;
  /** USDC contract (EVM) or mint (Solana) configured for this chain. */
  readonly usdc: string;
  /** The service's receiving address (treasury) on this chain. */
  readonly payTo: string;
  getTransaction(id: string): Promise<TxLookup>;
  /** Sends USDC from the treasury/relayer (payouts). Returns the tx hash / signature. */
  sendUsdc(to: string, amount: bigint): Promise<string>;
  health(): Promise<ChainHealth>;
  /** The signer that pays gas / fees for buyers: reachable and holding at least minimum native balance. */
  facilitatorHealth(): Promise<FacilitatorHealth>;
}

/** EIP-3009 authorization as signed by the buyer (values as decimal strings / 0x hex). */
export interface Eip3009Authorization {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: string;
}

/** A transfer executed through an EIP-3009 authorization, as the chain recorded it. */
export interface AuthorizationTransfer {
  txHash: string;
  blockTime: number;
  from: string;
  to: string;
  /** What the Transfer event right after the AuthorizationUsed event moved: the chain's amount, not the claim. */
  value: bigint;
}

/**
 * An authorization whose signature verified against the token's EIP-712 domain:
 * - unused: it can still be settled; `balance` of `from` and `chainTime` read at `latest`;
 * - used: its nonce was spent on chain, by `transfer` (null: cancelled, or older than the lookback).
 */
export type AuthorizationCheck = { state: 'unused'; balance: bigint; chainTime: number } | { state: 'used'; transfer: AuthorizationTransfer | null };

export interface EvmChainAdapter extends ChainAdapter {
  readonly network: EvmNetwork;
  readonly chainId: number;
  /**
   * Verifies an authorization off-chain before anything is spent on it: the EIP-712 signature
   * must recover to `from` (ERC-1271 for contract wallets), then its nonce state, validity
   * window and the payer's balance are read at `latest`. Throws ChainError (invalid_signature,
   * authorization_expired, authorization_not_yet_valid, invalid_authorization) on refusal.
   */
  checkAuthorization(auth: Eip3009Authorization, signature: string): Promise<AuthorizationCheck>;
  /**
   * Verifies again, simulates at `latest`, signs the relayer's transferWithAuthorization, hands
   * its hash to `beforeBroadcast` (the caller records it as consumed before anyone can see it),
   * sends it and waits (bounded) for the receipt. The amount returned is read from its logs.
   * Throws ChainError with a stable reason on refusal.
   */
  submitAuthorization(auth: Eip3009Authorization, signature: string, hooks?: { beforeBroadcast?: (txHash: string) => Promise<void> }): Promise<AuthorizationTransfer>;
  /** true when the EIP-3009 nonce of `authorizer` is already used or cancelled. */
  authorizationUsed(authorizer: string, nonce: string): Promise<boolean>;
  /**
   * The transfer that used an authorization (its AuthorizationUsed event and the Transfer the
   * token emitted with it), searched in the recent `lookbackBlocks`; null when none (never
   * used, or cancelled instead).
   */
  findAuthorizationTransfer(authorizer: string, nonce: string, lookbackBlocks?: bigint): Promise<AuthorizationTransfer | null>;
}

export interface SolanaChainAdapter extends ChainAdapter {
  readonly network: 'solana';
  readonly feePayer: string;
  /**
   * Validates a buyer's partially signed transfer (only compute-budget, memo and one USDC
   * TransferChecked to the payTo token account; signers: the fee payer and the transfer
   * authority only; fee payer in no instruction; capped compute price and limit), co-signs as
   * fee payer, broadcasts and waits for confirmation. Throws ChainError on refusal.
   */
  cosignAndBroadcast(transactionBase64: string): Promise<{ signature: string; from: string; to: string; amount: bigint }>;
  /**
   * The same checks and co-signature without sending: the transaction id (the fee payer's
   * signature) is known before anything reaches the chain, so a payment can be reserved
   * under it first and broadcast exactly once. Malformed input is a ChainError, never a crash.
   */
  prepareTransfer(transactionBase64: string): Promise<PreparedSolanaTransfer>;
}

export interface PreparedSolanaTransfer {
  signature: string;
  from: string;
  to: string;
  /** What the instruction says it moves; what arrived is read from the chain after it lands. */
  amount: bigint;
  /**
   * Broadcasts and waits until the chain has a final word on it: resolves when it landed
   * successfully (also when it had landed before), ChainError `reverted` when it landed and
   * failed (final: the signed transaction can never succeed), other reasons when refused.
   */
  broadcast(): Promise<void>;
}
