/**
 * The seller marketplace on the embedded default (PGlite): register, publish, the scheduler's
 * claims (FOR UPDATE SKIP LOCKED) activating the endpoint, signature replay, delete.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, testConfig, type TestApp } from './helpers/app.ts';
import { call, deleteEndpoint, endpointInput, eventually, listEndpoints, nowS, publish, register, solanaSigner, startUpstream, evmSigner, type TestUpstream } from './helpers/sellers.ts';

let dir: string;
let t: TestApp;
let up: TestUpstream;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paycall-pglite-sellers-'));
  up = await startUpstream();
  t = await startTestApp(testConfig({ PGLITE_DIR: join(dir, 'db'), SCHEDULER_TICK_MS: '10', HEALTH_PROBE_INTERVAL_MS: '20' }));
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
