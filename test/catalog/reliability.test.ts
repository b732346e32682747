/**
 * Reliability an agent can see, on the real app, real PostgreSQL and a real local upstream:
 * an endpoint's probes succeed, then its upstream fails them (degraded, still listed); the
 * ledger holds its paid calls' outcomes; /v1/_meta and discovery show the success rate, the
 * latency and the uptime the database holds, and the figures are cached (at most 30 s old).
 *
 * Paid calls are written to the ledger as rows (delivered, undelivered): paying them for real
 * needs the devnet chains, which the paid-call suites run; what is tested here is that the
 * recorded outcomes become the figures.
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
let id: number;

const statusOf = async () => (await sql.query('select status from seller_endpoint where id = $1', [id])).rows[0].status as string;

async function drive(until: () => Promise<boolean>) {
  for (let i = 0; i < 50 && !(await until()); i++) await t.app.runScheduledJobs();
  assert.ok(await until(), 'the probe rounds got there');
}

/** PostgreSQL's percentile_cont: linear interpolation between the closest ranks. */
function percentileCont(values: number[], q: number): number {
  const v = [...values].sort((a, b) => a - b);
  const pos = (v.length - 1) * q;
  const lo = Math.floor(pos);
  return v[lo]! + (v[Math.min(lo + 1, v.length - 1)]! - v[lo]!) * (pos - lo);
}

async function payment(delivery: string, n: number) {
  const { rows } = await sql.query('select seller_id from seller_endpoint where id = $1', [id]);
  await sql.query(
    `insert into payment (network, tx, payer, amount, quoted_amount, endpoint_path, seller_id, endpoint_id, take_bps, fee, net, delivery)
     values ('base', $1, '0x' || repeat('c', 40), 20000, 20000, '/v1/uptime-shop/lookup', $2, $3, 500, 1000, 19000, $4)`,
    [`0x${n.toString(16).padStart(64, '0')}`, rows[0].seller_id, id, delivery],
  );
}

before(async () => {
  db = await createTestDatabase('catalog_reliability');
  up = await startUpstream();
  t = await startTestApp(testConfig({ DATABASE_URL: db.url, ALLOW_LOCAL_UPSTREAMS: '1', PROBE_TIMEOUT_MS: '5000', ...FAST_LIFECYCLE_ENV }));
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  assert.equal((await register(t.baseUrl, seller, 'uptime-shop')).status, 201);
  const r = await publish(t.baseUrl, seller, endpointInput(up.url, 'lookup', { desc: 'Postal code lookup for street addresses.' }));
  assert.equal(r.status, 201);
  id = r.body.id;
  await drive(async () => (await statusOf()) === 'active');
  // Its upstream now fails the health probes: degraded after two, still listed.
  up.behaviour = 'fail';
  await drive(async () => (await statusOf()) === 'degraded');
  // Paid calls' outcomes in the ledger: 3 served, 1 not, 1 still running (counts for neither).
  for (const [n, d] of (['delivered', 'delivered', 'delivered', 'undelivered', 'pending'] as const).entries()) await payment(d, n + 1);
});
after(async () => {
  await sql?.end();
  await t?.close();
  await up?.close();
  await db?.drop();
});

test('/v1/_meta and discovery show the success rate, latency and uptime the database holds; figures are cached', async () => {
  const obs = (await sql.query('select source, ok, latency_ms from endpoint_observation where endpoint_id = $1', [id])).rows as { source: string; ok: boolean; latency_ms: number | null }[];
  const probes = obs.filter((o) => o.source !== 'call');
  assert.ok(probes.some((o) => o.ok) && probes.some((o) => !o.ok), 'probes both succeeded and failed');
  const okLatencies = obs.filter((o) => o.ok && o.latency_ms !== null).map((o) => o.latency_ms!);
  const uptime = Math.round((probes.filter((o) => o.ok).length / probes.length) * 10_000) / 10_000;
  const expected = {
    success_rate_7d: 0.75,
    paid_calls_7d: 4,
    p50_latency_ms: Math.round(percentileCont(okLatencies, 0.5)),
    p95_latency_ms: Math.round(percentileCont(okLatencies, 0.95)),
    uptime_24h: uptime,
    uptime_7d: uptime,
  };

  const meta = await call(t.baseUrl, 'getMeta', 'GET', '/v1/_meta');
  const entry = meta.body.endpoints.find((e: any) => e.path === '/v1/uptime-shop/lookup');
  assert.equal(entry.status, 'degraded');
  const { as_of, ...figures } = entry.reliability;
  assert.deepEqual(figures, expected);
  assert.ok(Date.now() - Date.parse(as_of) < 60_000);
  assert.equal(meta.body.endpoints.find((e: any) => e.path === '/v1/pdf-md').reliability, undefined, 'built-ins have no seller figures');

  const found = await call(t.baseUrl, 'searchDiscoveryResources', 'GET', '/discovery/search?query=postal');
  assert.deepEqual(found.body.resources.map((i: any) => i.metadata.reliability), [entry.reliability]);
  const listed = await call(t.baseUrl, 'listDiscoveryResources', 'GET', '/discovery/resources?limit=100');
  assert.deepEqual(listed.body.items.find((i: any) => i.routeTemplate === '/v1/uptime-shop/lookup').metadata.reliability, entry.reliability);

  // Cached per process: a paid call recorded now shows within 30 s, not on this very listing.
  await payment('undelivered', 99);
  const again = await call(t.baseUrl, 'getMeta', 'GET', '/v1/_meta');
  assert.deepEqual(again.body.endpoints.find((e: any) => e.path === '/v1/uptime-shop/lookup').reliability, entry.reliability);
});
