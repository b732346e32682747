/**
 * What a buyer's Solana wallet does (sdk/wallet.ts names both halves): pay USDC, build a
 * partially signed transfer for the service to co-sign, read a token balance. Apart from the
 * EVM half so that an EVM-only caller (most CLI commands) does not load @solana/web3.js and
 * @solana/spl-token: about 1 s of start-up.
 */
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAccount,
  getAssociatedTokenAddressSync,
  getMint,
} from '@solana/spl-token';
import { Connection, Keypair, PublicKey, Transaction, type TransactionInstruction } from '@solana/web3.js';
import bs58 from 'bs58';

export const solanaKeypair = (secretKey: string): Keypair => Keypair.fromSecretKey(bs58.decode(secretKey));

export interface SolanaTransferInput {
  rpcUrl: string;
  mint: string;
  /** base58 secret key of the buyer (as in devnet.json). */
  secretKey: string;
  /** Wallet (owner) receiving; its associated token account gets the tokens. */
  toOwner: string;
  amount: bigint;
}

/** The TransferChecked instruction between the associated token accounts of buyer and recipient. */
export async function solanaTransferInstruction(connection: Connection, input: Omit<SolanaTransferInput, 'rpcUrl'>): Promise<TransactionInstruction> {
  const buyer = solanaKeypair(input.secretKey);
  const mint = new PublicKey(input.mint);
  const { decimals } = await getMint(connection, mint);
  const source = getAssociatedTokenAddressSync(mint, buyer.publicKey, true);
  const destination = getAssociatedTokenAddressSync(mint, new PublicKey(input.toOwner), true);
  return createTransferCheckedInstruction(source, mint, destination, buyer.publicKey, input.amount, decimals);
}

/**
 * The buyer pays USDC and the fee itself (the `spl-transfer` / `exact` receipt with a signature).
 * Creates the recipient's token account if it has none. Confirms through web3.js's standard
 * path (WebSocket signatureSubscribe), as a wallet does.
 */
export async function solanaTransferUsdc(input: SolanaTransferInput): Promise<string> {
  const connection = new Connection(input.rpcUrl, 'confirmed');
  const buyer = solanaKeypair(input.secretKey);
  const mint = new PublicKey(input.mint);
  const owner = new PublicKey(input.toOwner);
  const destination = getAssociatedTokenAddressSync(mint, owner, true);
  const tx = new Transaction();
  const exists = await getAccount(connection, destination).then(
    () => true,
    () => false,
  );
  if (!exists) tx.add(createAssociatedTokenAccountIdempotentInstruction(buyer.publicKey, destination, owner, mint));
  tx.add(await solanaTransferInstruction(connection, input));
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash('confirmed');
  tx.recentBlockhash = blockhash;
  tx.feePayer = buyer.publicKey;
  tx.sign(buyer);
  const signature = await connection.sendRawTransaction(tx.serialize());
  const { value } = await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight }, 'confirmed');
  if (value.err) throw new Error(`transfer ${signature} failed: ${JSON.stringify(value.err)}`);
  return signature;
}

/**
 * A legacy transaction with the given instructions, fee payer = the service's fee payer,
 * signed by the buyer only; base64 as the x402 `{transaction}` payload / facilitator body.
 * `extraSigners` sign too (for crafted variants).
 */
export async function solanaPartiallySignedTransaction(input: {
  rpcUrl: string;
  feePayer: string;
  secretKey: string;
  instructions: TransactionInstruction[];
  extraSigners?: Keypair[];
}): Promise<string> {
  const connection = new Connection(input.rpcUrl, 'confirmed');
  const buyer = solanaKeypair(input.secretKey);
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash('confirmed');
  const tx = new Transaction({ feePayer: new PublicKey(input.feePayer), blockhash, lastValidBlockHeight }).add(...input.instructions);
  // web3.js refuses a signer the message does not need (a crafted variant may not need the buyer).
  const needed = [buyer, ...(input.extraSigners ?? [])].filter((k) => input.instructions.some((ix) => ix.keys.some((m) => m.isSigner && m.pubkey.equals(k.publicKey))));
  if (needed.length > 0) tx.partialSign(...needed);
  return tx.serialize({ requireAllSignatures: false, verifySignatures: true }).toString('base64');
}

/** The standard facilitator payload: one USDC TransferChecked to `toOwner`, fee paid by `feePayer`. */
export async function solanaPartiallySignedTransfer(input: SolanaTransferInput & { feePayer: string }): Promise<string> {
  const connection = new Connection(input.rpcUrl, 'confirmed');
  return solanaPartiallySignedTransaction({ ...input, instructions: [await solanaTransferInstruction(connection, input)] });
}

export async function solanaTokenBalance(input: { rpcUrl: string; mint: string; owner: string }): Promise<bigint> {
  const connection = new Connection(input.rpcUrl, 'confirmed');
  const ata = getAssociatedTokenAddressSync(new PublicKey(input.mint), new PublicKey(input.owner), true);
  try {
    return (await getAccount(connection, ata)).amount;
  } catch {
    return 0n;
  }
}
