/**
 * The x402 paid call on the Solana devnet (LiteSVM behind JSON-RPC): the spl-transfer
 * receipt, the x402 reference {transaction} payload co-signed by the service, the
 * facilitator endpoint, and each refusal provoked by a real transaction.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import type { TestDevnet } from '../helpers/devnet.ts';
import { assertMatchesContract } from '../helpers/contract.ts';
import { callTool, decodePaymentResponse, makePdf, startPaidTestEnv, xPayment, type PaidTestEnv, type RecordingLogger } from '../helpers/paid.ts';
import { solanaKeypair, solanaPartiallySignedTransfer, solanaTransferUsdc } from '../../devnet/buyer.ts';

let env: PaidTestEnv;
let devnet: TestDevnet;
let t: PaidTestEnv['t'];
let rec: RecordingLogger;
let sql: pg.Client;

before(async () => {
  env = await startPaidTestEnv('paysol', { TOOL_WORKERS: '1' });
  ({ devnet, t, rec, sql } = env);
});
after(() => env?.close());

const sol = () => devnet.info.chains.solana;
const secret = (i: number) => devnet.info.accounts[i].solanaSecretKey;
const owner = (i: number) => solanaKeypair(secret(i)).publicKey.toBase58();
const transfer = (amount: bigint, opts: { buyer?: number; mint?: string; toOwner?: string } = {}) =>
  solanaTransferUsdc({ rpcUrl: sol().rpcUrl, mint: opts.mint ?? sol().usdcMint, secretKey: secret(opts.buyer ?? 0), toOwner: opts.toOwner ?? sol().payTo, amount });
const receipt = (signature: string, amount: bigint, buyer = 0) => xPayment('solana', 'spl-transfer', { signature, from: owner(buyer), to: sol().payTo, amount: amount.toString(), mint: sol().usdcMint });
const ledger = async (tx: string) => (await sql.query('select * from payment where tx = $1', [tx])).rows;

test('spl-transfer: the buyer pays USDC, presents {signature, from, to, amount, mint}, gets the answer once', async () => {
  const pdf = await makePdf(2, 'solana-spl');
  const quote = await callTool(t.baseUrl, '/v1/pdf-text', pdf);
  assert.equal(quote.status, 402);
  const signature = await transfer(10_000n);
  const r = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-payment': receipt(signature, 10_000n) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.match(r.body.text, /solana-spl page 2/);
  assert.deepEqual(decodePaymentResponse(r.headers.get('x-payment-response')), { success: true, transaction: signature, network: 'solana', payer: owner(0) });
  const [row] = await ledger(signature);
  assert.equal(row.amount, '10000');
  assert.equal(row.payer, owner(0));

  const runs = rec.count('tool finished');
  const replay = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-payment': receipt(signature, 10_000n) });
  assert.equal(replay.headers.get('x-idempotent-replay'), 'true');
  assert.deepEqual(replay.body, r.body);
  assert.equal(rec.count('tool finished'), runs);

  const other = await callTool(t.baseUrl, '/v1/pdf-text', await makePdf(2, 'solana-other'), { 'x-payment': receipt(signature, 10_000n) });
  assert.equal(other.status, 409);
  assert.equal(other.body.error, 'tx_already_consumed');
});

test('exact with the x402 reference {transaction}: the service co-signs as fee payer, broadcasts once', async () => {
  const pdf = await makePdf(1, 'solana-exact');
  await callTool(t.baseUrl, '/v1/pdf-md', pdf);
  const transaction = await solanaPartiallySignedTransfer({ rpcUrl: sol().rpcUrl, mint: sol().usdcMint, secretKey: secret(1), toOwner: sol().payTo, amount: 10_000n, feePayer: sol().feePayer });
  const header = xPayment('solana', 'exact', { transaction });
  const r = await callTool(t.baseUrl, '/v1/pdf-md', pdf, { 'x-payment': header });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.match(r.body.markdown, /solana-exact page 1/);
  const pr = decodePaymentResponse(r.headers.get('x-payment-response'));
  assert.equal(pr.payer, owner(1));
  const [row] = await ledger(pr.transaction);
  assert.equal(row.amount, '10000');

  // The same payload again replays; its transaction id as a receipt for another request is consumed.
  const replay = await callTool(t.baseUrl, '/v1/pdf-md', pdf, { 'x-payment': header });
  assert.equal(replay.status, 200);
  assert.equal(replay.headers.get('x-idempotent-replay'), 'true');
  const byId = await callTool(t.baseUrl, '/v1/pdf-md', await makePdf(1, 'solana-exact-2'), { 'x-payment': receipt(pr.transaction, 10_000n, 1) });
  assert.equal(byId.status, 409);
});

test('facilitator: POST /v1/_facilitator/solana co-signs and broadcasts, the signature then pays', async () => {
  const pdf = await makePdf(1, 'facilitated');
  await callTool(t.baseUrl, '/v1/pdf-json', pdf);
  const transaction = await solanaPartiallySignedTransfer({ rpcUrl: sol().rpcUrl, mint: sol().usdcMint, secretKey: secret(2), toOwner: sol().payTo, amount: 15_000n, feePayer: sol().feePayer });
  const res = await fetch(`${t.baseUrl}/v1/_facilitator/solana`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ transaction }) });
  assert.equal(res.status, 200);
  const body = (await res.json()) as any;
  await assertMatchesContract('solanaFacilitator', 200, body);
  assert.equal(body.network, 'solana');
  assert.equal(body.payer, owner(2));
  const r = await callTool(t.baseUrl, '/v1/pdf-json', pdf, { 'x-payment': receipt(body.signature, 15_000n, 2) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.pages.length, 1);
});

test('facilitator refuses a transfer of another mint or to another account, before broadcasting', async () => {
  for (const variant of [
    { mint: devnet.extras.fakeUsdc.solana, toOwner: sol().payTo, reason: 'wrong_mint' },
    { mint: sol().usdcMint, toOwner: owner(4), reason: 'wrong_destination' },
  ]) {
    const transaction = await solanaPartiallySignedTransfer({ rpcUrl: sol().rpcUrl, mint: variant.mint, secretKey: secret(3), toOwner: variant.toOwner, amount: 5_000n, feePayer: sol().feePayer });
    const res = await fetch(`${t.baseUrl}/v1/_facilitator/solana`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ transaction }) });
    assert.equal(res.status, 400);
    const body = (await res.json()) as any;
    await assertMatchesContract('solanaFacilitator', 400, body);
    assert.equal(body.error, 'invalid_transaction');
    assert.equal(body.reason, variant.reason);
  }
});

test('{transaction} of another mint answers wrong_asset, for too little amount_mismatch, and nothing is broadcast', async () => {
  const pdf = await makePdf(1, 'solana-bad-tx');
  await callTool(t.baseUrl, '/v1/pdf-text', pdf);
  const fake = await solanaPartiallySignedTransfer({ rpcUrl: sol().rpcUrl, mint: devnet.extras.fakeUsdc.solana, secretKey: secret(3), toOwner: sol().payTo, amount: 5_000n, feePayer: sol().feePayer });
  const a = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-payment': xPayment('solana', 'exact', { transaction: fake }) });
  assert.equal(a.status, 402);
  assert.equal(a.body.error, 'wrong_asset');
  const low = await solanaPartiallySignedTransfer({ rpcUrl: sol().rpcUrl, mint: sol().usdcMint, secretKey: secret(3), toOwner: sol().payTo, amount: 4_999n, feePayer: sol().feePayer });
  const b = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-payment': xPayment('solana', 'exact', { transaction: low }) });
  assert.equal(b.status, 402);
  assert.equal(b.body.error, 'amount_mismatch');
  assert.equal((await sql.query(`select count(*)::int as n from payment where payer = $1`, [owner(3)])).rows[0].n, 0);
});

test('a signature receipt for another mint, another recipient or too little is refused', async () => {
  const pdf = await makePdf(1, 'solana-refusals');
  await callTool(t.baseUrl, '/v1/pdf-text', pdf);
  const fake = await transfer(5_000n, { buyer: 4, mint: devnet.extras.fakeUsdc.solana });
  assert.equal((await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-payment': receipt(fake, 5_000n, 4) })).body.error, 'wrong_asset');
  const elsewhere = await transfer(5_000n, { buyer: 4, toOwner: owner(3) });
  assert.equal((await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-payment': receipt(elsewhere, 5_000n, 4) })).body.error, 'wrong_recipient');
  const low = await transfer(4_000n, { buyer: 4 });
  const r = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-payment': receipt(low, 4_000n, 4) });
  assert.equal(r.status, 402);
  assert.equal(r.body.error, 'amount_mismatch');
});

test('an unknown signature answers 402 payment_unconfirmed', async () => {
  const unknown = bs58.encode(Keypair.generate().secretKey);
  const r = await callTool(t.baseUrl, '/v1/pdf-text', await makePdf(1, 'solana-unknown'), { 'x-payment': receipt(unknown, 5_000n) });
  assert.equal(r.status, 402);
  assert.equal(r.body.error, 'payment_unconfirmed');
});

test('GET /v1/_session-token gives the EIP-712 domain per EVM chain, as the contract says', async () => {
  const res = await fetch(`${t.baseUrl}/v1/_session-token`);
  assert.equal(res.status, 200);
  const body = (await res.json()) as any;
  await assertMatchesContract('getSessionToken', 200, body);
  assert.equal(body.header, 'X-Session-Token');
  assert.deepEqual(body.domains.base, { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: devnet.info.chains.base.usdc });
  assert.equal(body.domains.polygon.chainId, 137);
  assert.equal(body.primaryType, 'TransferWithAuthorization');
});

test('GET /metrics counts quotes and payments for Prometheus', async () => {
  const text = await (await fetch(`${t.metricsUrl}/metrics`)).text();
  assert.match(text, /paycall_quotes_total\{endpoint="pdf-text"\} \d+/);
  assert.match(text, /paycall_payments_total\{network="solana",result="accepted"\} \d+/);
  assert.match(text, /paycall_http_request_duration_seconds_bucket/);
  assert.match(text, /paycall_tool_duration_seconds_bucket\{le="[^"]+",tool="pdf-text"\}/);
  // The Grafana dashboard only queries metrics the service exports.
  const { readFile } = await import('node:fs/promises');
  const dashboard = await readFile(new URL('../../grafana/dashboards/paycall.json', import.meta.url), 'utf8');
  const used = new Set(dashboard.match(/paycall_[a-z0-9_]+/g));
  assert.ok(used.size >= 8);
  for (const name of used) assert.ok(text.includes(name), `dashboard queries ${name}, which /metrics does not export`);
});
