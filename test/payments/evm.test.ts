/**
 * The x402 paid call on the EVM devnet chains (Base 8453, Polygon 137): every rail pays and
 * runs the tool, every refusal is provoked by a real transaction, and a receipt buys
 * exactly one run, also under 50 concurrent retries and across two server processes.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createPublicClient, http, toHex } from 'viem';
import { randomBytes } from 'node:crypto';
import type { TestDatabase } from '../helpers/db.ts';
import { startServiceProcess } from '../helpers/app.ts';
import type { TestDevnet } from '../helpers/devnet.ts';
import { callTool, decodePaymentResponse, makePdf, sessionToken, startPaidTestEnv, xPayment, type PaidTestEnv, type RecordingLogger } from '../helpers/paid.ts';
import { evmRevertedTransfer, evmTransferToken, evmTransferUsdc, signEip3009Authorization } from '../../devnet/buyer.ts';

let env: PaidTestEnv;
let devnet: TestDevnet;
let db: TestDatabase;
let t: PaidTestEnv['t'];
let rec: RecordingLogger;
let sql: pg.Client;

before(async () => {
  env = await startPaidTestEnv('payevm', { TOOL_WORKERS: '2' });
  ({ devnet, db, t, rec, sql } = env);
});
after(() => env?.close());

const buyer = (i: number) => devnet.info.accounts[i].evmPrivateKey;
const chain = (n: 'base' | 'polygon') => devnet.info.chains[n];
const pay = (n: 'base' | 'polygon', amount: bigint, opts: { buyerIndex?: number; to?: string } = {}) =>
  evmTransferUsdc({ rpcUrl: chain(n).rpcUrl, chainId: chain(n).chainId, usdc: chain(n).usdc, privateKey: buyer(opts.buyerIndex ?? 0), to: opts.to ?? chain(n).payTo, amount });
const ledger = async (tx: string) => (await sql.query('select * from payment where lower(tx) = lower($1)', [tx])).rows;

test('unpaid call: 402 with six accepts in contract order, priced per page', async () => {
  const pdf = await makePdf(3, 'quote');
  const r = await callTool(t.baseUrl, '/v1/pdf-text', pdf);
  assert.equal(r.status, 402);
  assert.equal(r.body.x402Version, 1);
  assert.equal(r.body.error, 'X-PAYMENT header is required');
  assert.deepEqual(r.body.accepts.map((a: any) => `${a.network}/${a.scheme}`), ['base/exact', 'base/transfer-with-authorization', 'polygon/exact', 'polygon/transfer-with-authorization', 'solana/exact', 'solana/spl-transfer']);
  for (const a of r.body.accepts) {
    assert.equal(a.maxAmountRequired, '15000');
    assert.equal(a.resource, `${t.baseUrl}/v1/pdf-text`);
    assert.equal(a.maxTimeoutSeconds, a.scheme === 'transfer-with-authorization' ? 30 : 60);
    for (const f of ['scheme', 'network', 'maxAmountRequired', 'asset', 'payTo', 'resource', 'description', 'mimeType', 'maxTimeoutSeconds', 'extra']) assert.ok(a[f] !== undefined, f);
  }
  const [baseExact, baseTwa, , , solExact, solSpl] = r.body.accepts;
  assert.deepEqual(baseExact.extra, { perPagePrice: 5000, estimatedPages: 3, totalEstimate: 15000, name: 'USD Coin', version: '2' });
  assert.equal(baseExact.asset, chain('base').usdc);
  assert.equal(baseExact.payTo, chain('base').payTo);
  assert.equal(baseTwa.extra.sessionHeader, 'X-Session-Token');
  assert.match(baseTwa.extra.generateToken, /\/v1\/_session-token$/);
  assert.equal(solExact.extra.feePayer, devnet.info.chains.solana.feePayer);
  assert.equal(solSpl.extra.facilitatorBroadcast, 'true');
  assert.equal(solSpl.extra.feePayer, 'facilitator');
  assert.equal(solSpl.asset, devnet.info.chains.solana.usdcMint);
  // Quotes are written in batches off the hot path: give the batch a moment.
  let stored: { amount: string; pages: number }[] = [];
  for (let i = 0; i < 50 && !stored.some((q) => q.amount === '15000' && q.pages === 3); i++) {
    await new Promise((r) => setTimeout(r, 50));
    stored = (await sql.query('select amount, pages from quote')).rows;
  }
  assert.ok(stored.some((q) => q.amount === '15000' && q.pages === 3), JSON.stringify(stored));
});

test('base exact: pay with a USDC transfer, retry with X-Payment {tx_hash}, get the text and a ledger row', async () => {
  const pdf = await makePdf(2, 'base-exact');
  assert.equal((await callTool(t.baseUrl, '/v1/pdf-text', pdf)).status, 402);
  const tx = await pay('base', 10_000n);
  const r = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.pages, 2);
  assert.match(r.body.text, /base-exact page 1/);
  const pr = decodePaymentResponse(r.headers.get('x-payment-response'));
  assert.deepEqual(pr, { success: true, transaction: tx, network: 'base', payer: pr.payer });
  assert.equal(pr.payer.toLowerCase(), (await import('viem/accounts')).privateKeyToAccount(buyer(0) as `0x${string}`).address.toLowerCase());
  const rows = await ledger(tx);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].amount, '10000');
  assert.equal(rows[0].network, 'base');
  assert.equal(rows[0].endpoint_path, '/v1/pdf-text');
  assert.equal(rows[0].take_bps, 10000);
  assert.equal(rows[0].fee, '10000');
  assert.equal(rows[0].net, '0');
  // No seller waits on a built-in's outcome: its row is final as written.
  assert.equal(rows[0].delivery, 'delivered');

  // The same receipt with the identical request: the stored answer, the tool does not run again.
  const runs = rec.count('tool finished');
  const again = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-payment': xPayment('base', 'exact', { tx_hash: tx }, 'base64') });
  assert.equal(again.status, 200);
  assert.equal(again.headers.get('x-idempotent-replay'), 'true');
  assert.deepEqual(again.body, r.body);
  assert.equal(rec.count('tool finished'), runs);

  // The same receipt with another request: 409.
  const other = await callTool(t.baseUrl, '/v1/pdf-text', await makePdf(2, 'other'), { 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) });
  assert.equal(other.status, 409);
  assert.equal(other.body.error, 'tx_already_consumed');
});

test('overpayment is accepted and recorded as paid', async () => {
  const pdf = await makePdf(1, 'overpay');
  // A transfer pays only for a request quoted before it.
  await callTool(t.baseUrl, '/v1/pdf-json', pdf);
  await callTool(t.baseUrl, '/v1/pdf-text', pdf);
  const tx = await pay('polygon', 12_345n);
  const r = await callTool(t.baseUrl, '/v1/pdf-json', pdf, { 'x-payment': xPayment('polygon', 'exact', { tx_hash: tx }) });
  assert.equal(r.status, 402, 'pdf-json costs 15000 a page');
  assert.equal(r.body.error, 'amount_mismatch');
  const paid = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-payment': xPayment('polygon', 'exact', { tx_hash: tx }) });
  assert.equal(paid.status, 200, JSON.stringify(paid.body));
  const [row] = await ledger(tx);
  assert.equal(row.amount, '12345');
  assert.equal(row.quoted_amount, '5000');
});

test('underpayment answers 402 amount_mismatch with the same quote, and is not consumed', async () => {
  const pdf = await makePdf(2, 'underpay');
  const quote = await callTool(t.baseUrl, '/v1/pdf-md', pdf);
  const tx = await pay('base', 19_999n);
  const r = await callTool(t.baseUrl, '/v1/pdf-md', pdf, { 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) });
  assert.equal(r.status, 402);
  assert.equal(r.body.error, 'amount_mismatch');
  assert.match(r.body.message, /19999/);
  assert.deepEqual(r.body.accepts, quote.body.accepts);
  assert.equal((await ledger(tx)).length, 0);
});

test('USDC sent to another address answers 402 wrong_recipient', async () => {
  const tx = await pay('base', 20_000n, { to: '0x000000000000000000000000000000000000dEaD' });
  const r = await callTool(t.baseUrl, '/v1/pdf-md', await makePdf(2, 'recipient'), { 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) });
  assert.equal(r.status, 402);
  assert.equal(r.body.error, 'wrong_recipient');
  assert.equal(r.body.accepts.length, 6);
});

test('another token sent to payTo answers 402 wrong_asset', async () => {
  const c = chain('polygon');
  const tx = await evmTransferToken({ rpcUrl: c.rpcUrl, chainId: c.chainId, token: devnet.extras.fakeUsdc.polygon, privateKey: buyer(1), to: c.payTo, amount: 50_000n });
  const r = await callTool(t.baseUrl, '/v1/pdf-md', await makePdf(1, 'asset'), { 'x-payment': xPayment('polygon', 'exact', { tx_hash: tx }) });
  assert.equal(r.status, 402);
  assert.equal(r.body.error, 'wrong_asset');
});

test('an unknown transaction hash answers 402 payment_unconfirmed after polling', async () => {
  const r = await callTool(t.baseUrl, '/v1/pdf-text', await makePdf(1, 'unknown'), { 'x-payment': xPayment('base', 'exact', { tx_hash: toHex(randomBytes(32)) }) });
  assert.equal(r.status, 402);
  assert.equal(r.body.error, 'payment_unconfirmed');
});

test('a reverted transaction answers 402 invalid_payment', async () => {
  const c = chain('base');
  const tx = await evmRevertedTransfer({ rpcUrl: c.rpcUrl, chainId: c.chainId, token: c.usdc, privateKey: buyer(2), to: c.payTo });
  const r = await callTool(t.baseUrl, '/v1/pdf-text', await makePdf(1, 'reverted'), { 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) });
  assert.equal(r.status, 402);
  assert.equal(r.body.error, 'invalid_payment');
  assert.match(r.body.message, /failed/);
});

test('malformed X-Payment answers 402 invalid_payment with the quote and what is wrong', async () => {
  const pdf = await makePdf(1, 'malformed');
  for (const [header, pattern] of [
    ['%%%', /base64/],
    [Buffer.from('not json').toString('base64url'), /JSON/],
    [xPayment('ethereum', 'exact', { tx_hash: '0x' + '1'.repeat(64) }), /network/],
    [xPayment('base', 'exact', { tx_hash: '0x1234' }), /tx_hash is malformed/],
    [Buffer.from(JSON.stringify({ x402Version: 2, scheme: 'exact', network: 'base', payload: {} })).toString('base64url'), /x402Version/],
  ] as const) {
    const r = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-payment': header });
    assert.equal(r.status, 402, header);
    assert.equal(r.body.error, 'invalid_payment');
    assert.match(r.body.message, pattern);
    assert.equal(r.body.accepts.length, 6);
  }
});

test('base exact with the x402 reference payload {signature, authorization}: the service settles it', async () => {
  const c = chain('base');
  const pdf = await makePdf(1, 'x402-auth');
  await callTool(t.baseUrl, '/v1/pdf-text', pdf);
  const auth = await signEip3009Authorization({ chainId: c.chainId, usdc: c.usdc, privateKey: buyer(3), to: c.payTo, value: 5_000n });
  const header = xPayment('base', 'exact', { signature: auth.signature, authorization: auth.authorization });
  const r = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-payment': header });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const pr = decodePaymentResponse(r.headers.get('x-payment-response'));
  assert.equal(pr.network, 'base');
  assert.match(pr.transaction, /^0x[0-9a-f]{64}$/);
  const rows = await ledger(pr.transaction);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].payer.toLowerCase(), auth.authorization.from.toLowerCase());

  // The settlement hash cannot buy a second call, and the authorization replays.
  const byHash = await callTool(t.baseUrl, '/v1/pdf-text', await makePdf(1, 'x402-auth-2'), { 'x-payment': xPayment('base', 'exact', { tx_hash: pr.transaction }) });
  assert.equal(byHash.status, 409);
  assert.equal(byHash.body.error, 'tx_already_consumed');
  const replay = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-payment': header });
  assert.equal(replay.headers.get('x-idempotent-replay'), 'true');
});

test('polygon exact with {signature, authorization} and base X-Session-Token: every EVM rail on both chains', async () => {
  for (const [network, rail] of [['polygon', 'x-payment'], ['base', 'x-session-token']] as const) {
    const c = chain(network);
    const pdf = await makePdf(1, `${network}-${rail}`);
    await callTool(t.baseUrl, '/v1/pdf-json', pdf);
    const auth = await signEip3009Authorization({ chainId: c.chainId, usdc: c.usdc, privateKey: buyer(2), to: c.payTo, value: 15_000n });
    const headers: Record<string, string> = rail === 'x-payment' ? { 'x-payment': xPayment(network, 'exact', { signature: auth.signature, authorization: auth.authorization }) } : { 'x-session-token': sessionToken(network, auth) };
    const r = await callTool(t.baseUrl, '/v1/pdf-json', pdf, headers);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const pr = decodePaymentResponse(r.headers.get('x-payment-response'));
    assert.equal(pr.network, network);
    const [row] = await ledger(pr.transaction);
    assert.equal(row.amount, '15000');
    assert.equal(row.network, network);
  }
});

test('polygon transfer-with-authorization via X-Session-Token: gasless for the buyer', async () => {
  const c = chain('polygon');
  const pdf = await makePdf(2, 'session');
  await callTool(t.baseUrl, '/v1/pdf-md', pdf);
  const auth = await signEip3009Authorization({ chainId: c.chainId, usdc: c.usdc, privateKey: buyer(4), to: c.payTo, value: 20_000n });
  const r = await callTool(t.baseUrl, '/v1/pdf-md', pdf, { 'x-session-token': sessionToken('polygon', auth) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.page_count, 2);
  assert.match(r.body.markdown, /session page 1/);
  const pr = decodePaymentResponse(r.headers.get('x-payment-response'));
  assert.equal(pr.network, 'polygon');
  assert.equal((await ledger(pr.transaction)).length, 1);
});

test('an authorization to another address, for too little, or expired is refused before settlement', async () => {
  const c = chain('base');
  const pdf = await makePdf(1, 'bad-auth');
  await callTool(t.baseUrl, '/v1/pdf-text', pdf);
  const other = await signEip3009Authorization({ chainId: c.chainId, usdc: c.usdc, privateKey: buyer(3), to: '0x000000000000000000000000000000000000dEaD', value: 5_000n });
  assert.equal((await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-session-token': sessionToken('base', other) })).body.error, 'wrong_recipient');
  const low = await signEip3009Authorization({ chainId: c.chainId, usdc: c.usdc, privateKey: buyer(3), to: c.payTo, value: 4_999n });
  assert.equal((await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-session-token': sessionToken('base', low) })).body.error, 'amount_mismatch');
  const expired = await signEip3009Authorization({ chainId: c.chainId, usdc: c.usdc, privateKey: buyer(3), to: c.payTo, value: 5_000n, validBefore: BigInt(Math.floor(Date.now() / 1000) - 10) });
  const r = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-session-token': sessionToken('base', expired) });
  assert.equal(r.status, 402);
  assert.equal(r.body.error, 'authorization_invalid');
  assert.match(r.body.message, /expired/);
  // A refused authorization is not consumed: the same nonce, correctly signed, still works later.
  assert.equal((await sql.query(`select count(*)::int as n from consumed_receipt where receipt_key like 'base:auth:%' and payment_id is null`)).rows[0].n, 0);
});

test('an authorization someone else submitted first still pays for the call; a cancelled one does not', async () => {
  const c = chain('base');
  const { createChainAdapters } = await import('../../src/chains/create-chain-adapters.ts');
  const { silentLogger } = await import('../../src/log.ts');
  const outsider = createChainAdapters(devnet.chains, silentLogger).base;
  const pdf = await makePdf(1, 'front-run');
  await callTool(t.baseUrl, '/v1/pdf-text', pdf);
  const auth = await signEip3009Authorization({ chainId: c.chainId, usdc: c.usdc, privateKey: buyer(0), to: c.payTo, value: 5_000n });
  // Anyone holding the signed authorization may submit it; here it lands before the service sees it.
  const { txHash } = await outsider.submitAuthorization(auth.authorization, auth.signature);
  const r = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-session-token': sessionToken('base', auth) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(decodePaymentResponse(r.headers.get('x-payment-response')).transaction, txHash);
  assert.equal((await ledger(txHash)).length, 1);

  // A cancelled nonce moved no money: refused, and nothing is consumed.
  const { createWalletClient, http: viemHttp } = await import('viem');
  const { privateKeyToAccount } = await import('viem/accounts');
  const account = privateKeyToAccount(buyer(1) as `0x${string}`);
  const cancelled = await signEip3009Authorization({ chainId: c.chainId, usdc: c.usdc, privateKey: buyer(1), to: c.payTo, value: 5_000n });
  const cancelSig = await account.signTypedData({
    domain: { name: 'USD Coin', version: '2', chainId: c.chainId, verifyingContract: c.usdc as `0x${string}` },
    types: { CancelAuthorization: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }] },
    primaryType: 'CancelAuthorization',
    message: { authorizer: account.address, nonce: cancelled.authorization.nonce as `0x${string}` },
  });
  const wallet = createWalletClient({ account, transport: viemHttp(c.rpcUrl), chain: { id: c.chainId, name: 'base', nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [c.rpcUrl] } } } });
  const { parseAbi } = await import('viem');
  const hash = await wallet.writeContract({ address: c.usdc as `0x${string}`, abi: parseAbi(['function cancelAuthorization(address authorizer, bytes32 nonce, bytes signature)']), functionName: 'cancelAuthorization', args: [account.address, cancelled.authorization.nonce as `0x${string}`, cancelSig] });
  await createPublicClient({ transport: http(c.rpcUrl) }).waitForTransactionReceipt({ hash });
  const refused = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-session-token': sessionToken('base', cancelled) });
  assert.equal(refused.status, 402);
  assert.equal(refused.body.error, 'authorization_invalid');
  assert.match(refused.body.message, /cancelled/);
});

test('50 concurrent identical retries with one receipt run the tool once', async () => {
  const pdf = await makePdf(1, 'concurrent');
  await callTool(t.baseUrl, '/v1/pdf-text', pdf);
  const tx = await pay('base', 5_000n, { buyerIndex: 1 });
  const before = rec.count('tool finished');
  const header = { 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) };
  const answers = await Promise.all(Array.from({ length: 50 }, () => callTool(t.baseUrl, '/v1/pdf-text', pdf, header)));
  assert.deepEqual([...new Set(answers.map((a) => a.status))], [200]);
  for (const a of answers) assert.deepEqual(a.body, answers[0].body);
  assert.equal(answers.filter((a) => a.headers.get('x-idempotent-replay') !== 'true').length, 1);
  assert.equal(rec.count('tool finished') - before, 1);
  assert.equal((await ledger(tx)).length, 1);
});

test('two server processes racing on one receipt run the tool once', async () => {
  // A second real server process on the same database and devnet.
  const second = await startServiceProcess({ DATABASE_URL: db.url, PAYCALL_START_DEVNET: '0', PAYCALL_DATA_DIR: devnet.dataDir, LOG_LEVEL: 'info', TOOL_WORKERS: '1' });
  try {
    const pdf = await makePdf(1, 'two-processes');
    await callTool(t.baseUrl, '/v1/pdf-text', pdf);
    const tx = await pay('polygon', 5_000n, { buyerIndex: 2 });
    const header = { 'x-payment': xPayment('polygon', 'exact', { tx_hash: tx }) };
    const before = rec.count('tool finished');
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => callTool(i % 2 ? second.url : t.baseUrl, '/v1/pdf-text', pdf, header)));
    assert.deepEqual([...new Set(answers.map((a) => a.status))], [200]);
    for (const a of answers) assert.deepEqual(a.body, answers[0].body);
    const runsHere = rec.count('tool finished') - before;
    const runsThere = (second.output().match(/"msg":"tool finished"/g) ?? []).length;
    assert.equal(runsHere + runsThere, 1, `runs: here ${runsHere}, other process ${runsThere}`);
    assert.equal((await ledger(tx)).length, 1);
  } finally {
    second.child.kill('SIGTERM');
  }
});

test('a payment mined after the quote window answers 402 quote_expired (not refunded)', async () => {
  // Runs last: it moves the polygon chain clock two minutes ahead.
  const c = chain('polygon');
  const pdf = await makePdf(1, 'expired');
  await callTool(t.baseUrl, '/v1/pdf-text', pdf);
  const client = createPublicClient({ transport: http(c.rpcUrl) });
  const latest = await client.getBlock();
  const ahead = Math.max(Number(latest.timestamp), Math.floor(Date.now() / 1000)) + 120;
  await client.request({ method: 'evm_setNextBlockTimestamp' as never, params: [ahead] as never });
  const tx = await pay('polygon', 5_000n, { buyerIndex: 3 });
  const r = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { 'x-payment': xPayment('polygon', 'exact', { tx_hash: tx }) });
  assert.equal(r.status, 402);
  assert.equal(r.body.error, 'quote_expired');
  assert.match(r.body.message, /not refunded/);
});

test('invoice-extract is priced per request and answers the invoice fields once paid (base, PNG scan)', async () => {
  const { INVOICES, invoiceImage } = await import('../fixtures/invoice-fixtures.ts');
  const spec = INVOICES[0];
  const png = Buffer.from(invoiceImage(spec, 'png'));
  const quote = await callTool(t.baseUrl, '/v1/invoice-extract', png, { 'content-type': 'image/png' });
  assert.equal(quote.status, 402);
  assert.equal(quote.body.accepts[0].maxAmountRequired, '25000');
  const tx = await pay('base', 25_000n, { buyerIndex: 4 });
  const r = await callTool(t.baseUrl, '/v1/invoice-extract', png, { 'content-type': 'image/png', 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.invoice_number, spec.invoiceNumber);
  assert.equal(r.body.currency, spec.currency);
  assert.equal(r.body.amount, spec.total);
  assert.equal(typeof r.body.confidence.amount, 'number');
});
