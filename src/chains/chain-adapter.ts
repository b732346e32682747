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
  | { status: 'confirmed'; blockTime: number; transfers: TokenTransfer[]; sender: string };

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

export interface EvmChainAdapter extends ChainAdapter {
  readonly network: EvmNetwork;
  readonly chainId: number;
  /**
   * Submits transferWithAuthorization from the relayer and waits (bounded) for the receipt.
   * Throws ChainError with a stable reason on refusal (expired, used nonce, bad signature, revert).
   */
  submitAuthorization(auth: Eip3009Authorization, signature: string): Promise<{ txHash: string; blockTime: number }>;
  /** true when the EIP-3009 nonce of `authorizer` is already used or cancelled. */
  authorizationUsed(authorizer: string, nonce: string): Promise<boolean>;
  /**
   * The transaction that used an authorization (its AuthorizationUsed event), searched in the
   * recent `lookbackBlocks`; null when none (never used, or cancelled instead).
   */
  findAuthorizationTx(authorizer: string, nonce: string, lookbackBlocks?: bigint): Promise<string | null>;
}

export interface SolanaChainAdapter extends ChainAdapter {
  readonly network: 'solana';
  readonly feePayer: string;
  /**
   * Validates a buyer's partially signed transfer (only compute-budget, memo and one USDC
   * TransferChecked to the payTo token account; fee payer in no instruction), co-signs as
   * fee payer, broadcasts and waits for confirmation. Throws ChainError on refusal.
   */
  cosignAndBroadcast(transactionBase64: string): Promise<{ signature: string; from: string; to: string; amount: bigint }>;
  /**
   * The same checks and co-signature without sending: the transaction id (the fee payer's
   * signature) is known before anything reaches the chain, so a payment can be reserved
   * under it first and broadcast exactly once.
   */
  prepareTransfer(transactionBase64: string): Promise<PreparedSolanaTransfer>;
}

export interface PreparedSolanaTransfer {
  signature: string;
  from: string;
  to: string;
  amount: bigint;
  /** Broadcasts and waits for confirmation; ChainError on refusal. */
  broadcast(): Promise<void>;
}

/** A refusal from a chain operation, with a stable snake_case reason. */
export class ChainError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'ChainError';
  }
}
