/**
 * The payment core tried as an attacker would, on the devnet with real transactions: each
 * attack of the payment-integrity issue is reproduced and must be refused with the right code,
 * without a ledger row for money that did not arrive, without locking the honest buyer out, and
 * without leaving a receipt `running`. Base goes through an RPC proxy that behaves like a
 * mainnet node (gas estimated against `latest`); Solana through one that can change state
 * between a transaction's preflight and its execution.
 */
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createPublicClient, http, toHex, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Connection, Keypair, Message, PublicKey, Transaction, TransactionInstruction, VersionedTransaction, ComputeBudgetProgram } from '@solana/web3.js';
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import bs58 from 'bs58';
import type { TestDevnet } from '../helpers/devnet.ts';
import { callTool, decodePaymentResponse, makePdf, sessionToken, startPaidTestEnv, xPayment, type PaidTestEnv, type RecordingLogger } from '../helpers/paid.ts';
import { startRpcProxy, type RpcProxy } from '../helpers/rpc-proxy.ts';
import {
  evmSubmitAuthorization,
  evmTransferUsdc,
  signEip3009Authorization,
  solanaKeypair,
  solanaPartiallySignedTransaction,
  solanaPartiallySignedTransfer,
  solanaTransferInstruction,
  solanaTransferUsdc,
} from '../../devnet/buyer.ts';

let env: PaidTestEnv;
let devnet: TestDevnet;
let t: PaidTestEnv['t'];
let rec: RecordingLogger;
let sql: pg.Client;
let baseProxy: RpcProxy;
let solanaProxy: RpcProxy;
/** Runs once, right before the service's next Solana sendTransaction reaches the chain. */
let beforeSolanaSend: (() => Promise<void>) | null = null;

before(async () => {
  env = await startPaidTestEnv('attacks', { TOOL_WORKERS: '1', TOOL_JOB_TIMEOUT_MS: '1000', PAYMENT_CLOCK_SKEW_SECONDS: '1' }, async (d) => {
    // A mainnet RPC estimates gas against `latest`; the devnet would use its pending state.
    baseProxy = await startRpcProxy(d.chains.base.rpcUrl, (method, params) => (method === 'eth_estimateGas' ? [params[0], 'latest'] : undefined));
    // A validator's state can change between preflight and execution: the hook makes that happen.
    solanaProxy = await startRpcProxy(d.chains.solana.rpcUrl, async (method, params) => {
      if (method !== 'sendTransaction' || !beforeSolanaSend) return;
      const run = beforeSolanaSend;
      beforeSolanaSend = null;
      await run();
      return [params[0], { ...(params[1] as object), skipPreflight: true }];
    });
    return { ...d.chains, base: { ...d.chains.base, rpcUrl: baseProxy.url }, solana: { ...d.chains.solana, rpcUrl: solanaProxy.url } };
  });
  ({ devnet, t, rec, sql } = env);
});
after(async () => {
  await env?.close();
  await baseProxy?.close();
  await solanaProxy?.close();
});

// Guarantee: every refusal path releases or finalises its reservation.
afterEach(async () => {
  const running = (await sql.query(`select receipt_key from consumed_receipt where state = 'running' and lease_until > now()`)).rows;
  assert.deepEqual(running, [], 'no receipt is left running after an attack');
});

const evm = (n: 'base' | 'polygon') => devnet.info.chains[n];
const sol = () => devnet.info.chains.solana;
const buyerKey = (i: number) => devnet.info.accounts[i].evmPrivateKey;
const solSecret = (i: number) => devnet.info.accounts[i].solanaSecretKey;
const ledgerFor = async (tx: string) => (await sql.query('select * from payment where lower(tx) = lower($1)', [tx])).rows;
const ledgerCount = async () => Number((await sql.query('select count(*) from payment')).rows[0].count);
const rpc = (n: 'base' | 'polygon') => createPublicClient({ transport: http(evm(n).rpcUrl) });
const evmRequest = (n: 'base' | 'polygon', method: string, params: unknown[] = []) => rpc(n).request({ method: method as never, params: params as never });
const relayerNonce = async (n: 'base' | 'polygon') => {
  const relayer = privateKeyToAccount(devnet.signers.evmRelayerKey as Hex).address;
  return rpc(n).getTransactionCount({ address: relayer, blockTag: 'pending' });
};

/** A 1-page PDF quoted for pdf-text (5000 atomic); every label gives another request. */
async function quoted(label: string, pages = 1, path = '/v1/pdf-text') {
  const pdf = await makePdf(pages, label);
  const q = await callTool(t.baseUrl, path, pdf);
  assert.equal(q.status, 402);
  return pdf;
}

/** A fresh EVM buyer holding exactly `usdc` on a chain (and gas). */
async function freshEvmBuyer(n: 'base' | 'polygon', usdc: bigint): Promise<string> {
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  await evmRequest(n, 'hardhat_setBalance', [address, toHex(10n ** 18n)]);
  await evmTransferUsdc({ rpcUrl: evm(n).rpcUrl, chainId: evm(n).chainId, usdc: evm(n).usdc, privateKey: buyerKey(0), to: address, amount: usdc });
  return key;
}

test('attack 1: a nonce the victim used on chain, sent back with a junk signature and a huge value, buys nothing', async () => {
  const c = evm('polygon');
  const victim = buyerKey(1);
  // The victim spends an authorization on something unrelated to the service.
  const unrelated = await signEip3009Authorization({ chainId: c.chainId, usdc: c.usdc, privateKey: victim, to: '0x000000000000000000000000000000000000dEaD', value: 1_000n });
  const victimTx = await evmSubmitAuthorization({ rpcUrl: c.rpcUrl, chainId: c.chainId, usdc: c.usdc, privateKey: buyerKey(4), signed: unrelated });
  // The victim also pays the service through an authorization someone submitted directly.
  const paying = await signEip3009Authorization({ chainId: c.chainId, usdc: c.usdc, privateKey: victim, to: c.payTo, value: 5_000n });
  const payingTx = await evmSubmitAuthorization({ rpcUrl: c.rpcUrl, chainId: c.chainId, usdc: c.usdc, privateKey: buyerKey(4), signed: paying });

  const before = await ledgerCount();
  for (const used of [unrelated, paying]) {
    const claim = { ...used.authorization, to: c.payTo, value: '1000000000000' };
    const junk = `0x${'11'.repeat(65)}`;
    const pdf = await quoted(`attack1-${used.authorization.nonce}`);
    for (const headers of <Record<string, string>[]>[{ 'x-payment': xPayment('polygon', 'exact', { signature: junk, authorization: claim }) }, { 'x-session-token': sessionToken('polygon', { authorization: claim, signature: junk }) }]) {
      const r = await callTool(t.baseUrl, '/v1/pdf-text', pdf, headers);
      assert.equal(r.status, 402, JSON.stringify(r.body));
      assert.equal(r.body.error, 'authorization_invalid');
      assert.match(r.body.message, /signature/);
    }
    // The victim's real signature over the real values, presented with a bigger claimed value: still refused.
    const inflated = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-payment': xPayment('polygon', 'exact', { signature: used.signature, authorization: { ...used.authorization, value: '1000000000000' } }) });
    assert.equal(inflated.body.error, used === unrelated ? 'wrong_recipient' : 'authorization_invalid');
  }
  assert.equal(await ledgerCount(), before, 'no ledger row for money that did not arrive');
  assert.equal((await ledgerFor(victimTx)).length, 0);

  // The victim's own authorization (front-run by someone, but to payTo) still pays its quoted call, for what the chain moved.
  const pdf = await quoted('attack1-victim');
  const r = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-payment': xPayment('polygon', 'exact', { signature: paying.signature, authorization: paying.authorization }) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const [row] = await ledgerFor(payingTx);
  assert.equal(row.amount, '5000');
});

test('attack 2: the relayer’s settlement transaction cannot be redeemed as {tx_hash} by someone else', async () => {
  const c = evm('base');
  const pdf = await quoted('attack2-buyer');
  const auth = await signEip3009Authorization({ chainId: c.chainId, usdc: c.usdc, privateKey: buyerKey(2), to: c.payTo, value: 5_000n });
  await evmRequest('base', 'evm_setAutomine', [false]);
  let buyer: ReturnType<typeof callTool> | null = null;
  try {
    buyer = callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-session-token': sessionToken('base', auth) });
    // The settlement sits in the mempool: a watcher sees its hash before the service records the payment.
    let hash: string | undefined;
    for (let i = 0; i < 100 && !hash; i++) {
      const pending = (await evmRequest('base', 'eth_getBlockByNumber', ['pending', true])) as { transactions: { hash: string }[] } | null;
      hash = pending?.transactions[0]?.hash;
      if (!hash) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(hash, 'the relayer transaction is pending');
    const attackerPdf = await quoted('attack2-thief');
    // The thief polls for the transaction while the block is mined: it sees it as soon as the service does.
    const thief = callTool(t.baseUrl, '/v1/pdf-text', attackerPdf, { 'x-payment': xPayment('base', 'exact', { tx_hash: hash }) });
    await new Promise((r) => setTimeout(r, 300));
    await evmRequest('base', 'evm_mine');
    const [answer, stolen] = await Promise.all([buyer, thief]);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.notEqual(stolen.status, 200, JSON.stringify(stolen.body));
    const late = await callTool(t.baseUrl, '/v1/pdf-text', attackerPdf, { 'x-payment': xPayment('base', 'exact', { tx_hash: hash }) });
    assert.ok(late.status === 409 || (late.status === 402 && late.body.error === 'invalid_payment'), JSON.stringify(late.body));
    assert.equal((await ledgerFor(hash)).length, 1);
    // The buyer's retry replays its answer.
    const again = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-session-token': sessionToken('base', auth) });
    assert.equal(again.headers.get('x-idempotent-replay'), 'true');
  } finally {
    await evmRequest('base', 'evm_setAutomine', [true]);
    await evmRequest('base', 'evm_mine');
    await buyer?.catch(() => undefined);
  }
});

test('attack 2 (solana): a co-signed {transaction} payment cannot be redeemed as a signature receipt', async () => {
  const pdf = await quoted('attack2-sol-buyer');
  const transaction = await solanaPartiallySignedTransfer({ rpcUrl: sol().rpcUrl, mint: sol().usdcMint, secretKey: solSecret(1), toOwner: sol().payTo, amount: 5_000n, feePayer: sol().feePayer });
  const paid = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-payment': xPayment('solana', 'exact', { transaction }) });
  assert.equal(paid.status, 200, JSON.stringify(paid.body));
  const signature: string = decodePaymentResponse(paid.headers.get('x-payment-response')).transaction;
  const thief = await callTool(t.baseUrl, '/v1/pdf-text', await quoted('attack2-sol-thief'), {
    'x-payment': xPayment('solana', 'spl-transfer', { signature, from: solanaKeypair(solSecret(1)).publicKey.toBase58(), to: sol().payTo, amount: '5000', mint: sol().usdcMint }),
  });
  assert.equal(thief.status, 409);
  assert.equal((await ledgerFor(signature)).length, 1);
});

test('attack 3: a plain transfer to payTo pays only for a request quoted before it', async () => {
  const c = evm('polygon');
  const victimPdf = await quoted('attack3-victim');
  const tx = await evmTransferUsdc({ rpcUrl: c.rpcUrl, chainId: c.chainId, usdc: c.usdc, privateKey: buyerKey(3), to: c.payTo, amount: 5_000n });
  // A bot watching payTo presents it for a same-priced request it never had quoted.
  const neverQuoted = await callTool(t.baseUrl, '/v1/pdf-text', await makePdf(1, 'attack3-bot'), { 'x-payment': xPayment('polygon', 'exact', { tx_hash: tx }) });
  assert.equal(neverQuoted.status, 402);
  assert.equal(neverQuoted.body.error, 'quote_expired');
  assert.match(neverQuoted.body.message, /No quote was issued/);
  const r = await callTool(t.baseUrl, '/v1/pdf-text', victimPdf, { 'x-payment': xPayment('polygon', 'exact', { tx_hash: tx }) });
  assert.equal(r.status, 200, 'the payer still gets its call');

  // Solana: a bot that quotes its own request only after seeing the transfer is too late.
  const solVictim = await quoted('attack3-sol-victim');
  const signature = await solanaTransferUsdc({ rpcUrl: sol().rpcUrl, mint: sol().usdcMint, secretKey: solSecret(3), toOwner: sol().payTo, amount: 5_000n });
  await new Promise((r) => setTimeout(r, 2_500)); // past the block second plus the 1 s skew this suite allows
  const late = await quoted('attack3-sol-bot');
  const receipt = xPayment('solana', 'spl-transfer', { signature, from: solanaKeypair(solSecret(3)).publicKey.toBase58(), to: sol().payTo, amount: '5000', mint: sol().usdcMint });
  const stolen = await callTool(t.baseUrl, '/v1/pdf-text', late, { 'x-payment': receipt });
  assert.equal(stolen.status, 402);
  assert.equal(stolen.body.error, 'quote_expired');
  assert.match(stolen.body.message, /before this request was quoted/);
  assert.equal((await callTool(t.baseUrl, '/v1/pdf-text', solVictim, { 'x-payment': receipt })).status, 200);
});

test('attack 4: a co-signed Solana transfer that landed but failed is refused for good, never "already processed"', async () => {
  const connection = new Connection(sol().rpcUrl, 'confirmed');
  const mint = new PublicKey(sol().usdcMint);
  const victim = Keypair.generate();
  const sink = solanaKeypair(solSecret(2));
  await solanaTransferUsdc({ rpcUrl: sol().rpcUrl, mint: sol().usdcMint, secretKey: solSecret(2), toOwner: victim.publicKey.toBase58(), amount: 20_000n });
  const pdf = await quoted('attack4');
  const transaction = await solanaPartiallySignedTransfer({ rpcUrl: sol().rpcUrl, mint: sol().usdcMint, secretKey: bs58.encode(victim.secretKey), toOwner: sol().payTo, amount: 5_000n, feePayer: sol().feePayer });
  // Between preflight and execution the buyer empties its token account.
  beforeSolanaSend = async () => {
    const { blockhash } = await connection.getLatestBlockhash();
    const drain = new Transaction({ feePayer: sink.publicKey, recentBlockhash: blockhash }).add(
      createTransferCheckedInstruction(getAssociatedTokenAddressSync(mint, victim.publicKey), mint, getAssociatedTokenAddressSync(mint, sink.publicKey), victim.publicKey, 20_000n, 6),
    );
    drain.sign(sink, victim);
    const sig = await connection.sendRawTransaction(drain.serialize());
    await connection.confirmTransaction(sig, 'confirmed');
  };
  const header = { 'x-payment': xPayment('solana', 'exact', { transaction }) };
  const first = await callTool(t.baseUrl, '/v1/pdf-text', pdf, header);
  assert.equal(first.status, 402, JSON.stringify(first.body));
  assert.equal(first.body.error, 'invalid_payment');
  assert.match(first.body.message, /landed on solana and failed/);
  for (let i = 0; i < 2; i++) {
    const retry = await callTool(t.baseUrl, '/v1/pdf-text', pdf, header);
    assert.equal(retry.status, 402, JSON.stringify(retry.body));
    assert.equal(retry.body.error, 'invalid_payment');
  }
  const [row] = (await sql.query(`select state, payment_id from consumed_receipt where receipt_key like 'solana:tx:%' and state = 'done' and payment_id is null order by created_at desc limit 1`)).rows;
  assert.deepEqual(row, { state: 'done', payment_id: null }, 'the receipt is final, not released');
  assert.equal(Number((await sql.query(`select count(*) from payment where payer = $1`, [victim.publicKey.toBase58()])).rows[0].count), 0);
});

test('attack 5: the facilitator does not spend the fee payer’s SOL on dust, extra signers or high priority fees', async () => {
  const connection = new Connection(sol().rpcUrl, 'confirmed');
  const feePayer = new PublicKey(sol().feePayer);
  const before = await connection.getBalance(feePayer);
  const pay = (amount: bigint) => solanaTransferInstruction(connection, { mint: sol().usdcMint, secretKey: solSecret(3), toOwner: sol().payTo, amount });
  const extra = Keypair.generate();
  // A memo may name signers: each one is another signature fee for the fee payer.
  const withExtraSigner = new TransactionInstruction({ programId: new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'), keys: [{ pubkey: extra.publicKey, isSigner: true, isWritable: false }], data: Buffer.from('x') });
  const cases: [string, string][] = [
    ['amount_below_minimum', await solanaPartiallySignedTransaction({ rpcUrl: sol().rpcUrl, feePayer: sol().feePayer, secretKey: solSecret(3), instructions: [await pay(1n)] })],
    ['unexpected_signers', await solanaPartiallySignedTransaction({ rpcUrl: sol().rpcUrl, feePayer: sol().feePayer, secretKey: solSecret(3), instructions: [withExtraSigner, await pay(20_000n)], extraSigners: [extra] })],
    [
      'priority_fee_too_high',
      await solanaPartiallySignedTransaction({
        rpcUrl: sol().rpcUrl,
        feePayer: sol().feePayer,
        secretKey: solSecret(3),
        instructions: [ComputeBudgetProgram.setComputeUnitLimit({ units: 200_000 }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 500_000 }), await pay(20_000n)],
      }),
    ],
    ['compute_limit_too_high', await solanaPartiallySignedTransaction({ rpcUrl: sol().rpcUrl, feePayer: sol().feePayer, secretKey: solSecret(3), instructions: [ComputeBudgetProgram.setComputeUnitLimit({ units: 1_400_000 }), await pay(20_000n)] })],
  ];
  for (const [reason, transaction] of cases) {
    const res = await fetch(`${t.baseUrl}/v1/_facilitator/solana`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ transaction }) });
    const body = (await res.json()) as { reason: string };
    assert.equal(res.status, 400, `${reason}: ${JSON.stringify(body)}`);
    assert.equal(body.reason, reason);
  }
  // The paid-call rail co-signs only for a live quote of the request.
  const unquoted = await solanaPartiallySignedTransfer({ rpcUrl: sol().rpcUrl, mint: sol().usdcMint, secretKey: solSecret(3), toOwner: sol().payTo, amount: 5_000n, feePayer: sol().feePayer });
  const r = await callTool(t.baseUrl, '/v1/pdf-text', await makePdf(1, 'attack5-unquoted'), { 'x-payment': xPayment('solana', 'exact', { transaction: unquoted }) });
  assert.equal(r.status, 402);
  assert.equal(r.body.error, 'quote_expired');
  assert.equal(await connection.getBalance(feePayer), before, 'no refused transaction cost the fee payer anything');
});

test('attack 6: one payment buys one run of a document that times out, not unlimited CPU', async () => {
  // Its own app with a job limit no document of 300 pages meets (the suite's app keeps 1 s).
  const { startTestApp, testConfig } = await import('../helpers/app.ts');
  const { recordingLogger } = await import('../helpers/paid.ts');
  const rec6 = recordingLogger();
  const app6 = await startTestApp({ ...testConfig({ DATABASE_URL: env.db.url, TOOL_WORKERS: '1', TOOL_JOB_TIMEOUT_MS: '20', PAYMENT_POLL_TIMEOUT_MS: '1500', PAYMENT_POLL_INTERVAL_MS: '200' }), chains: devnet.chains }, rec6.log);
  try {
    const pdf = await makePdf(300, 'attack6');
    assert.equal((await callTool(app6.baseUrl, '/v1/pdf-json', pdf)).status, 402);
    const c = evm('polygon');
    const tx = await evmTransferUsdc({ rpcUrl: c.rpcUrl, chainId: c.chainId, usdc: c.usdc, privateKey: buyerKey(3), to: c.payTo, amount: 15_000n * 300n });
    const runs = () => rec6.lines.filter((l) => l.msg === 'tool job started' && l.lane !== 'inspect').length;
    const before = runs();
    const header = { 'x-payment': xPayment('polygon', 'exact', { tx_hash: tx }) };
    const first = await callTool(app6.baseUrl, '/v1/pdf-json', pdf, header);
    assert.equal(first.status, 504, JSON.stringify(first.body).slice(0, 300));
    assert.equal(first.body.error, 'processing_timeout');
    for (let i = 0; i < 3; i++) {
      const retry = await callTool(app6.baseUrl, '/v1/pdf-json', pdf, header);
      assert.equal(retry.status, 504);
      assert.equal(retry.headers.get('x-idempotent-replay'), 'true');
    }
    assert.equal(runs() - before, 1, 'the tool ran once');
    assert.equal((await ledgerFor(tx)).length, 1);
  } finally {
    await app6.close();
  }
});

test('attack 7: a Solana transaction naming an account index outside its account list is refused, not a 500', async () => {
  const { blockhash } = await new Connection(sol().rpcUrl).getLatestBlockhash();
  const buyer = solanaKeypair(solSecret(3));
  const message = new Message({
    header: { numRequiredSignatures: 2, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1 },
    accountKeys: [new PublicKey(sol().feePayer), buyer.publicKey, new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')],
    recentBlockhash: blockhash,
    instructions: [{ programIdIndex: 2, accounts: [1, 250, 7, 1], data: bs58.encode(Buffer.from([12, 1, 0, 0, 0, 0, 0, 0, 0, 6])) }],
  });
  const tx = new VersionedTransaction(message, [new Uint8Array(64), new Uint8Array(64)]);
  const transaction = Buffer.from(tx.serialize()).toString('base64');
  const fac = await fetch(`${t.baseUrl}/v1/_facilitator/solana`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ transaction }) });
  const facBody = (await fac.json()) as { reason: string };
  assert.equal(fac.status, 400, JSON.stringify(facBody));
  assert.equal(facBody.reason, 'invalid_transaction');
  const r = await callTool(t.baseUrl, '/v1/pdf-text', await quoted('attack7'), { 'x-payment': xPayment('solana', 'exact', { transaction }) });
  assert.equal(r.status, 402);
  assert.equal(r.body.error, 'invalid_payment');
});

test('attack 8: concurrent authorizations over one small balance: the relayer pays gas for one transfer only', async () => {
  const c = evm('base');
  const key = await freshEvmBuyer('base', 5_000n);
  const pdfs = [await quoted('attack8-a'), await quoted('attack8-b')];
  const auths = await Promise.all(pdfs.map(() => signEip3009Authorization({ chainId: c.chainId, usdc: c.usdc, privateKey: key, to: c.payTo, value: 5_000n })));
  const nonceBefore = await relayerNonce('base');
  await evmRequest('base', 'evm_setAutomine', [false]);
  let answers: Awaited<ReturnType<typeof callTool>>[] = [];
  try {
    const calls = Promise.all(pdfs.map((pdf, i) => callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-session-token': sessionToken('base', auths[i]) })));
    let done = false;
    void calls.finally(() => (done = true));
    // Blocks come every 300 ms, as on a chain with its own block time.
    while (!done) {
      await new Promise((r) => setTimeout(r, 300));
      await evmRequest('base', 'evm_mine');
    }
    answers = await calls;
  } finally {
    await evmRequest('base', 'evm_setAutomine', [true]);
  }
  assert.deepEqual(answers.map((a) => a.status).sort(), [200, 402], JSON.stringify(answers.map((a) => a.body)));
  const refused = answers.find((a) => a.status === 402)!;
  assert.equal(refused.body.error, 'authorization_invalid');
  assert.equal((await relayerNonce('base')) - nonceBefore, 1, 'the relayer sent one transaction, none that reverted');
});

test('legitimate: an authorization someone front-runs on chain still pays the buyer who signed it', async () => {
  const c = evm('base');
  const pdf = await quoted('front-run');
  const auth = await signEip3009Authorization({ chainId: c.chainId, usdc: c.usdc, privateKey: buyerKey(4), to: c.payTo, value: 5_000n });
  const tx = await evmSubmitAuthorization({ rpcUrl: c.rpcUrl, chainId: c.chainId, usdc: c.usdc, privateKey: buyerKey(0), signed: auth });
  // The front-runner cannot redeem its own transaction as a tx-hash receipt: the authorization is the receipt.
  const byHash = await callTool(t.baseUrl, '/v1/pdf-text', await quoted('front-runner'), { 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) });
  assert.equal(byHash.status, 402);
  assert.equal(byHash.body.error, 'invalid_payment');
  assert.match(byHash.body.message, /authorization/);
  const r = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-session-token': sessionToken('base', auth) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal((await ledgerFor(tx))[0].amount, '5000');
});
