/**
 * The foundation against real PostgreSQL: routing, every HTTP-level error of the contract,
 * request ids, health and meta, body limits enforced while streaming.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { assertMatchesContract } from '../helpers/contract.ts';

let db: TestDatabase;
let t: TestApp;
const WALLET = '0x1111111111111111111111111111111111111111';

before(async () => {
  db = await createTestDatabase('foundation');
  t = await startTestApp(testConfig({ DATABASE_URL: db.url }));
});
after(async () => {
  await t?.close();
  await db?.drop();
});

const post = (path: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fetch(`${t.baseUrl}${path}`, { method: 'POST', headers, body });

test('GET /v1/_health answers 200 with the database check and a request id', async () => {
  const res = await fetch(`${t.baseUrl}/v1/_health`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  const body = (await res.json()) as any;
  assert.ok(['ok', 'degraded'].includes(body.status));
  assert.equal(body.version, '1.0.0');
  assert.equal(body.checks.database.ok, true);
  assert.equal(typeof body.checks.database.latency_ms, 'number');
  assert.deepEqual(Object.keys(body.checks.rpc).sort(), ['base', 'polygon', 'solana']);
  await assertMatchesContract('getHealth', 200, body);
});

test('an incoming X-Request-Id is echoed back', async () => {
  const res = await fetch(`${t.baseUrl}/v1/_health`, { headers: { 'x-request-id': 'trace-abc.123' } });
  assert.equal(res.headers.get('x-request-id'), 'trace-abc.123');
});

test('GET /v1/_meta lists the four built-ins with path, seller, price, unit, description, networks', async () => {
  const res = await fetch(`${t.baseUrl}/v1/_meta`);
  assert.equal(res.status, 200);
  const body = (await res.json()) as any;
  const byPath = Object.fromEntries(body.endpoints.map((e: { path: string }) => [e.path, e]));
  assert.deepEqual(Object.keys(byPath).sort(), ['/v1/invoice-extract', '/v1/pdf-json', '/v1/pdf-md', '/v1/pdf-text']);
  assert.deepEqual(
    Object.fromEntries(Object.entries(byPath).map(([p, e]: [string, any]) => [p, [e.price, e.unit]])),
    { '/v1/pdf-md': ['10000', 'page'], '/v1/pdf-text': ['5000', 'page'], '/v1/pdf-json': ['15000', 'page'], '/v1/invoice-extract': ['25000', 'request'] },
  );
  await assertMatchesContract('getMeta', 200, body);
  for (const e of body.endpoints) {
    assert.equal(e.seller, 'paycall');
    assert.deepEqual(e.networks, ['base', 'polygon', 'solana']);
    assert.ok(e.description.length > 10);
  }
});

test('an unknown path answers 404 endpoint_not_found with a request id in the body', async () => {
  const res = await fetch(`${t.baseUrl}/v2/nothing-here`);
  assert.equal(res.status, 404);
  const body = (await res.json()) as any;
  assert.equal(body.error, 'endpoint_not_found');
  assert.equal(body.request_id, res.headers.get('x-request-id'));
});

test('invalid JSON answers 400 invalid_json', async () => {
  const res = await post('/v1/_seller/register', '{"wallet": ');
  assert.equal(res.status, 400);
  assert.equal(((await res.json()) as any).error, 'invalid_json');
});

test('atomic_price sent as a string answers 400 invalid_input naming the field', async () => {
  const res = await post(
    `/v1/_seller/${WALLET}/endpoints`,
    JSON.stringify({ path_suffix: 'weather', upstream_url: 'https://example.com/w', atomic_price: '1000', unit: 'call', desc: 'Weather', mode: 'paywall', signature: '0xab', timestamp: 1700000000 }),
  );
  assert.equal(res.status, 400);
  const body = (await res.json()) as any;
  assert.equal(body.error, 'invalid_input');
  assert.ok(body.issues.some((i: { path: string }) => i.path === 'body.atomic_price'), JSON.stringify(body.issues));
  await assertMatchesContract('addSellerEndpoint', 400, body);
});

test('each missing field is named in issues[]', async () => {
  const res = await post(`/v1/_seller/${WALLET}/endpoints`, JSON.stringify({ path_suffix: 'weather' }));
  assert.equal(res.status, 400);
  const body = (await res.json()) as any;
  assert.equal(body.error, 'invalid_input');
  const paths = body.issues.map((i: { path: string }) => i.path);
  for (const field of ['upstream_url', 'atomic_price', 'unit', 'desc', 'mode']) assert.ok(paths.includes(`body.${field}`), `${field} in ${paths}`);
});

test('a malformed wallet in the path answers 400 invalid_wallet', async () => {
  const res = await post('/v1/_seller/not-a-wallet/endpoints', JSON.stringify({}));
  assert.equal(res.status, 400);
  assert.equal(((await res.json()) as any).error, 'invalid_wallet');
});

test('a non-positive endpoint id answers 400 invalid_id', async () => {
  const res = await fetch(`${t.baseUrl}/v1/_seller/${WALLET}/endpoints/0`, { method: 'DELETE', headers: { 'x-signature': '0xab', 'x-timestamp': '1' } });
  assert.equal(res.status, 400);
  assert.equal(((await res.json()) as any).error, 'invalid_id');
});

test('a slug outside ^[a-z0-9-]{3,32}$ answers 400 invalid_slug_format', async () => {
  const res = await post('/v1/_seller/register', JSON.stringify({ wallet: WALLET, slug: 'Bad_Slug', signature: '0xab', timestamp: 1700000000 }));
  assert.equal(res.status, 400);
  assert.equal(((await res.json()) as any).error, 'invalid_slug_format');
});

test('a register body over 4 KB with Content-Length answers 413 body_too_large', async () => {
  const res = await post('/v1/_seller/register', JSON.stringify({ wallet: WALLET, slug: 'abc', signature: 'x'.repeat(5000), timestamp: 1 }));
  assert.equal(res.status, 413);
  assert.equal(((await res.json()) as any).error, 'body_too_large');
});

test('a chunked add-endpoint body is refused with 413 while it streams, before it ends', async () => {
  // Send 5 KB in chunks and never end the request: the answer must arrive anyway.
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const url = new URL(`${t.baseUrl}/v1/_seller/${WALLET}/endpoints`);
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.write('{"desc":"');
    for (let i = 0; i < 5; i++) req.write('y'.repeat(1024));
    // deliberately not calling req.end()
  });
  assert.equal(answer.status, 413);
  assert.equal(JSON.parse(answer.body).error, 'body_too_large');
});

test('without chain configuration a paid call answers 503 service_unavailable instead of an unpayable quote', async () => {
  const { makePdf } = await import('../helpers/paid.ts');
  const res = await fetch(`${t.baseUrl}/v1/pdf-text`, { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: new Uint8Array(await makePdf(1, 'no-chains')) });
  assert.equal(res.status, 503);
  assert.equal(res.headers.get('retry-after'), '30');
  assert.equal(((await res.json()) as any).error, 'service_unavailable');
});

test('a wrong method on a known path answers 405 method_not_allowed', async () => {
  const res = await fetch(`${t.baseUrl}/v1/_meta`, { method: 'DELETE' });
  assert.equal(res.status, 405);
  assert.equal(((await res.json()) as any).error, 'method_not_allowed');
});

test('a seller path absent from the catalog answers 404 endpoint_not_found; a suspended one 410 endpoint_suspended', async () => {
  const res = await post('/v1/nobody-here/some-path', '{}');
  assert.equal(res.status, 404);
  assert.equal(((await res.json()) as any).error, 'endpoint_not_found');
  const { default: pg } = await import('pg');
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  await sql.query(`insert into seller_endpoint (seller_id, slug, path_suffix, upstream_url, atomic_price, unit, "desc", mode, status) values (1, 'acme', 'weather', 'https://acme.example/w', 1000, 'call', 'Weather', 'proxy', 'suspended')`);
  await sql.end();
  const gone = await post('/v1/acme/weather', '{}');
  assert.equal(gone.status, 410);
  assert.equal(((await gone.json()) as any).error, 'endpoint_suspended');
});

test('built-in uploads: empty 400 invalid_input, unreadable 422 invalid_document, over the limit 413 body_too_large — before any quote', async () => {
  const small = await startTestApp(testConfig({ DATABASE_URL: db.url, TOOL_MAX_BODY_BYTES: '2048' }));
  try {
    const send = (body: Uint8Array, type = 'application/pdf') => fetch(`${small.baseUrl}/v1/pdf-text`, { method: 'POST', headers: { 'content-type': type }, body });
    const empty = await send(new Uint8Array());
    assert.equal(empty.status, 400);
    assert.equal(((await empty.json()) as any).error, 'invalid_input');
    const notPdf = await send(new TextEncoder().encode('{"this": "is json"}'), 'application/json');
    assert.equal(notPdf.status, 422);
    const body = (await notPdf.json()) as any;
    assert.equal(body.error, 'invalid_document');
    assert.match(body.message, /not a PDF/);
    await assertMatchesContract('pdfText', 422, body);
    const big = await send(new Uint8Array(5000).fill(0x25));
    assert.equal(big.status, 413);
    assert.equal(((await big.json()) as any).error, 'body_too_large');
  } finally {
    await small.close();
  }
});
