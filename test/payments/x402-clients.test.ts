/**
 * The x402 reference client packages pay a built-in on the devnet, unmodified: `@x402/fetch`
 * with `@x402/evm` in v2 (it reads the PAYMENT-REQUIRED header and answers with
 * PAYMENT-SIGNATURE), and the v1 client scheme of `@x402/evm` on the spec's v1 JSON body
 * (answering with X-PAYMENT). Both headers of the quote and of the paid answer agree.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { privateKeyToAccount } from 'viem/accounts';
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm';
import { ExactEvmSchemeV1 } from '@x402/evm/v1';
import type { TestDevnet } from '../helpers/devnet.ts';
import { makePdf, startPaidTestEnv, type PaidTestEnv } from '../helpers/paid.ts';

let env: PaidTestEnv;
let devnet: TestDevnet;
let t: PaidTestEnv['t'];
let sql: pg.Client;

before(async () => {
  env = await startPaidTestEnv('x402clients', { TOOL_WORKERS: '1' });
  ({ devnet, t, sql } = env);
});
after(() => env?.close());

const decode = (v: string | null) => (v ? JSON.parse(Buffer.from(v, 'base64').toString('utf8')) : null);
const post = (pdf: Buffer) => ({ method: 'POST', headers: { 'content-type': 'application/pdf' }, body: new Uint8Array(pdf) });
const ledger = async (tx: string) => (await sql.query('select * from payment where lower(tx) = lower($1)', [tx])).rows;

test('every 402 carries the v1 body and the same quote as a v2 PAYMENT-REQUIRED header', async () => {
  const res = await fetch(`${t.baseUrl}/v1/pdf-text`, post(await makePdf(2, 'v2-header')));
  assert.equal(res.status, 402);
  const v1 = (await res.json()) as any;
  const v2 = decode(res.headers.get('payment-required'));
  assert.equal(v2.x402Version, 2);
  assert.deepEqual(v2.resource, { url: `${t.baseUrl}/v1/pdf-text`, description: v1.accepts[0].description, mimeType: v1.accepts[0].mimeType });
  assert.deepEqual(
    v2.accepts.map((a: { network: string; scheme: string }) => `${a.network}/${a.scheme}`),
    ['eip155:8453/exact', 'eip155:8453/transfer-with-authorization', 'eip155:137/exact', 'eip155:137/transfer-with-authorization', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/exact', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/spl-transfer'],
  );
  v2.accepts.forEach((a: Record<string, unknown>, i: number) => {
    assert.equal(a.amount, v1.accepts[i].maxAmountRequired);
    assert.equal(a.payTo, v1.accepts[i].payTo);
    assert.equal(a.asset, v1.accepts[i].asset);
    assert.equal(a.maxTimeoutSeconds, v1.accepts[i].maxTimeoutSeconds);
    assert.deepEqual(a.extra, v1.accepts[i].extra);
  });
});

test('@x402/fetch + @x402/evm (v2) pays a built-in unmodified: PAYMENT-SIGNATURE in, PAYMENT-RESPONSE out', async () => {
  const account = privateKeyToAccount(devnet.info.accounts[2].evmPrivateKey as `0x${string}`);
  const client = new x402Client().register('eip155:8453', new ExactEvmScheme(account));
  const payingFetch = wrapFetchWithPayment(fetch, client);
  const pdf = await makePdf(1, 'x402-v2');
  const res = await payingFetch(`${t.baseUrl}/v1/pdf-text`, post(pdf));
  const body = (await res.json()) as any;
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.match(body.text, /x402-v2 page 1/);
  const v2 = decode(res.headers.get('payment-response'));
  const v1 = decode(res.headers.get('x-payment-response'));
  assert.deepEqual(v2, { success: true, transaction: v1.transaction, network: 'eip155:8453', payer: account.address });
  assert.equal(v1.network, 'base');
  const [row] = await ledger(v2.transaction);
  assert.equal(row.amount, '5000');
  assert.equal(row.payer.toLowerCase(), account.address.toLowerCase());
});

test('the v1 client scheme of @x402/evm pays from the v1 body with X-PAYMENT', async () => {
  const account = privateKeyToAccount(devnet.info.accounts[3].evmPrivateKey as `0x${string}`);
  const client = new x402Client().registerV1('polygon', new ExactEvmSchemeV1(account));
  const http = new x402HTTPClient(client);
  const pdf = await makePdf(1, 'x402-v1');
  const quote = await fetch(`${t.baseUrl}/v1/pdf-text`, post(pdf));
  assert.equal(quote.status, 402);
  // A v1 client reads the JSON body (@x402/fetch itself prefers the v2 header when one is present).
  const payload = await client.createPaymentPayload((await quote.json()) as Parameters<typeof client.createPaymentPayload>[0]);
  const headers = http.encodePaymentSignatureHeader(payload);
  assert.deepEqual(Object.keys(headers), ['X-PAYMENT']);
  const res = await fetch(`${t.baseUrl}/v1/pdf-text`, { ...post(pdf), headers: { 'content-type': 'application/pdf', ...headers } });
  const body = (await res.json()) as any;
  assert.equal(res.status, 200, JSON.stringify(body));
  const settled = http.getPaymentSettleResponse((name) => res.headers.get(name));
  assert.equal(settled.success, true);
  assert.equal((await ledger(settled.transaction)).length, 1);
});

test('a malformed PAYMENT-SIGNATURE is a refusal with the quote (and the v2 header), never a 5xx', async () => {
  const pdf = await makePdf(1, 'x402-bad');
  for (const value of ['%%%', Buffer.from('{"x402Version":1}').toString('base64'), Buffer.from(JSON.stringify({ x402Version: 2, accepted: { network: 'eip155:1', scheme: 'exact' }, payload: {} })).toString('base64')]) {
    const res = await fetch(`${t.baseUrl}/v1/pdf-text`, { ...post(pdf), headers: { 'content-type': 'application/pdf', 'payment-signature': value } });
    const body = (await res.json()) as any;
    assert.equal(res.status, 402, JSON.stringify(body));
    assert.equal(body.error, 'invalid_payment');
    assert.equal(decode(res.headers.get('payment-required')).error, 'invalid_payment');
  }
});

test('@x402/fetch + @x402/svm (v2) pays on Solana unmodified: the service co-signs the transfer as fee payer', async () => {
  const { ExactSvmScheme } = await import('@x402/svm');
  const { createKeyPairSignerFromBytes } = await import('@solana/kit');
  const bs58 = (await import('bs58')).default;
  const signer = await createKeyPairSignerFromBytes(bs58.decode(devnet.info.accounts[4].solanaSecretKey));
  const client = new x402Client().register('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', new ExactSvmScheme(signer, { rpcUrl: devnet.info.chains.solana.rpcUrl }));
  const res = await wrapFetchWithPayment(fetch, client)(`${t.baseUrl}/v1/pdf-text`, post(await makePdf(1, 'x402-svm')));
  const body = (await res.json()) as any;
  assert.equal(res.status, 200, JSON.stringify(body));
  const settled = decode(res.headers.get('payment-response'));
  assert.equal(settled.network, 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp');
  assert.equal(settled.payer, signer.address);
  const [row] = await ledger(settled.transaction);
  assert.equal(row.amount, '5000');
});

test('GET /discovery/resources lists the catalog in the x402 discovery shape, paged, with bazaar extensions', async () => {
  const { assertMatchesContract } = await import('../helpers/contract.ts');
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  const res = await fetch(`${t.baseUrl}/discovery/resources?type=http&limit=3`);
  const page = (await res.json()) as any;
  assert.equal(res.status, 200);
  await assertMatchesContract('listDiscoveryResources', 200, page);
  assert.deepEqual(page.pagination, { limit: 3, offset: 0, total: 4 });
  assert.deepEqual(page.items.map((i: any) => i.resource), ['/v1/pdf-md', '/v1/pdf-text', '/v1/pdf-json'].map((p) => `${t.baseUrl}${p}`));
  const text = page.items[1];
  assert.equal(text.accepts.length, 6);
  assert.equal(text.accepts[0].maxAmountRequired, '5000', 'the accepts of one page');
  assert.equal(text.metadata.unit, 'page');
  // The bazaar info validates against its own schema, and the output example against the contract's result schema.
  const ajv = new Ajv2020({ strict: false });
  assert.ok(ajv.validate(text.metadata.bazaar.schema, text.metadata.bazaar.info), JSON.stringify(ajv.errors));
  assert.equal(text.metadata.bazaar.info.input.method, 'POST');
  const next = (await (await fetch(`${t.baseUrl}/discovery/resources?offset=3`)).json()) as any;
  assert.deepEqual(next.items.map((i: any) => i.resource), [`${t.baseUrl}/v1/invoice-extract`]);
  // type=mcp: the same catalog as MCP tools (the built-ins here), each under /mcp with its tool name.
  const mcp = (await (await fetch(`${t.baseUrl}/discovery/resources?type=mcp`)).json()) as any;
  assert.deepEqual(mcp.items.map((i: any) => [i.type, i.resource, i.toolName]), ['pdf-md', 'pdf-text', 'pdf-json', 'invoice-extract'].map((n) => ['mcp', `${t.baseUrl}/mcp`, n]));
  const bad = await fetch(`${t.baseUrl}/discovery/resources?limit=1000`);
  assert.equal(bad.status, 400);
  // The v2 quote of a built-in carries the same bazaar extension.
  const quote = await fetch(`${t.baseUrl}/v1/pdf-text`, post(await makePdf(1, 'bazaar')));
  assert.deepEqual(decode(quote.headers.get('payment-required')).extensions.bazaar, text.metadata.bazaar);
});
