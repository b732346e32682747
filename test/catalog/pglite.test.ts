/**
 * Discovery search and the reliability figures on PGlite (no PostgreSQL server): the same
 * full-text search (the 'english' configuration, websearch_to_tsquery, ts_rank) and the same
 * set-based reliability query run there.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { call } from '../helpers/sellers.ts';

let dir: string;
let t: TestApp;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paycall-pglite-discovery-'));
  t = await startTestApp(testConfig({ PGLITE_DIR: join(dir, 'db'), SCHEDULER_TICK_MS: '0' }));
});
after(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

test('search ranks by text relevance on PGlite too, and /v1/_meta lists with the reliability query', async () => {
  const r = await call(t.baseUrl, 'searchDiscoveryResources', 'GET', '/discovery/search?query=invoices%20vat');
  assert.equal(r.status, 200);
  assert.deepEqual(r.body.resources.map((i: any) => i.routeTemplate), ['/v1/invoice-extract'], 'stemmed: "invoices" finds "invoice"');
  assert.equal((await call(t.baseUrl, 'searchDiscoveryResources', 'GET', '/discovery/search?query=markdown')).body.resources[0].routeTemplate, '/v1/pdf-md');
  assert.equal((await call(t.baseUrl, 'getMeta', 'GET', '/v1/_meta')).status, 200);
});
