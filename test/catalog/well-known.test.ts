/**
 * GET /.well-known/x402 (x402scan's discovery document): every paid operation's URL, the
 * built-ins, /mcp and the live seller endpoints; a pending endpoint is not listed. And discovery's
 * type=mcp items (one per MCP tool).
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

test('discovery type=mcp: one item per MCP tool with toolName and inputSchema, in the list and the search', async () => {
  const list = await call(t.baseUrl, 'listDiscoveryResources', 'GET', '/discovery/resources?type=mcp');
  assert.equal(list.status, 200);
  assert.deepEqual(list.body.items.map((i: any) => i.toolName), ['pdf-md', 'pdf-text', 'pdf-json', 'invoice-extract', 'known-shop.lookup']);
  for (const i of list.body.items) {
    assert.equal(i.type, 'mcp');
    assert.equal(new URL(i.resource).pathname, '/mcp');
    assert.equal(i.inputSchema.type, 'object');
  }
  assert.deepEqual(list.body.items[0].inputSchema.required, ['document']);
  // The HTTP listing (the default) is unchanged: no tool fields.
  const http = await call(t.baseUrl, 'listDiscoveryResources', 'GET', '/discovery/resources');
  assert.ok(http.body.items.every((i: any) => i.type === 'http' && i.toolName === undefined));
  const found = await call(t.baseUrl, 'searchDiscoveryResources', 'GET', '/discovery/search?query=postal&type=mcp');
  assert.equal(found.status, 200);
  assert.deepEqual(found.body.resources.map((i: any) => [i.type, i.toolName]), [['mcp', 'known-shop.lookup']]);
});
