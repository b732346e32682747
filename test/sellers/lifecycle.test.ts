/**
 * The endpoint lifecycle driven by a real upstream that starts failing and recovers:
 * pending -> active (three regional probes), retries with back-off, active -> degraded ->
 * active, degraded -> suspended (failure count and time degraded), seller suspension, 410
 * before any quote, resume -> pending -> active; live-call outcomes; two instances sharing
 * one database each doing every job once. Thresholds are shrunk through configuration and
 * the scheduler is driven pass by pass (SCHEDULER_TICK_MS=0), so no test depends on timing.
 */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { Registry } from 'prom-client';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { FAST_LIFECYCLE_ENV, call, endpointInput, eventually, evmSigner, listEndpoints, publish, register, resume, signedQuery, solanaSigner, startUpstream, type TestSigner, type TestUpstream } from '../helpers/sellers.ts';
import { nextHealthState, recordUpstreamOutcome, type HealthState } from '../../src/sellers/lifecycle.ts';
import { createSellerMetrics } from '../../src/sellers/seller-metrics.ts';
import { silentLogger } from '../../src/log.ts';

const LIFECYCLE_ENV = { ...FAST_LIFECYCLE_ENV, PROBE_REGIONS: 'us-east,eu-central,ap-southeast' };

let db: TestDatabase;
let t: TestApp;
let up: TestUpstream;
let sql: pg.Client;
const seller = evmSigner();

before(async () => {
  db = await createTestDatabase('sellers_lifecycle');
  up = await startUpstream();
  t = await startTestApp(testConfig({ DATABASE_URL: db.url, ...LIFECYCLE_ENV }));
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  assert.equal((await register(t.baseUrl, seller, 'life-shop')).status, 201);
});
after(async () => {
  await sql?.end();
  await t?.close();
  await up?.close();
  await db?.drop();
});

const statusOf = async (id: number) => (await sql.query('select status from seller_endpoint where id = $1', [id])).rows[0].status as string;
const sellerStatus = async (slug: string) => (await sql.query('select status from seller where slug = $1', [slug])).rows[0].status as string;
// A pass only takes jobs due when it starts; health probes are due 1 ms after the last one, so
// let a few milliseconds pass first (no assertion depends on how long a pass takes).
const pass = async (app: TestApp = t) => {
  await new Promise((r) => setTimeout(r, 5));
  await app.app.runScheduledJobs();
};
const meta = async () => ((await (await fetch(`${t.baseUrl}/v1/_meta`)).json()) as any).endpoints as any[];
const metrics = async () => (await fetch(`${t.metricsUrl}/metrics`)).text();

describe('state machine', () => {
  const T = { degradeAfterFailures: 5, recoverAfterSuccesses: 3, suspendAfterFailures: 20, suspendAfterDegradedMs: 30 * 60_000 };
  const run = (s: HealthState, outcomes: boolean[], at = 0, source: 'health' | 'call' = 'health') => outcomes.reduce((acc, ok, i) => nextHealthState(acc, ok, at + i, T, source), s);
  const active: HealthState = { status: 'active', consecutiveFailures: 0, consecutiveSuccesses: 0, callFailures: 0, degradedSince: null };

  test('the default thresholds: 5 failures degrade, 3 successes recover, 20 failures or 30 minutes suspend', () => {
    assert.equal(run(active, Array(4).fill(false)).status, 'active');
    const degraded = run(active, Array(5).fill(false));
    assert.equal(degraded.status, 'degraded');
    assert.equal(run(degraded, [true, true]).status, 'degraded');
    assert.equal(run(degraded, [true, true, true]).status, 'active');
    assert.equal(run(degraded, [true, false, true, true]).status, 'degraded', 'successes must be consecutive');
    assert.equal(run(degraded, Array(14).fill(false)).status, 'degraded');
    assert.equal(run(degraded, Array(15).fill(false)).status, 'suspended', '20 consecutive failures in all');
    const late = nextHealthState(degraded, false, degraded.degradedSince! + 30 * 60_000, T, 'health');
    assert.equal(late.status, 'suspended', '30 minutes degraded without a success');
    const revived = nextHealthState(degraded, true, degraded.degradedSince! + 29 * 60_000, T, 'health');
    assert.equal(nextHealthState(revived, false, degraded.degradedSince! + 31 * 60_000, T, 'health').status, 'degraded', 'a success restarts the clock');
    for (const s of ['pending', 'suspended'] as const) assert.deepEqual(nextHealthState({ ...active, status: s }, false, 0, T, 'call').status, s);
  });

  // The attack of issue 20: the upstream answers probes (no X-Paycall-* headers) and fails every paid call.
  const probeOkCallFails = (s: HealthState, calls: number, at = 0) => {
    let x = s;
    for (let i = 0; i < calls; i++) {
      x = nextHealthState(x, true, at + 2 * i, T, 'health');
      x = nextHealthState(x, false, at + 2 * i + 1, T, 'call');
    }
    return x;
  };

  test('probe successes between failed paid calls erase nothing: 5 failed calls degrade, 20 suspend, at the default thresholds', () => {
    assert.equal(probeOkCallFails(active, 4).status, 'active');
    const degraded = probeOkCallFails(active, 5);
    assert.deepEqual([degraded.status, degraded.callFailures], ['degraded', 5]);
    assert.equal(run(degraded, [true, true, true, true], 100, 'health').status, 'degraded', 'probe successes do not recover it');
    assert.equal(probeOkCallFails(active, 19).status, 'degraded');
    assert.equal(probeOkCallFails(active, 20).status, 'suspended', '20 failed paid calls in all');
  });

  test('degraded by failed paid calls: probe successes do not restart the clock, 30 minutes later a probe suspends it', () => {
    const degraded = probeOkCallFails(active, 5);
    const since = degraded.degradedSince!;
    const probed = run(degraded, [true, true, true], since + 29 * 60_000, 'health');
    assert.deepEqual([probed.status, probed.degradedSince], ['degraded', since]);
    assert.equal(nextHealthState(probed, true, since + 30 * 60_000, T, 'health').status, 'suspended', 'even a probe success, the only outcome this upstream ever gives');
  });

  test('only a served paid call clears the paid-call streak; then probes count again (an honest upstream recovers)', () => {
    const degraded = probeOkCallFails(active, 5);
    const served = nextHealthState(degraded, true, 1_000, T, 'call');
    assert.deepEqual([served.status, served.callFailures, served.consecutiveFailures], ['degraded', 0, 0]);
    assert.equal(run(served, [true, true], 1_001, 'health').status, 'active', 'the call and two probes: three successes');
    const probeFailures = run(active, [false, false, false, false, false], 0, 'health');
    assert.deepEqual([probeFailures.status, probeFailures.callFailures], ['degraded', 0], 'failed probes degrade as before');
    assert.equal(run(probeFailures, [true, true, true], 10, 'health').status, 'active', 'and probe successes recover them as before');
  });
});

describe('lifecycle against a real upstream', () => {
  let id: number;

  test('pending -> active after three probes, one per region, in one pass; then listed in /v1/_meta', async () => {
    const created = await publish(t.baseUrl, seller, endpointInput(up.url, 'flaky'));
    assert.equal(created.status, 201);
    id = created.body.id;
    assert.ok(!(await meta()).some((e) => e.path === '/v1/life-shop/flaky'), 'pending endpoints are not in the catalog');
    await pass();
    assert.equal(await statusOf(id), 'active');
    const regions = (await sql.query(`select region from endpoint_observation where endpoint_id = $1 and source = 'activation' order by region`, [id])).rows.map((r) => r.region);
    assert.deepEqual(regions, ['ap-southeast', 'eu-central', 'us-east']);
    assert.equal(up.hits.get('/flaky'), 4, 'publish probe + three regional probes');
    const entry = (await meta()).find((e) => e.path === '/v1/life-shop/flaky');
    assert.ok(entry, 'active endpoints are in the catalog');
    assert.equal(entry.seller, seller.wallet);
    assert.equal(entry.price, '20000');
    assert.equal(entry.mode, 'proxy');
    assert.equal(entry.status, 'active');
    assert.equal(entry.success_rate_24h, 1);
    assert.equal(typeof entry.p50_latency_ms, 'number');
    assert.equal(typeof entry.p99_latency_ms, 'number');
    const m = await metrics();
    for (const region of ['us-east', 'eu-central', 'ap-southeast', 'publish']) assert.match(m, new RegExp(`paycall_seller_probes_total\\{region="${region}",outcome="ok"\\} [1-9]`));
    assert.match(m, /paycall_seller_endpoints\{status="active"\} 1/);
  });

  test('active -> degraded after 2 failed health probes -> active after 2 successes', async () => {
    up.rules.set('/flaky', 'fail');
    await pass();
    assert.equal(await statusOf(id), 'active', 'one failure is not enough');
    await pass();
    assert.equal(await statusOf(id), 'degraded');
    const entry = (await meta()).find((e) => e.path === '/v1/life-shop/flaky');
    assert.equal(entry?.status, 'degraded', 'degraded endpoints stay in the catalog');
    assert.ok(entry.success_rate_24h < 1);
    up.rules.set('/flaky', 'ok');
    await pass();
    assert.equal(await statusOf(id), 'degraded', 'one success is not enough');
    await pass();
    assert.equal(await statusOf(id), 'active');
    const list = await listEndpoints(t.baseUrl, seller);
    assert.equal(list.body.endpoints[0].last_probe.ok, true);
  });

  test('degraded -> suspended after 4 consecutive failures: seller suspended, buyers 410 before any quote, gone from the catalog', async () => {
    up.rules.set('/flaky', 'fail');
    for (let i = 0; i < 3; i++) await pass();
    assert.equal(await statusOf(id), 'degraded');
    await pass();
    assert.equal(await statusOf(id), 'suspended');
    assert.equal(await sellerStatus('life-shop'), 'suspended');
    const buyer = await fetch(`${t.baseUrl}/v1/life-shop/flaky`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    assert.equal(buyer.status, 410);
    assert.equal(((await buyer.json()) as any).error, 'endpoint_suspended');
    assert.ok(!(await meta()).some((e) => e.path === '/v1/life-shop/flaky'));
    const hits = up.hits.get('/flaky');
    await pass();
    assert.equal(up.hits.get('/flaky'), hits, 'a suspended endpoint is not probed');
    const add = await publish(t.baseUrl, seller, endpointInput(up.url, 'other'));
    assert.equal(add.body.error, 'seller_suspended');
    assert.match(add.body.message, /flaky \(last probe: answered 503\)/);
    assert.match(await metrics(), /paycall_seller_endpoint_transitions_total\{from="degraded",to="suspended"\} 1/);
  });

  test('resume after the fix: pending, re-probed, active; the errors call shows what happened', async () => {
    up.rules.set('/flaky', 'ok');
    const r = await resume(t.baseUrl, seller);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.resumed_endpoint_ids, [id]);
    assert.equal(await statusOf(id), 'pending');
    assert.equal(await sellerStatus('life-shop'), 'active');
    await pass();
    assert.equal(await statusOf(id), 'active');
    const errors = await call(t.baseUrl, 'getSellerErrors', 'GET', `/v1/_seller/${seller.wallet}/errors?${await signedQuery(seller, 'errors')}`);
    assert.equal(errors.status, 200);
    const byCode = Object.fromEntries(errors.body.map((e: any) => [e.code, e.count]));
    assert.equal(byCode.probe_failed, 6, 'two failures then four');
    assert.equal(byCode.endpoint_suspended, 1, 'the refused buyer');
  });

  test('pending retries with back-off while the upstream fails after publishing, and activates once it recovers', async () => {
    up.rules.set('/late', 'ok-then-fail');
    const e = (await publish(t.baseUrl, seller, endpointInput(up.url, 'late'))).body;
    await pass();
    assert.equal(await statusOf(e.id), 'pending');
    await pass();
    const row = (await sql.query('select probe_attempts, last_probe from seller_endpoint where id = $1', [e.id])).rows[0];
    assert.equal(row.probe_attempts, 2);
    assert.equal(row.last_probe.ok, false);
    assert.match(row.last_probe.error, /answered 503/);
    const listed = (await listEndpoints(t.baseUrl, seller)).body.endpoints.find((x: any) => x.id === e.id);
    assert.equal(listed.last_probe.ok, false, 'the listing shows the last probe result');
    up.rules.set('/late', 'ok');
    await pass();
    assert.equal(await statusOf(e.id), 'active');
  });

  test('an upstream slower than the activation p95 threshold stays pending', async () => {
    const strict = await startTestApp(testConfig({ DATABASE_URL: db.url, ...LIFECYCLE_ENV, PROBE_ACTIVATION_P95_MS: '1', PROBE_RETRY_BASE_MS: '3600000' }));
    try {
      const s = solanaSigner();
      await register(strict.baseUrl, s, 'slow-shop');
      up.rules.set('/slow', 'slow');
      const e = (await publish(strict.baseUrl, s, endpointInput(up.url, 'slow'))).body;
      await pass(strict);
      assert.equal(await statusOf(e.id), 'pending');
      const row = (await sql.query('select last_probe from seller_endpoint where id = $1', [e.id])).rows[0];
      assert.equal(row.last_probe.ok, false);
      assert.match(row.last_probe.error, /p95 latency \d+ ms is not under 1 ms/);
    } finally {
      await strict.close();
    }
  });

  test('degraded for longer than the limit without a success: suspended on the next failure', async () => {
    const quick = await startTestApp(testConfig({ DATABASE_URL: db.url, ...LIFECYCLE_ENV, ENDPOINT_SUSPEND_AFTER_FAILURES: '1000', ENDPOINT_SUSPEND_AFTER_DEGRADED_MS: '1' }));
    try {
      const s = evmSigner();
      await register(quick.baseUrl, s, 'timeout-shop');
      const e = (await publish(quick.baseUrl, s, endpointInput(up.url, 'timeout'))).body;
      await pass(quick);
      assert.equal(await statusOf(e.id), 'active');
      up.rules.set('/timeout', 'fail');
      await pass(quick);
      await pass(quick);
      assert.equal(await statusOf(e.id), 'degraded');
      await sql.query(`update seller_endpoint set degraded_at = now() - interval '1 second' where id = $1`, [e.id]);
      await pass(quick);
      assert.equal(await statusOf(e.id), 'suspended');
      assert.equal(await sellerStatus('timeout-shop'), 'suspended');
    } finally {
      await quick.close();
    }
  });

  test('live-call outcomes count like health probes (what paid forwarding reports)', async () => {
    const s = evmSigner();
    await register(t.baseUrl, s, 'calls-shop');
    const e = (await publish(t.baseUrl, s, endpointInput(up.url, 'calls'))).body;
    await pass();
    assert.equal(await statusOf(e.id), 'active');
    const deps = { orm: t.app.orm, config: t.app.config.sellers, metrics: createSellerMetrics(new Registry(), t.app.orm), log: silentLogger };
    const outcome = { ok: false, source: 'call' as const, region: 'call', statusCode: 502, latencyMs: 12, error: 'upstream_5xx', errorCode: 'upstream_5xx' };
    await Promise.all([recordUpstreamOutcome(deps, e.id, outcome), recordUpstreamOutcome(deps, e.id, outcome)]);
    assert.equal(await statusOf(e.id), 'degraded', 'two concurrent failures both counted');
    const [{ count }] = (await sql.query(`select count from endpoint_error_count where endpoint_id = $1 and code = 'upstream_5xx'`, [e.id])).rows;
    assert.equal(count, 2);
  });
});

describe('two instances on one database', () => {
  test('each probe job is done by exactly one instance, ticking or driven at once', async () => {
    const db2 = await createTestDatabase('sellers_two');
    const env = { DATABASE_URL: db2.url, ...LIFECYCLE_ENV, HEALTH_PROBE_INTERVAL_MS: '3600000', PROBE_RETRY_BASE_MS: '3600000' };
    const a = await startTestApp(testConfig(env));
    const b = await startTestApp(testConfig(env));
    const sellers: TestSigner[] = [evmSigner(), solanaSigner()];
    try {
      await register(a.baseUrl, sellers[0], 'twin-a');
      await register(b.baseUrl, sellers[1], 'twin-b');
      const ids: number[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await publish(i % 2 ? b.baseUrl : a.baseUrl, sellers[i % 2], endpointInput(up.url, `twin-${i}`));
        assert.equal(r.status, 201);
        ids.push(r.body.id);
      }
      // Both instances run their passes at the same moment, twice.
      await Promise.all([pass(a), pass(b), pass(a), pass(b)]);
      for (let i = 0; i < 6; i++) assert.equal(up.hits.get(`/twin-${i}`), 4, `twin-${i}: publish + 3 regional probes, once`);
      // Now with both schedulers ticking on their own.
      const ticking = { ...env, SCHEDULER_TICK_MS: '5' };
      const c = await startTestApp(testConfig(ticking));
      const d = await startTestApp(testConfig(ticking));
      try {
        const more: number[] = [];
        for (let i = 6; i < 12; i++) more.push((await publish(i % 2 ? d.baseUrl : c.baseUrl, sellers[i % 2], endpointInput(up.url, `twin-${i}`))).body.id);
        const sql2 = new pg.Client({ connectionString: db2.url });
        await sql2.connect();
        try {
          await eventually('every endpoint active', async () => {
            const rows = (await sql2.query(`select count(*)::int as n from seller_endpoint where status = 'active'`)).rows;
            return rows[0].n === 12;
          });
          const obs = (await sql2.query(`select endpoint_id, count(*)::int as n from endpoint_observation where source = 'activation' group by endpoint_id`)).rows;
          assert.equal(obs.length, 12);
          for (const o of obs) assert.equal(o.n, 3, `endpoint ${o.endpoint_id}: three activation probes, once`);
        } finally {
          await sql2.end();
        }
        for (let i = 6; i < 12; i++) assert.equal(up.hits.get(`/twin-${i}`), 4, `twin-${i}`);
      } finally {
        await c.close();
        await d.close();
      }
    } finally {
      await a.close();
      await b.close();
      await db2.drop();
    }
  });
});
