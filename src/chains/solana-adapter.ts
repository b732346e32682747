/**
 * Solana chain adapter over JSON-RPC with @solana/web3.js 1.x. Confirmation is by polling
 * getSignatureStatuses (bounded), not by WebSocket subscriptions: many hosted RPC endpoints
 * serve HTTP only or drop idle sockets, and polling keeps the service's behaviour predictable.
 */
import { getAssociatedTokenAddressSync, getMint } from '@solana/spl-token';
import {
  Connection,
  Keypair,
  PublicKey,
  SendTransactionError,
  VersionedTransaction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import type { SolanaChainConfig } from '../config.ts';
import type { Logger } from '../log.ts';
import {  type ChainHealth, type SolanaChainAdapter, type TxLookup } from './chain-adapter.ts';
import { ChainError, type ChainErrorReason } from './chain-error.ts';
import { createSerialQueue } from './serial-queue.ts';
import { transfersFromTokenBalances } from './solana-token-deltas.ts';
import { checkFacilitatorTransaction } from './solana-transfer-check.ts';
import { signTreasuryTransfer, solanaRecipient } from './solana-treasury-transfer.ts';

export interface SolanaAdapterOptions {
  config: SolanaChainConfig;
  /** base58 64-byte secret key of the fee payer that co-signs buyers' transfers. */
  feePayerKey: string;
  /** base58 64-byte secret key of the treasury (payouts). */
  treasuryKey: string;
  log: Logger;
  /** Bound on waiting for our own transactions to confirm (default 30 s). */
  confirmTimeoutMs?: number;
  /** Status polling interval (default 400 ms, one slot). */
  pollIntervalMs?: number;
  /** Most the fee payer pays in priority fees for one co-signed transfer (default 10,000 lamports). */
  maxPriorityFeeLamports?: bigint;
  /** Highest compute-unit limit a co-signed transfer may set (default 200,000; a TransferChecked needs ~6,000). */
  maxComputeUnits?: bigint;
}

const SIGNATURE = /^[1-9A-HJ-NP-Za-km-z]{64,90}$/;

function keypairFrom(secret: string, what: string): Keypair {
  try {
    return Keypair.fromSecretKey(bs58.decode(secret));
  } catch (e) {
    throw new Error(`${what} is not a base58 64-byte Solana secret key`, { cause: e });
  }
}

/** Turns a refused send (preflight) into a stable reason. */
function reasonFromSendError(e: unknown): ChainError | null {
  if (!(e instanceof SendTransactionError)) return null;
  const { message, logs } = e.transactionError;
  const text = `${message}\n${(logs ?? []).join('\n')}`;
  let reason: ChainErrorReason = 'simulation_failed';
  if (/blockhash not found/i.test(text)) reason = 'blockhash_expired';
  else if (/already been processed/i.test(text)) reason = 'already_processed';
  else if (/signature verification/i.test(text)) reason = 'invalid_signature';
  else if (/insufficient funds for fee|no record of a prior credit/i.test(text)) reason = 'fee_payer_unfunded';
  else if (/insufficient (funds|lamports)/i.test(text)) reason = 'insufficient_funds';
  else if (/uninitialized account|invalid account data|could not find account|AccountNotFound/i.test(text)) reason = 'token_account_missing';
  return new ChainError(reason, message, { cause: e });
}

export function createSolanaAdapter(opts: SolanaAdapterOptions): SolanaChainAdapter {
  const log = opts.log.child({ chain: 'solana' });
  const connection = new Connection(opts.config.rpcUrl, { commitment: 'confirmed', disableRetryOnRateLimit: false });
  const feePayer = keypairFrom(opts.feePayerKey, 'the Solana fee payer key');
  const treasury = keypairFrom(opts.treasuryKey, 'the Solana treasury key');
  const mint = new PublicKey(opts.config.usdcMint);
  const payTo = new PublicKey(opts.config.payTo);
  const payToTokenAccount = getAssociatedTokenAddressSync(mint, payTo, true);
  const feePayerTokenAccount = getAssociatedTokenAddressSync(mint, feePayer.publicKey, true);
  const confirmTimeoutMs = opts.confirmTimeoutMs ?? 30_000;
  const pollIntervalMs = opts.pollIntervalMs ?? 400;
  const maxPriorityFeeLamports = opts.maxPriorityFeeLamports ?? 10_000n;
  const maxComputeUnits = opts.maxComputeUnits ?? 200_000n;
  const treasuryQueue = createSerialQueue();

  let decimalsPromise: Promise<number> | null = null;
  const decimals = () =>
    (decimalsPromise ??= getMint(connection, mint).then(
      (m) => m.decimals,
      (e: unknown) => {
        decimalsPromise = null;
        throw e;
      },
    ));

  /** Polls until confirmed or failed; the bound covers a dropped transaction too. */
  const confirm = async (signature: string, what: string): Promise<void> => {
    const deadline = Date.now() + confirmTimeoutMs;
    for (;;) {
      const { value } = await connection.getSignatureStatuses([signature], { searchTransactionHistory: false });
      const status = value[0];
      if (status?.err) throw new ChainError('reverted', `${what} ${signature} failed: ${JSON.stringify(status.err)}`);
      if (status && (status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized')) return;
      if (Date.now() + pollIntervalMs > deadline) {
        throw new ChainError('confirmation_timeout', `${what} ${signature} was not confirmed within ${confirmTimeoutMs} ms; it may still land`);
      }
      await new Promise((r) => setTimeout(r, pollIntervalMs));
    }
  };

  const broadcast = async (tx: VersionedTransaction): Promise<string> => {
    try {
      // Preflight on: a transfer that would fail is refused with its reason and costs no fee.
      return await connection.sendRawTransaction(tx.serialize(), { skipPreflight: false, preflightCommitment: 'confirmed', maxRetries: 5 });
    } catch (e) {
      const refused = reasonFromSendError(e);
      if (refused) throw refused;
      throw e;
    }
  };

  return {
    network: 'solana',
    usdc: mint.toBase58(),
    payTo: payTo.toBase58(),
    feePayer: feePayer.publicKey.toBase58(),

    async getTransaction(id: string): Promise<TxLookup> {
      if (!SIGNATURE.test(id)) return { status: 'not_found' };
      let decodedLength = 0;
      try {
        decodedLength = bs58.decode(id).length;
      } catch {
        return { status: 'not_found' };
      }
      if (decodedLength !== 64) return { status: 'not_found' };
      const tx = await connection.getTransaction(id, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
      if (!tx) {
        // Seen but not yet confirmed (processed) counts as pending.
        const { value } = await connection.getSignatureStatuses([id], { searchTransactionHistory: true });
        return value[0] ? { status: 'pending' } : { status: 'not_found' };
      }
      const blockTime = tx.blockTime ?? (await connection.getBlockTime(tx.slot)) ?? Math.floor(Date.now() / 1000);
      const meta = tx.meta;
      if (!meta || meta.err) return { status: 'reverted', blockTime };
      const keys = tx.transaction.message.getAccountKeys({ accountKeysFromLookups: meta.loadedAddresses });
      return {
        status: 'confirmed',
        blockTime,
        transfers: transfersFromTokenBalances(meta.preTokenBalances ?? [], meta.postTokenBalances ?? []),
        // The fee payer signs first; on a co-signed transfer it is the service, the buyer is `from`.
        sender: keys.get(0)?.toBase58() ?? '',
        // Solana has no authorization rail: a transfer's signature is always its receipt.
        viaAuthorization: false,
      };
    },

    async cosignAndBroadcast(transactionBase64: string) {
      const prepared = await this.prepareTransfer(transactionBase64);
      await prepared.broadcast();
      return { signature: prepared.signature, from: prepared.from, to: prepared.to, amount: prepared.amount };
    },

    async prepareTransfer(transactionBase64: string) {
      let tx: VersionedTransaction;
      let checked: ReturnType<typeof checkFacilitatorTransaction>;
      try {
        tx = VersionedTransaction.deserialize(Buffer.from(transactionBase64, 'base64'));
        checked = checkFacilitatorTransaction(tx, { feePayer: feePayer.publicKey, usdcMint: mint, payToTokenAccount, feePayerTokenAccount, maxPriorityFeeLamports, maxComputeUnits });
        tx.sign([feePayer]);
      } catch (e) {
        if (e instanceof ChainError) throw e;
        // Whatever the parser or signer trips over in hostile bytes is a refusal, not a crash.
        throw new ChainError('invalid_transaction', `not a well-formed Solana transaction: ${(e as Error).message}`, { cause: e });
      }
      // The first signature is the fee payer's: it is the transaction id.
      const signature = bs58.encode(tx.signatures[0]);
      const from = checked.authority.toBase58();
      return {
        signature,
        from,
        to: payTo.toBase58(),
        amount: checked.amount,
        broadcast: async () => {
          let sent: string;
          try {
            sent = await broadcast(tx);
          } catch (e) {
            // Landed before (a retry, or a crash after sending): its fate on chain is the answer.
            if (e instanceof ChainError && e.reason === 'already_processed') await confirm(signature, 'transfer');
            throw e;
          }
          log.info('co-signed transfer broadcast', { signature: sent, from, amount: checked.amount });
          await confirm(sent, 'transfer');
        },
      };
    },

    async sendUsdc(to: string, amount: bigint): Promise<string> {
      const owner = solanaRecipient(to);
      if (amount <= 0n) throw new ChainError('invalid_amount', 'the amount must be positive');
      const signature = await treasuryQueue(async () => {
        const [{ blockhash }, dec] = await Promise.all([connection.getLatestBlockhash('confirmed'), decimals()]);
        const tx = signTreasuryTransfer({ treasury, mint, owner, amount, decimals: dec, blockhash });
        return broadcast(tx);
      });
      log.info('usdc sent', { signature, to: owner.toBase58(), amount });
      await confirm(signature, 'USDC transfer');
      return signature;
    },

    async facilitatorHealth() {
      const started = performance.now();
      const address = feePayer.publicKey.toBase58();
      try {
        const lamports = await connection.getBalance(feePayer.publicKey, 'confirmed');
        const latencyMs = Math.round(performance.now() - started);
        // Enough for a few thousand co-signed transfers at the base fee.
        const ok = lamports >= 10_000_000;
        return { ok, latencyMs, address, balance: String(lamports), ...(ok ? {} : { error: 'the fee payer holds less than 0.01 SOL' }) };
      } catch (e) {
        return { ok: false, latencyMs: Math.round(performance.now() - started), address, error: e instanceof Error ? e.message : String(e) };
      }
    },

    async health(): Promise<ChainHealth> {
      const started = performance.now();
      try {
        const slot = await connection.getSlot('confirmed');
        return { ok: true, latencyMs: Math.round(performance.now() - started), blockNumber: String(slot) };
      } catch (e) {
        return { ok: false, latencyMs: Math.round(performance.now() - started), error: e instanceof Error ? e.message : String(e) };
      }
    },
  };
}
