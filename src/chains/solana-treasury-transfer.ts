/**
 * The treasury's USDC transfer on Solana, shared by the payout sender and the adapter's
 * sendUsdc: create the recipient's associated token account if missing (idempotent, the
 * treasury pays its rent once), then TransferChecked from the treasury's account.
 */
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import { PublicKey, TransactionMessage, VersionedTransaction, type Keypair } from '@solana/web3.js';
import { ChainError } from './chain-error.ts';

/** A payout recipient's wallet, or ChainError invalid_address. */
export function solanaRecipient(to: string): PublicKey {
  try {
    return new PublicKey(to);
  } catch (e) {
    throw new ChainError('invalid_address', `${to} is not a Solana address`, { cause: e });
  }
}

export interface TreasuryTransfer {
  treasury: Keypair;
  mint: PublicKey;
  owner: PublicKey;
  amount: bigint;
  /** Checked on chain against the mint: a wrong value fails, it never moves a wrong amount. */
  decimals: number;
  blockhash: string;
}

/** The transfer signed by the treasury (fee payer and sole signer: its signature is the id). */
export function signTreasuryTransfer(t: TreasuryTransfer): VersionedTransaction {
  const source = getAssociatedTokenAddressSync(t.mint, t.treasury.publicKey, true);
  // Off-curve owners (PDAs such as multisig vaults) have token accounts too.
  const destination = getAssociatedTokenAddressSync(t.mint, t.owner, true);
  const message = new TransactionMessage({
    payerKey: t.treasury.publicKey,
    recentBlockhash: t.blockhash,
    instructions: [
      createAssociatedTokenAccountIdempotentInstruction(t.treasury.publicKey, destination, t.owner, t.mint),
      createTransferCheckedInstruction(source, t.mint, destination, t.treasury.publicKey, t.amount, t.decimals),
    ],
  }).compileToV0Message();
  const tx = new VersionedTransaction(message);
  tx.sign([t.treasury]);
  return tx;
}
