/**
 * The Solana adapter against the devnet's LiteSVM RPC: reading payments from token-balance
 * deltas, the facilitator co-sign path with every malicious variant it must refuse, payouts
 * and health.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTransferCheckedInstruction, createTransferInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { ComputeBudgetProgram, Connection, Keypair, PublicKey, SystemProgram, Transaction, TransactionInstruction } from '@solana/web3.js';
import bs58 from 'bs58';
import {
  solanaKeypair,
  solanaPartiallySignedTransaction,
  solanaPartiallySignedTransfer,
  solanaTokenBalance,
  solanaTransferInstruction,
  solanaTransferUsdc,
} from '../../devnet/buyer.ts';
import type { SolanaChainAdapter } from '../../src/chains/chain-adapter.ts';
import { createChainAdapters } from '../../src/chains/create-chain-adapters.ts';
import { createSolanaAdapter } from '../../src/chains/solana-adapter.ts';
import { USDC_ADDRESSES } from '../../src/chains/usdc-addresses.ts';
import { silentLogger } from '../../src/log.ts';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.ts';
import { confirmed, refusal } from '../helpers/chains.ts';

let devnet: TestDevnet;
let solana: SolanaChainAdapter;
let connection: Connection;

before(async () => {
  devnet = await startTestDevnet();
  solana = createChainAdapters(devnet.chains, silentLogger, { pollIntervalMs: 50, confirmTimeoutMs: 20_000 }).solana;
  connection = new Connection(devnet.info.chains.solana.rpcUrl, 'confirmed');
});
after(async () => {
  await devnet?.stop();
});

const chain = () => devnet.info.chains.solana;
const secret = (i: number) => devnet.info.accounts[i].solanaSecretKey;
const wallet = (i: number) => solanaKeypair(secret(i)).publicKey.toBase58();


describe('reading payments', () => {
  test('the USDC mint sits at the mainnet address with 6 decimals', async () => {
    assert.equal(chain().usdcMint, USDC_ADDRESSES.solana);
    const supply = await connection.getTokenSupply(new PublicKey(chain().usdcMint));
    assert.equal(supply.value.decimals, 6);
  });

  test('a USDC payment is found from the token-balance deltas', async () => {
    const signature = await solanaTransferUsdc({ rpcUrl: chain().rpcUrl, mint: chain().usdcMint, secretKey: secret(0), toOwner: chain().payTo, amount: 1_500_000n });
    const found = confirmed(await solana.getTransaction(signature));
    assert.deepEqual(found.transfers, [{ from: wallet(0), to: chain().payTo, value: 1_500_000n, token: chain().usdcMint }]);
    assert.equal(found.sender, wallet(0));
    assert.ok(Number.isInteger(found.blockTime) && found.blockTime > 1_600_000_000);
  });

  test('a payment in another mint reports that mint', async () => {
    const fake = devnet.extras.fakeUsdc.solana;
    const signature = await solanaTransferUsdc({ rpcUrl: chain().rpcUrl, mint: fake, secretKey: secret(1), toOwner: chain().payTo, amount: 10_000n });
    const found = confirmed(await solana.getTransaction(signature));
    assert.deepEqual(found.transfers, [{ from: wallet(1), to: chain().payTo, value: 10_000n, token: fake }]);
  });

  test('a payment to another wallet (whose token account the payment creates) reports that owner', async () => {
    const other = Keypair.generate().publicKey.toBase58();
    const signature = await solanaTransferUsdc({ rpcUrl: chain().rpcUrl, mint: chain().usdcMint, secretKey: secret(1), toOwner: other, amount: 42n });
    const found = confirmed(await solana.getTransaction(signature));
    assert.deepEqual(found.transfers, [{ from: wallet(1), to: other, value: 42n, token: chain().usdcMint }]);
  });

  test('a failed transaction that landed is reported as reverted', async () => {
    const buyer = solanaKeypair(secret(2));
    const ix = await solanaTransferInstruction(connection, { mint: chain().usdcMint, secretKey: secret(2), toOwner: chain().payTo, amount: 10n ** 15n });
    const { blockhash } = await connection.getLatestBlockhash();
    const tx = new Transaction({ feePayer: buyer.publicKey, recentBlockhash: blockhash }).add(ix);
    tx.sign(buyer);
    // Without preflight the node accepts it and it fails on chain, fee charged.
    const signature = await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    const found = await solana.getTransaction(signature);
    assert.equal(found.status, 'reverted');
  });

  test('unknown and malformed signatures are not found', async () => {
    assert.deepEqual(await solana.getTransaction(bs58.encode(crypto.getRandomValues(new Uint8Array(64)))), { status: 'not_found' });
    assert.deepEqual(await solana.getTransaction('abc'), { status: 'not_found' });
    assert.deepEqual(await solana.getTransaction('0OIl'.repeat(22)), { status: 'not_found' });
  });
});

describe('co-signing as fee payer', () => {
  const feePayer = () => chain().feePayer;
  const usdc = () => new PublicKey(chain().usdcMint);
  const ata = (mint: PublicKey, owner: string | PublicKey) => getAssociatedTokenAddressSync(mint, new PublicKey(owner), true);
  const build = (instructions: TransactionInstruction[], i = 3, extraSigners: Keypair[] = []) =>
    solanaPartiallySignedTransaction({ rpcUrl: chain().rpcUrl, feePayer: feePayer(), secretKey: secret(i), instructions, extraSigners });
  const payment = (amount: bigint, i = 3) => solanaTransferInstruction(connection, { mint: chain().usdcMint, secretKey: secret(i), toOwner: chain().payTo, amount });

  test('a valid transfer is co-signed, broadcast and confirmed; the fee payer pays only the fee', async () => {
    const feePayerBefore = await connection.getBalance(new PublicKey(feePayer()));
    const buyerSolBefore = await connection.getBalance(new PublicKey(wallet(3)));
    const payToBefore = await solanaTokenBalance({ rpcUrl: chain().rpcUrl, mint: chain().usdcMint, owner: chain().payTo });
    const memo = new TransactionInstruction({ programId: new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'), keys: [], data: Buffer.from('order 17') });
    const tx = await build([ComputeBudgetProgram.setComputeUnitLimit({ units: 50_000 }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000 }), memo, await payment(2_000_000n)]);

    const result = await solana.cosignAndBroadcast(tx);
    assert.deepEqual({ ...result, signature: undefined }, { signature: undefined, from: wallet(3), to: chain().payTo, amount: 2_000_000n });
    assert.equal(await solanaTokenBalance({ rpcUrl: chain().rpcUrl, mint: chain().usdcMint, owner: chain().payTo }), payToBefore + 2_000_000n);
    assert.equal(await connection.getBalance(new PublicKey(wallet(3))), buyerSolBefore);
    // Two signatures + 50 000 units at 1 000 micro-lamports.
    assert.equal(await connection.getBalance(new PublicKey(feePayer())), feePayerBefore - 10_000 - 50);

    const found = confirmed(await solana.getTransaction(result.signature));
    assert.deepEqual(found.transfers, [{ from: wallet(3), to: chain().payTo, value: 2_000_000n, token: chain().usdcMint }]);
    assert.equal(found.sender, feePayer());

    // The same transaction again: already processed, not a second payment.
    assert.equal(await refusal(solana.cosignAndBroadcast(tx)), 'already_processed');
  });

  test('malicious or malformed transactions are refused before anything is signed', async () => {
    const feePayerBefore = await connection.getBalance(new PublicKey(feePayer()));
    const buyer = solanaKeypair(secret(3));
    const other = Keypair.generate().publicKey;
    const fake = new PublicKey(devnet.extras.fakeUsdc.solana);
    const fp = new PublicKey(feePayer());

    // Two transfers to payTo.
    assert.equal(await refusal(solana.cosignAndBroadcast(await build([await payment(1n), await payment(2n)]))), 'multiple_transfers');
    // The fee payer's own token account as source, the fee payer as authority.
    const drain = createTransferCheckedInstruction(ata(usdc(), fp), usdc(), ata(usdc(), chain().payTo), fp, 1n, 6);
    assert.equal(await refusal(solana.cosignAndBroadcast(await build([drain]))), 'fee_payer_in_instruction');
    // The fee payer as the destination owner's... or simply listed in a memo's signers.
    const memoWithFeePayer = new TransactionInstruction({ programId: new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'), keys: [{ pubkey: fp, isSigner: false, isWritable: false }], data: Buffer.from('x') });
    assert.equal(await refusal(solana.cosignAndBroadcast(await build([memoWithFeePayer, await payment(1n)]))), 'fee_payer_in_instruction');
    // SOL from the fee payer alongside the payment.
    const sol = SystemProgram.transfer({ fromPubkey: fp, toPubkey: buyer.publicKey, lamports: 1_000_000 });
    assert.equal(await refusal(solana.cosignAndBroadcast(await build([await payment(1n), sol]))), 'fee_payer_in_instruction');
    // Another mint to payTo's account for that mint.
    const wrongMint = createTransferCheckedInstruction(ata(fake, buyer.publicKey), fake, ata(fake, chain().payTo), buyer.publicKey, 5n, 6);
    assert.equal(await refusal(solana.cosignAndBroadcast(await build([wrongMint]))), 'wrong_mint');
    // USDC to someone else.
    const wrongDestination = createTransferCheckedInstruction(ata(usdc(), buyer.publicKey), usdc(), ata(usdc(), other), buyer.publicKey, 5n, 6);
    assert.equal(await refusal(solana.cosignAndBroadcast(await build([wrongDestination]))), 'wrong_destination');
    // Any other instruction, even one that only moves the buyer's own SOL.
    const buyerSol = SystemProgram.transfer({ fromPubkey: buyer.publicKey, toPubkey: other, lamports: 1_000_000 });
    assert.equal(await refusal(solana.cosignAndBroadcast(await build([await payment(1n), buyerSol]))), 'unexpected_instruction');
    // An unchecked Transfer (no mint in the instruction).
    const unchecked = createTransferInstruction(ata(usdc(), buyer.publicKey), ata(usdc(), chain().payTo), buyer.publicKey, 5n);
    assert.equal(await refusal(solana.cosignAndBroadcast(await build([unchecked]))), 'unexpected_instruction');
    // No transfer at all.
    assert.equal(await refusal(solana.cosignAndBroadcast(await build([ComputeBudgetProgram.setComputeUnitLimit({ units: 1000 })]))), 'missing_transfer');
    // A priority fee the service would pay for.
    const pricey = [ComputeBudgetProgram.setComputeUnitLimit({ units: 1_400_000 }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 10_000_000 }), await payment(1n)];
    assert.equal(await refusal(solana.cosignAndBroadcast(await build(pricey))), 'priority_fee_too_high');

    // The buyer as fee payer: not ours.
    const { blockhash } = await connection.getLatestBlockhash();
    const selfPaid = new Transaction({ feePayer: buyer.publicKey, recentBlockhash: blockhash }).add(await payment(1n));
    selfPaid.sign(buyer);
    assert.equal(await refusal(solana.cosignAndBroadcast(selfPaid.serialize().toString('base64'))), 'wrong_fee_payer');
    // Not signed by the buyer.
    const unsigned = new Transaction({ feePayer: fp, recentBlockhash: blockhash }).add(await payment(1n));
    assert.equal(await refusal(solana.cosignAndBroadcast(unsigned.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64'))), 'missing_signature');
    // Signed, then altered.
    const altered = new Transaction({ feePayer: fp, recentBlockhash: blockhash }).add(await payment(1n));
    altered.partialSign(buyer);
    const bytes = altered.serialize({ requireAllSignatures: false, verifySignatures: false });
    bytes[bytes.length - 8] ^= 1; // the amount of the TransferChecked becomes 257
    assert.equal(await refusal(solana.cosignAndBroadcast(bytes.toString('base64'))), 'invalid_signature');
    // Not a transaction.
    assert.equal(await refusal(solana.cosignAndBroadcast('bm90IGEgdHJhbnNhY3Rpb24=')), 'invalid_transaction');

    assert.equal(await connection.getBalance(fp), feePayerBefore, 'no refused transaction cost the fee payer anything');
  });

  test('a valid transfer that would fail on chain is refused by preflight and costs nothing', async () => {
    const fp = new PublicKey(feePayer());
    const before = await connection.getBalance(fp);
    const tx = await build([await payment(10n ** 15n)]);
    assert.equal(await refusal(solana.cosignAndBroadcast(tx)), 'insufficient_funds');
    assert.equal(await connection.getBalance(fp), before);
  });

  test('the standard buyer helper produces an acceptable transaction', async () => {
    const tx = await solanaPartiallySignedTransfer({ rpcUrl: chain().rpcUrl, mint: chain().usdcMint, secretKey: secret(4), toOwner: chain().payTo, amount: 10_000n, feePayer: feePayer() });
    const result = await solana.cosignAndBroadcast(tx);
    assert.equal(result.from, wallet(4));
    assert.equal(result.amount, 10_000n);
  });
});

describe('treasury and health', () => {
  test('the treasury pays out USDC, creating the recipient’s token account', async () => {
    const seller = Keypair.generate().publicKey.toBase58();
    const signature = await solana.sendUsdc(seller, 3_300_000n);
    assert.equal(await solanaTokenBalance({ rpcUrl: chain().rpcUrl, mint: chain().usdcMint, owner: seller }), 3_300_000n);
    const found = confirmed(await solana.getTransaction(signature));
    assert.deepEqual(found.transfers, [{ from: chain().payTo, to: seller, value: 3_300_000n, token: chain().usdcMint }]);
    // A second payout reuses the account.
    await solana.sendUsdc(seller, 1n);
    assert.equal(await solanaTokenBalance({ rpcUrl: chain().rpcUrl, mint: chain().usdcMint, owner: seller }), 3_300_001n);
    assert.equal(await refusal(solana.sendUsdc(seller, 10n ** 18n)), 'insufficient_funds');
    assert.equal(await refusal(solana.sendUsdc('nope', 1n)), 'invalid_address');
    assert.equal(await refusal(solana.sendUsdc(seller, 0n)), 'invalid_amount');
  });

  test('health reports the slot; an unreachable RPC is not ok', async () => {
    const h = await solana.health();
    assert.equal(h.ok, true);
    assert.match(h.blockNumber ?? '', /^\d+$/);
    const dead = createSolanaAdapter({
      config: { ...devnet.chains.solana, rpcUrl: 'http://127.0.0.1:9' },
      feePayerKey: devnet.signers.solanaFeePayerKey,
      treasuryKey: devnet.signers.solanaTreasuryKey,
      log: silentLogger,
    });
    const bad = await dead.health();
    assert.equal(bad.ok, false);
    assert.ok(bad.error);
  });
});
