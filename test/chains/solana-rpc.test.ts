/**
 * The devnet's Solana JSON-RPC server on its own (no hardhat needed): the protocol surface
 * web3.js relies on, failed transactions recorded with their error, blockhash expiry,
 * WebSocket confirmation, and JSON-RPC errors for anything unknown or malformed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import {
  ComputeBudgetProgram,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  sendAndConfirmTransaction,
  SendTransactionError,
  SystemProgram,
  Transaction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import { devnetKeys } from '../../devnet/devnet-keys.ts';
import { seedSolana } from '../../devnet/solana/setup-solana.ts';
import { startSolanaRpcServer, type SolanaRpcServer } from '../../devnet/solana/solana-rpc-server.ts';
import { createSvmLedger, type SvmLedger } from '../../devnet/solana/svm-ledger.ts';
import { USDC_ADDRESSES } from '../../src/chains/usdc-addresses.ts';
import { silentLogger } from '../../src/log.ts';

const keys = devnetKeys(2);
const buyer = keys.buyers[0].solana;
const treasury = keys.solanaTreasury;
const mint = new PublicKey(USDC_ADDRESSES.solana);
let ledger: SvmLedger;
let server: SolanaRpcServer;
let connection: Connection;

before(async () => {
  // No slot timer: the test moves slots itself where it matters.
  ledger = createSvmLedger({ log: silentLogger, slotMs: 0 });
  seedSolana(ledger, {
    usdcMint: mint.toBase58(),
    fakeMint: keys.solanaFakeMint.publicKey.toBase58(),
    mintAuthority: keys.solanaMintAuthority.publicKey,
    solOnly: [keys.solanaFeePayer.publicKey],
    holders: [buyer.publicKey, treasury.publicKey],
    lamportsEach: 100n * 1_000_000_000n,
    usdcEach: 1_000_000_000n,
    decimals: 6,
  });
  server = await startSolanaRpcServer({ ledger, log: silentLogger });
  connection = new Connection(server.url, 'confirmed');
});
after(async () => {
  await server?.close();
  ledger?.close();
});

async function rpc(body: unknown): Promise<unknown> {
  const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  assert.equal(res.status, 200);
  return res.json();
}

const usdcTransfer = (amount: bigint, to: PublicKey = treasury.publicKey) =>
  createTransferCheckedInstruction(getAssociatedTokenAddressSync(mint, buyer.publicKey), mint, getAssociatedTokenAddressSync(mint, to), buyer.publicKey, amount, 6);

test('unknown methods, malformed requests and batches get JSON-RPC answers', async () => {
  assert.deepEqual(await rpc({ jsonrpc: '2.0', id: 7, method: 'getBlockProduction' }), { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 7 });
  assert.deepEqual(await rpc('{not json'), { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
  assert.deepEqual(await rpc([]), { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: null });
  assert.equal(((await rpc({ jsonrpc: '2.0', id: 1, method: 'getBalance', params: ['not-a-key'] })) as { error: { code: number } }).error.code, -32602);
  const batch = (await rpc([
    { jsonrpc: '2.0', id: 1, method: 'getHealth' },
    { jsonrpc: '2.0', id: 2, method: 'noSuchMethod' },
    { jsonrpc: '2.0', id: 3, method: 'getSlot' },
  ])) as { id: number; result?: unknown; error?: { code: number } }[];
  assert.deepEqual(batch.map((r) => r.id), [1, 2, 3]);
  assert.equal(batch[0].result, 'ok');
  assert.equal(batch[1].error?.code, -32601);
  assert.equal(typeof batch[2].result, 'number');
});

test('node information methods answer like a validator', async () => {
  assert.equal(typeof (await connection.getVersion())['solana-core'], 'string');
  assert.equal(typeof (await connection.getGenesisHash()), 'string');
  const slot = await connection.getSlot();
  assert.equal(await connection.getBlockHeight(), slot);
  const epoch = await connection.getEpochInfo();
  assert.equal(epoch.absoluteSlot, slot);
  assert.equal(await connection.getMinimumBalanceForRentExemption(165), 2_039_280);
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
  assert.equal(lastValidBlockHeight, slot + 150);
  assert.equal(await connection.isBlockhashValid(blockhash).then((r) => r.value), true);
  const message = new TransactionMessage({ payerKey: buyer.publicKey, recentBlockhash: blockhash, instructions: [usdcTransfer(1n)] }).compileToV0Message();
  assert.equal((await connection.getFeeForMessage(message)).value, 5000);
  assert.equal((await connection.getTokenAccountBalance(getAssociatedTokenAddressSync(mint, buyer.publicKey))).value.decimals, 6);
});

test('sendAndConfirmTransaction works end to end (WebSocket signatureSubscribe)', async () => {
  const to = Keypair.generate().publicKey;
  const tx = new Transaction().add(SystemProgram.transfer({ fromPubkey: buyer.publicKey, toPubkey: to, lamports: LAMPORTS_PER_SOL }));
  const signature = await sendAndConfirmTransaction(connection, tx, [buyer], { commitment: 'confirmed' });
  assert.equal(await connection.getBalance(to), LAMPORTS_PER_SOL);
  const status = (await connection.getSignatureStatuses([signature])).value[0];
  assert.equal(status?.err, null);
  assert.equal(status?.confirmationStatus, 'finalized');
});

test('requestAirdrop lands as a recorded transaction', async () => {
  const to = Keypair.generate().publicKey;
  const signature = await connection.requestAirdrop(to, 2 * LAMPORTS_PER_SOL);
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
  await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight });
  assert.equal(await connection.getBalance(to), 2 * LAMPORTS_PER_SOL);
  assert.ok(await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 }));
});

test('getTransaction returns token balances in json and jsonParsed encodings', async () => {
  const { blockhash } = await connection.getLatestBlockhash();
  const tx = new Transaction({ feePayer: buyer.publicKey, recentBlockhash: blockhash }).add(usdcTransfer(123_456n));
  tx.sign(buyer);
  const signature = await connection.sendRawTransaction(tx.serialize());

  const plain = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
  assert.ok(plain?.meta);
  assert.equal(plain.meta.err, null);
  assert.equal(plain.meta.fee, 5000);
  assert.ok(plain.blockTime && plain.blockTime > 1_600_000_000);
  const owners = (list: typeof plain.meta.preTokenBalances) => (list ?? []).map((b) => [b.accountIndex, b.mint, b.owner, b.uiTokenAmount.amount, b.uiTokenAmount.decimals]);
  const buyerAta = plain.transaction.message.staticAccountKeys.findIndex((k) => k.equals(getAssociatedTokenAddressSync(mint, buyer.publicKey)));
  const payToAta = plain.transaction.message.staticAccountKeys.findIndex((k) => k.equals(getAssociatedTokenAddressSync(mint, treasury.publicKey)));
  const pre = owners(plain.meta.preTokenBalances);
  const post = owners(plain.meta.postTokenBalances);
  const amountOf = (rows: ReturnType<typeof owners>, index: number) => BigInt(rows.find((r) => r[0] === index)![3] as string);
  assert.equal(amountOf(pre, buyerAta) - amountOf(post, buyerAta), 123_456n);
  assert.equal(amountOf(post, payToAta) - amountOf(pre, payToAta), 123_456n);
  assert.deepEqual(post.find((r) => r[0] === payToAta)?.slice(1, 3), [mint.toBase58(), treasury.publicKey.toBase58()]);

  const parsed = await connection.getParsedTransaction(signature, { maxSupportedTransactionVersion: 0 });
  const ix = parsed?.transaction.message.instructions[0];
  assert.ok(ix && 'parsed' in ix);
  assert.equal(ix.parsed.type, 'transferChecked');
  assert.equal(ix.parsed.info.tokenAmount.amount, '123456');
  assert.equal(parsed?.meta?.postTokenBalances?.length, 2);

  const raw = (await rpc({ jsonrpc: '2.0', id: 1, method: 'getTransaction', params: [signature, { encoding: 'base64' }] })) as { result: { transaction: [string, string] } };
  assert.equal(raw.result.transaction[1], 'base64');
  assert.equal(VersionedTransaction.deserialize(Buffer.from(raw.result.transaction[0], 'base64')).signatures.length, 1);
  assert.equal(await connection.getTransaction('1111111111111111111111111111111111111111111111111111111111111111', { maxSupportedTransactionVersion: 0 }), null);
});

test('a v0 transaction needs maxSupportedTransactionVersion to be read', async () => {
  const { blockhash } = await connection.getLatestBlockhash();
  const message = new TransactionMessage({ payerKey: buyer.publicKey, recentBlockhash: blockhash, instructions: [usdcTransfer(1n)] }).compileToV0Message();
  const tx = new VersionedTransaction(message);
  tx.sign([buyer]);
  const signature = await connection.sendTransaction(tx);
  const answer = (await rpc({ jsonrpc: '2.0', id: 1, method: 'getTransaction', params: [signature, { encoding: 'json' }] })) as { error: { code: number } };
  assert.equal(answer.error.code, -32015);
  assert.equal((await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 }))?.version, 0);
});

test('a failing transaction: refused by preflight, recorded with meta.err when preflight is skipped', async () => {
  const { blockhash } = await connection.getLatestBlockhash();
  const tx = new Transaction({ feePayer: buyer.publicKey, recentBlockhash: blockhash }).add(usdcTransfer(10n ** 15n));
  tx.sign(buyer);
  await assert.rejects(connection.sendRawTransaction(tx.serialize()), (e: unknown) => {
    assert.ok(e instanceof SendTransactionError);
    assert.match(e.message, /custom program error: 0x1/);
    assert.ok(e.logs?.some((l) => /insufficient funds/.test(l)));
    return true;
  });
  const solBefore = await connection.getBalance(buyer.publicKey);
  const signature = await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
  const found = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
  assert.deepEqual(found?.meta?.err, { InstructionError: [0, { Custom: 1 }] });
  assert.equal(found?.meta?.fee, 5000);
  assert.equal(await connection.getBalance(buyer.publicKey), solBefore - 5000);
  assert.deepEqual((await connection.getSignatureStatuses([signature])).value[0]?.err, { InstructionError: [0, { Custom: 1 }] });
});

test('a blockhash expires after 150 slots; a compute-unit price is charged', async () => {
  const { blockhash } = await connection.getLatestBlockhash();
  for (let i = 0; i < 151; i++) ledger.advanceSlot();
  assert.equal((await connection.isBlockhashValid(blockhash)).value, false);
  const stale = new Transaction({ feePayer: buyer.publicKey, recentBlockhash: blockhash }).add(usdcTransfer(1n));
  stale.sign(buyer);
  await assert.rejects(connection.sendRawTransaction(stale.serialize()), /Blockhash not found/);

  const fresh = await connection.getLatestBlockhash();
  const priced = new Transaction({ feePayer: buyer.publicKey, ...fresh }).add(
    ComputeBudgetProgram.setComputeUnitLimit({ units: 10_000 }),
    ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000_000 }),
    usdcTransfer(1n),
  );
  priced.sign(buyer);
  const signature = await connection.sendRawTransaction(priced.serialize());
  assert.equal((await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 }))?.meta?.fee, 5000 + 10_000);
});

test('account reads: token accounts by owner, parsed and raw account data', async () => {
  const ata = getAssociatedTokenAddressSync(mint, buyer.publicKey);
  const byOwner = await connection.getParsedTokenAccountsByOwner(buyer.publicKey, { mint });
  assert.equal(byOwner.value.length, 1);
  assert.ok(byOwner.value[0].pubkey.equals(ata));
  const parsed = await connection.getParsedAccountInfo(mint);
  assert.deepEqual((parsed.value?.data as { parsed: { info: { decimals: number } } }).parsed.info.decimals, 6);
  const raw = await connection.getAccountInfo(ata);
  assert.equal(raw?.data.length, 165);
  assert.equal(raw?.owner.toBase58(), 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
  const [missing, present] = await connection.getMultipleAccountsInfo([Keypair.generate().publicKey, ata]);
  assert.equal(missing, null);
  assert.ok(present);
  assert.equal((await connection.getSignaturesForAddress(buyer.publicKey, { limit: 2 })).length, 2);
});

test('the WebSocket endpoint answers unknown methods with an error', async () => {
  const ws = new WebSocket(server.wsUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  const reply = new Promise<string>((resolve) => (ws.onmessage = (m) => resolve(String(m.data))));
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'slotSubscribe' }));
  assert.deepEqual(JSON.parse(await reply), { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 9 });
  ws.close();
});
