/**
 * GET /.well-known/x402 (x402scan's discovery document): every paid operation's URL, the
 * built-ins, /mcp and the live seller endpoints; a pending endpoint is not listed.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { FAST_LIFECYCLE_ENV, call, endpointInput, evmSigner, publish, register, startUpstream, type TestUpstream } from '../helpers/sellers.ts';

let db: TestDatabase;
let t: TestApp;
let up: TestUpstream;
let sql: pg.Client;
const seller = evmSigner();

before(async () => {
  db = await createTestDatabase('catalog_well_known');
  up = await startUpstream();
  t = await startTestApp(testConfig({ DATABASE_URL: db.url, ALLOW_LOCAL_UPSTREAMS: '1', PROBE_TIMEOUT_MS: '5000', ...FAST_LIFECYCLE_ENV }));
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  assert.equal((await register(t.baseUrl, seller, 'known-shop')).status, 201);
  const r = await publish(t.baseUrl, seller, endpointInput(up.url, 'lookup', { desc: 'Postal code lookup.' }));
  assert.equal(r.status, 201);
  const active = async () => (await sql.query('select status from seller_endpoint where id = $1', [r.body.id])).rows[0].status === 'active';
  for (let i = 0; i < 50 && !(await active()); i++) await t.app.runScheduledJobs();
  assert.ok(await active(), 'the probes activated it');
  // A second endpoint, just published (its publish probe passed, no probe round yet): pending, never listed.
  up.rules.set('/pending', 'ok-then-fail');
  const p = await publish(t.baseUrl, seller, endpointInput(up.url, 'pending', {}));
  assert.equal(p.status, 201, JSON.stringify(p.body));
});
after(async () => {
  await sql?.end();
  await t?.close();
  await up?.close();
  await db?.drop();
});

test('/.well-known/x402 lists every paid operation URL (built-ins, /mcp, live seller endpoints) with version 1', async () => {
  const r = await call(t.baseUrl, 'getWellKnownX402', 'GET', '/.well-known/x402');
  assert.equal(r.status, 200);
  assert.equal(r.body.version, 1);
  assert.equal(r.body.ownershipProofs, undefined);
  const paths = (r.body.resources as string[]).map((u) => new URL(u).pathname);
  assert.deepEqual(paths, ['/v1/pdf-md', '/v1/pdf-text', '/v1/pdf-json', '/v1/invoice-extract', '/mcp', '/v1/known-shop/lookup']);
  // Every URL is on this origin's public base (what x402scan then asks for its 402).
  const origin = new URL(r.body.resources[0]).origin;
  assert.ok((r.body.resources as string[]).every((u) => u.startsWith(origin)));
});
