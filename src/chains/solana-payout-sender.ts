/**
 * PayoutSender for Solana: one transaction that creates the destination's USDC account if it
 * is missing (idempotent) and TransferChecked's the payout from the treasury's account
 * (solana-treasury-transfer.ts). The
 * signature is the transaction id; the blockhash it was signed with bounds its life: once the
 * chain's block height passes lastValidBlockHeight without it, it can never land
 * (PayoutTxState 'expired').
 *
 * The treasury pays the fee (and the rent of a new token account), not the facilitator's fee
 * payer: payouts then need one key and one signature, their cost shows on the treasury's own
 * balance, and the fee payer (a hot key co-signing buyers' transfers) never signs a payout.
 */
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, Keypair, PublicKey, VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import type { Logger } from '../log.ts';
import { ChainError } from './chain-error.ts';
import type { PayoutSender, PayoutTxState, PreparedPayout } from './payout-sender.ts';
import { signTreasuryTransfer, solanaRecipient } from './solana-treasury-transfer.ts';
import { USDC_DECIMALS } from './usdc-addresses.ts';

export interface SolanaPayoutSenderOptions {
  rpcUrl: string;
  usdcMint: string;
  /** base58 64-byte secret key of the treasury (holds the USDC, pays the fees). */
  treasuryKey: string;
  log: Logger;
}

export function createSolanaPayoutSender(opts: SolanaPayoutSenderOptions): PayoutSender {
  const log = opts.log.child({ chain: 'solana', role: 'payout' });
  const connection = new Connection(opts.rpcUrl, { commitment: 'confirmed' });
  let treasury: Keypair;
  try {
    treasury = Keypair.fromSecretKey(bs58.decode(opts.treasuryKey));
  } catch (e) {
    throw new Error('the Solana treasury key is not a base58 64-byte secret key', { cause: e });
  }
  const mint = new PublicKey(opts.usdcMint);
  const source = getAssociatedTokenAddressSync(mint, treasury.publicKey, true);

  const balance = async (): Promise<bigint> => {
    try {
      return BigInt((await connection.getTokenAccountBalance(source, 'confirmed')).value.amount);
    } catch (e) {
      // No token account yet means no USDC, not an error.
      if (/could not find account|invalid param/i.test((e as Error).message)) return 0n;
      throw e;
    }
  };

  const decode = (p: PreparedPayout) => {
    const tx = VersionedTransaction.deserialize(Buffer.from(p.raw, 'base64'));
    if (bs58.encode(tx.signatures[0]) !== p.tx) throw new ChainError('invalid_payout', `${p.tx} is not the signature of the prepared transaction`);
    if (!/^\d+$/.test(p.validUntil)) throw new ChainError('invalid_payout', `validUntil "${p.validUntil}" is not a block height`);
    return { tx, lastValidBlockHeight: Number(p.validUntil) };
  };

  return {
    chain: 'solana',
    treasury: treasury.publicKey.toBase58(),

    async prepare(to: string, amount: bigint): Promise<PreparedPayout> {
      const owner = solanaRecipient(to);
      if (amount <= 0n) throw new ChainError('invalid_amount', 'the amount must be positive');
      const [held, { blockhash, lastValidBlockHeight }] = await Promise.all([balance(), connection.getLatestBlockhash('confirmed')]);
      // Refused here, nothing signed (as on EVM). Two payouts that fit alone but not together
      // still reach the chain: the later one lands failed (broadcast skips preflight), 'failed'.
      if (held < amount) throw new ChainError('insufficient_funds', `the treasury holds ${held} USDC atomic units on solana, the payout is ${amount}`);
      const tx = signTreasuryTransfer({ treasury, mint, owner, amount, decimals: USDC_DECIMALS, blockhash });
      const signature = bs58.encode(tx.signatures[0]);
      log.info('payout prepared', { tx: signature, to: owner.toBase58(), amount, lastValidBlockHeight });
      return { tx: signature, raw: Buffer.from(tx.serialize()).toString('base64'), validUntil: String(lastValidBlockHeight) };
    },

    async broadcast(p: PreparedPayout): Promise<void> {
      const { tx } = decode(p);
      try {
        // No preflight: a resend of a landed transaction is then a no-op rather than an error,
        // and a transfer that fails on chain is recorded as failed (lookup tells), the same
        // outcome as an EVM revert. maxRetries 0: whoever calls broadcast again is the retry.
        await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true, maxRetries: 0 });
        log.info('payout broadcast', { tx: p.tx });
      } catch (e) {
        const text = e instanceof Error ? e.message : String(e);
        if (/already been processed|AlreadyProcessed/i.test(text)) return;
        if (/blockhash not found/i.test(text)) {
          throw new ChainError('blockhash_expired', `the blockhash of ${p.tx} is not valid (expired, or not yet seen by this node); look it up before preparing anew`, { cause: e });
        }
        throw e;
      }
    },

    async lookup(p: PreparedPayout): Promise<PayoutTxState> {
      const { lastValidBlockHeight } = decode(p);
      // The height is read first: if it is already past lastValidBlockHeight and the status
      // (read after) is still unknown, the transaction can never land.
      const height = await connection.getBlockHeight('confirmed');
      const { value } = await connection.getSignatureStatuses([p.tx], { searchTransactionHistory: true });
      const status = value[0];
      if (status) {
        if (status.err) return 'failed';
        return status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized' ? 'confirmed' : 'pending';
      }
      return height > lastValidBlockHeight ? 'expired' : 'not_found';
    },

    treasuryBalance: balance,
  };
}
