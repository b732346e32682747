/**
 * Operator-only data stays off the public API port (issue 20, item 7): /metrics (revenue per
 * endpoint, treasury and relayer balances) and the detailed health report answer on the
 * operator listener (METRICS_HOST:METRICS_PORT, loopback by default) only; the public
 * /v1/_health says per dependency whether it is up, nothing more. Checked on an app with the
 * devnet's chains (so the relayer and fee payer have addresses and balances to leak) and on
 * the real process.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { startPaidTestEnv, type PaidTestEnv } from '../helpers/paid.ts';
import { startServiceProcess } from '../helpers/app.ts';
import { assertMatchesContract } from '../helpers/contract.ts';

let env: PaidTestEnv;
const dir = mkdtempSync(join(tmpdir(), 'paycall-operator-'));

before(async () => {
  env = await startPaidTestEnv('oplisten');
});
after(async () => {
  await env?.close();
  rmSync(dir, { recursive: true, force: true });
});

const PUBLIC_CHECK_FIELDS = new Set(['ok', 'latency_ms', 'block_number']);

test('GET /metrics is not served on the public port; the operator listener serves it', async () => {
  for (const method of ['GET', 'HEAD']) {
    const res = await fetch(`${env.t.baseUrl}/metrics`, { method });
    assert.equal(res.status, 404, `${method} /metrics on the public port`);
    if (method === 'GET') assert.equal(((await res.json()) as { error: string }).error, 'endpoint_not_found');
  }
  const res = await fetch(`${env.t.metricsUrl}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  const text = await res.text();
  // What made /metrics operator-only: revenue per endpoint and the signers' balances.
  assert.match(text, /^# TYPE paycall_money_in_atomic_total counter$/m);
  assert.match(text, /^# TYPE paycall_wallet_balance gauge$/m);
  // Read at scrape time, each check bounded (a loaded machine may report 0): the series is there.
  assert.match(text, /^paycall_database_up [01]$/m);
  // Requests to the public port are counted; the operator listener's own are not operations.
  assert.match(text, /^paycall_http_requests_total\{operation="unknown",status="404"\} [1-9]/m);
  // The operator listener serves nothing else.
  assert.equal((await fetch(`${env.t.metricsUrl}/v1/_meta`)).status, 404);
  assert.equal((await fetch(`${env.t.metricsUrl}/metrics`, { method: 'POST', body: 'x' })).status, 405);
  assert.equal((await fetch(`${env.t.metricsUrl}/metrics`, { method: 'HEAD' })).status, 200);
});

test('the public /v1/_health says per dependency whether it is up, without addresses, balances or error texts', async () => {
  const res = await fetch(`${env.t.baseUrl}/v1/_health`);
  assert.equal(res.status, 200);
  const text = await res.text();
  const body = JSON.parse(text) as { status: string; checks: { database: Record<string, unknown>; rpc: Record<string, Record<string, unknown>>; facilitators: Record<string, Record<string, unknown>> } };
  await assertMatchesContract('getHealth', 200, body);
  assert.ok(['ok', 'degraded'].includes(body.status));
  const checks = [body.checks.database, ...Object.values(body.checks.rpc), ...Object.values(body.checks.facilitators)];
  assert.equal(checks.length, 6);
  for (const c of checks) for (const field of Object.keys(c)) assert.ok(PUBLIC_CHECK_FIELDS.has(field), `public health check has ${field}`);
  assert.deepEqual(Object.keys(body.checks.facilitators).sort(), ['evm_relayer', 'solana_fee_payer']);
  const relayer = privateKeyToAccount(env.t.app.config.chains!.signers.evmRelayerKey as Hex).address;
  assert.ok(!text.toLowerCase().includes(relayer.toLowerCase()), 'the relayer address is not public');
  assert.doesNotMatch(text, /balance/);

  // The same checks in full are the operator's.
  const details = await fetch(`${env.t.metricsUrl}/health/details`);
  assert.equal(details.status, 200);
  assert.equal(details.headers.get('cache-control'), 'no-store');
  const full = (await details.json()) as { status: string; checks: { facilitators: { evm_relayer: { address: string; balances: Record<string, string | null> }; solana_fee_payer: { address: string; balance: string } } } };
  assert.ok(['ok', 'degraded'].includes(full.status));
  assert.equal(full.checks.facilitators.evm_relayer.address.toLowerCase(), relayer.toLowerCase());
  assert.deepEqual(Object.keys(full.checks.facilitators.evm_relayer.balances).sort(), ['base', 'polygon']);
  assert.ok(full.checks.facilitators.solana_fee_payer.address);
  // Not on the public port.
  assert.equal((await fetch(`${env.t.baseUrl}/health/details`)).status, 404);
});

test('the real process binds the operator listener on loopback by default, apart from the API', async () => {
  const svc = await startServiceProcess({ DATABASE_URL: '', PGLITE_DIR: join(dir, 'pglite'), PAYCALL_DATA_DIR: dir, PAYCALL_PROFILE: 'devnet', PAYCALL_START_DEVNET: '0', LOG_LEVEL: 'info' });
  const exited = new Promise<number | null>((resolve) => svc.child.once('exit', (code) => resolve(code)));
  try {
    const metrics = new URL(svc.metricsUrl);
    assert.equal(metrics.hostname, '127.0.0.1', 'METRICS_HOST defaults to loopback');
    assert.notEqual(metrics.port, new URL(svc.url).port);
    assert.equal((await fetch(`${svc.url}/metrics`)).status, 404);
    const scrape = await fetch(`${svc.metricsUrl}/metrics`);
    assert.equal(scrape.status, 200);
    assert.match(await scrape.text(), /^# TYPE paycall_http_requests_total counter$/m);
    const health = (await (await fetch(`${svc.url}/v1/_health`)).json()) as { checks: { facilitators: Record<string, Record<string, unknown>> } };
    // No chains configured: the public answer says "not ok", the reason is the operator's.
    assert.deepEqual(health.checks.facilitators.evm_relayer, { ok: false, latency_ms: 0 });
    const details = (await (await fetch(`${svc.metricsUrl}/health/details`)).json()) as { checks: { facilitators: Record<string, { error: string }> } };
    assert.equal(details.checks.facilitators.evm_relayer.error, 'not configured');
  } finally {
    svc.child.kill('SIGTERM');
  }
  assert.equal(await exited, 0);
});
