/**
 * The x402 payment-identifier extension on a built-in over HTTP (v2 PAYMENT-SIGNATURE built by
 * `@x402/evm`) and over MCP: advertised in every 402; the same id with the same payment and
 * request answers the stored result without a second run, on another instance too; the same id
 * with another request or another payment is 409 before anything is verified or settled.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { privateKeyToAccount } from 'viem/accounts';
import { x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { makePdf, startPaidTestEnv, type PaidTestEnv } from '../helpers/paid.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { assertMatchesContract } from '../helpers/contract.ts';
import { openDatabase } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/log.ts';
import { createPaymentsHousekeeping } from '../../src/payments/housekeeping.ts';

let env: PaidTestEnv;
/** A second instance on the same database: bindings live in PostgreSQL, not in a process. */
let other: TestApp;

before(async () => {
  env = await startPaidTestEnv('paymentid', { TOOL_WORKERS: '1' });
  other = await startTestApp({ ...testConfig({ DATABASE_URL: env.db.url, TOOL_WORKERS: '1' }), chains: env.devnet.chains }, env.rec.log);
});
after(async () => {
  await other?.close();
  await env?.close();
});

const decode = (v: string | null) => JSON.parse(Buffer.from(v!, 'base64').toString('utf8'));
const encode = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64');
const post = (baseUrl: string, pdf: Buffer, headers: Record<string, string> = {}) =>
  fetch(`${baseUrl}/v1/pdf-text`, { method: 'POST', headers: { 'content-type': 'application/pdf', ...headers }, body: new Uint8Array(pdf) });
const payer = (account: number) => new x402Client().register('eip155:8453', new ExactEvmScheme(privateKeyToAccount(env.devnet.info.accounts[account].evmPrivateKey as `0x${string}`)));
const withId = (payload: object, required: Record<string, any>, id: string) => ({
  ...payload,
  extensions: { 'payment-identifier': { ...required.extensions['payment-identifier'], info: { required: false, id } } },
});
const ledgerRows = async (payer: string) => Number((await env.sql.query('select count(*) from payment where lower(payer) = lower($1)', [payer])).rows[0].count);

test('HTTP: advertised in the 402; same id + same payment + same request replays on another instance; anything else is 409', async () => {
  const pdf = await makePdf(1, 'payment-id');
  const quote = await post(env.t.baseUrl, pdf);
  assert.equal(quote.status, 402);
  const required = decode(quote.headers.get('payment-required'));
  assert.deepEqual(required.extensions['payment-identifier'].info, { required: false });
  assert.deepEqual(required.extensions['payment-identifier'].schema.required, ['required']);

  const id = `pay_${crypto.randomUUID().replaceAll('-', '')}`;
  const payment = withId(await payer(1).createPaymentPayload(required), required, id);
  const runs = env.rec.count('tool finished');
  const paid = await post(env.t.baseUrl, pdf, { 'payment-signature': encode(payment) });
  const body = await paid.json();
  assert.equal(paid.status, 200, JSON.stringify(body));
  assert.equal(env.rec.count('tool finished'), runs + 1);

  // The response was "lost": the identical payment with the same id, to the other instance.
  const again = await post(other.baseUrl, pdf, { 'payment-signature': encode(payment) });
  assert.equal(again.status, 200);
  assert.deepEqual(await again.json(), body);
  assert.equal(again.headers.get('x-idempotent-replay'), 'true');
  assert.equal(again.headers.get('payment-response'), paid.headers.get('payment-response'));
  assert.equal(env.rec.count('tool finished'), runs + 1);

  // Same id and payment, another request.
  const otherPdf = await makePdf(1, 'payment-id-other');
  const conflict = await post(other.baseUrl, otherPdf, { 'payment-signature': encode(payment) });
  const conflictBody = (await conflict.json()) as any;
  assert.equal(conflict.status, 409);
  assert.equal(conflictBody.error, 'payment_identifier_conflict');
  await assertMatchesContract('pdfText', 409, conflictBody);

  // Same id and request, another payment (a new authorization from another payer): refused before it is settled.
  const buyer2 = privateKeyToAccount(env.devnet.info.accounts[2].evmPrivateKey as `0x${string}`).address;
  const before = await ledgerRows(buyer2);
  const second = withId(await payer(2).createPaymentPayload(required), required, id);
  const refused = await post(env.t.baseUrl, pdf, { 'payment-signature': encode(second) });
  assert.equal(refused.status, 409);
  assert.equal(((await refused.json()) as any).error, 'payment_identifier_conflict');
  assert.equal(await ledgerRows(buyer2), before);
  assert.equal(env.rec.count('tool finished'), runs + 1);

  // An id of the wrong form is an invalid payment.
  const bad = await post(env.t.baseUrl, otherPdf, { 'payment-signature': encode(withId(await payer(2).createPaymentPayload(required), required, 'short')) });
  assert.equal(bad.status, 402);
  assert.equal(((await bad.json()) as any).error, 'invalid_payment');
});

test('MCP: the PaymentRequired advertises it; the id binds the tool call as over HTTP', async () => {
  const client = new Client({ name: 'payment-id-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${env.t.baseUrl}/mcp`)));
  try {
    const args = { document: (await makePdf(1, 'payment-id-mcp')).toString('base64') };
    const quote = (await client.callTool({ name: 'pdf-text', arguments: args })) as any;
    const required = quote.structuredContent;
    assert.deepEqual(required.extensions['payment-identifier'].info, { required: false });
    const payment = withId(await payer(3).createPaymentPayload(required), required, `pay_${crypto.randomUUID()}`);
    const paid = (await client.callTool({ name: 'pdf-text', arguments: args, _meta: { 'x402/payment': payment } })) as any;
    assert.equal(paid.isError, undefined, JSON.stringify(paid));
    const replay = (await client.callTool({ name: 'pdf-text', arguments: args, _meta: { 'x402/payment': payment } })) as any;
    assert.deepEqual(replay.structuredContent, paid.structuredContent);
    const conflict = (await client.callTool({ name: 'pdf-text', arguments: { ...args, filename: 'other.pdf' }, _meta: { 'x402/payment': payment } })) as any;
    assert.equal(conflict.isError, true);
    assert.equal(conflict.structuredContent.error, 'payment_identifier_conflict');
  } finally {
    await client.close();
  }
});

test('a binding older than its retention is forgotten: the same payment still replays, nothing runs or is charged twice; the id then binds anew', async () => {
  const pdf = await makePdf(1, 'payment-id-retention');
  const required = decode((await post(env.t.baseUrl, pdf)).headers.get('payment-required'));
  const id = `pay_${crypto.randomUUID().replaceAll('-', '')}`;
  const payment = withId(await payer(1).createPaymentPayload(required), required, id);
  const paid = await post(env.t.baseUrl, pdf, { 'payment-signature': encode(payment) });
  assert.equal(paid.status, 200);
  const body = await paid.json();
  const buyer = privateKeyToAccount(env.devnet.info.accounts[1].evmPrivateKey as `0x${string}`).address;
  const runs = env.rec.count('tool finished');
  const charged = await ledgerRows(buyer);

  // The housekeeping task as the scheduler runs it, on the suite's database: a binding of the
  // retention's age goes, a younger one stays.
  const young = `pay_${crypto.randomUUID().replaceAll('-', '')}`;
  await env.sql.query(`insert into payment_identifier (id, payload_sha256, fingerprint) values ($1, '\\x00', 'f')`, [young]);
  await env.sql.query(`update payment_identifier set created_at = now() - interval '31 days' where id = $1`, [id]);
  const orm = await openDatabase({ databaseUrl: env.db.url, pgliteDir: '', migrate: false, log: silentLogger });
  try {
    await createPaymentsHousekeeping({ orm, log: silentLogger }).run(new AbortController().signal);
  } finally {
    await orm.close(true);
  }
  const left = (await env.sql.query('select id from payment_identifier where id = any($1)', [[id, young]])).rows.map((r) => r.id);
  assert.deepEqual(left, [young], 'the old binding is forgotten, the young one kept');

  // The lost-response retry after the id was forgotten: the receipt gate, keyed by the payment
  // itself, still answers the stored result. No second run, no second charge.
  const again = await post(env.t.baseUrl, pdf, { 'payment-signature': encode(payment) });
  assert.equal(again.status, 200);
  assert.equal(again.headers.get('x-idempotent-replay'), 'true');
  assert.deepEqual(await again.json(), body);
  assert.equal(env.rec.count('tool finished'), runs);
  assert.equal(await ledgerRows(buyer), charged);
  // ... and the id is bound again, to that same payment and request: another payment with it is refused as before.
  const other = withId(await payer(2).createPaymentPayload(required), required, id);
  const refused = await post(env.t.baseUrl, pdf, { 'payment-signature': encode(other) });
  assert.equal(refused.status, 409);
});
