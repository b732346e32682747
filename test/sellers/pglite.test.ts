/**
 * The seller marketplace on the embedded default (PGlite): register, publish, the scheduler's
 * claims (FOR UPDATE SKIP LOCKED) activating the endpoint, signature replay, delete; API keys
 * and the account on the same embedded database.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { bearer, newKey } from '../helpers/keys.ts';
import { call, deleteEndpoint, endpointInput, eventually, listEndpoints, nowS, publish, register, solanaSigner, startUpstream, evmSigner, type TestUpstream } from '../helpers/sellers.ts';

let dir: string;
let t: TestApp;
let up: TestUpstream;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paycall-pglite-sellers-'));
  up = await startUpstream();
  t = await startTestApp(testConfig({ PGLITE_DIR: join(dir, 'db'), SCHEDULER_TICK_MS: '10', HEALTH_PROBE_INTERVAL_MS: '20', API_KEY_USAGE_FLUSH_MS: '200' }));
});
after(async () => {
  await t?.close();
  await up?.close();
  await rm(dir, { recursive: true, force: true });
});

test('on PGlite a seller registers, publishes, the scheduler activates the endpoint, and deletes it', async () => {
  const sol = solanaSigner();
  assert.equal((await register(t.baseUrl, sol, 'embedded')).status, 201);
  const evm = evmSigner();
  const ts = nowS();
  const body = { wallet: evm.wallet, slug: 'embedded-evm', signature: await evm.sign('register', 'embedded-evm', ts), timestamp: ts };
  assert.equal((await call(t.baseUrl, 'registerSeller', 'POST', '/v1/_seller/register', { body })).status, 201);
  assert.equal((await call(t.baseUrl, 'registerSeller', 'POST', '/v1/_seller/register', { body })).body.error, 'signature_already_used');
  const e = await publish(t.baseUrl, sol, endpointInput(up.url, 'local'));
  assert.equal(e.status, 201, JSON.stringify(e.body));
  await eventually('active', async () => (await listEndpoints(t.baseUrl, sol)).body.endpoints[0]?.status === 'active');
  // Health probes keep running on the embedded database.
  await eventually('health probes', async () => (up.hits.get('/local') ?? 0) > 6);
  const meta = (await (await fetch(`${t.baseUrl}/v1/_meta`)).json()) as any;
  assert.ok(meta.endpoints.some((x: any) => x.path === '/v1/embedded/local' && x.seller === sol.wallet));
  assert.equal((await deleteEndpoint(t.baseUrl, sol, e.body.id)).status, 200);
  assert.deepEqual((await listEndpoints(t.baseUrl, sol)).body.endpoints, []);
});

test('on PGlite API keys work: issue, use, batched last_used_at, revoke; the account reads the ledger', async () => {
  const w = evmSigner();
  const { key, id } = await newKey(t.baseUrl, w, ['read', 'balance:read']);
  const listed = await call(t.baseUrl, 'listApiKeys', 'GET', '/v1/keys', { headers: bearer(key) });
  assert.equal(listed.status, 200);
  const account = await call(t.baseUrl, 'getAccount', 'GET', '/v1/account', { headers: bearer(key) });
  assert.deepEqual([account.status, account.body.earned_atomic, account.body.spent_atomic, account.body.payout_chain], [200, '0', '0', 'base']);
  // The batched write runs here too (the flush UPDATE ... FROM (VALUES ...)).
  await eventually('last_used_at flushed', async () => {
    const keys = (await call(t.baseUrl, 'listApiKeys', 'GET', '/v1/keys', { headers: bearer(key) })).body.keys;
    return keys.find((k: { id: number }) => k.id === id)?.last_used_at !== null;
  }, 20_000);
  assert.equal((await call(t.baseUrl, 'revokeApiKey', 'DELETE', `/v1/keys/${id}`, { headers: bearer(key) })).status, 200);
  assert.equal((await call(t.baseUrl, 'listApiKeys', 'GET', '/v1/keys', { headers: bearer(key) })).body.error, 'invalid_api_key');
});
