/**
 * The SSRF guard on its own: ipaddr.js ranges, and the upstream client refusing at connect
 * time (literal IPs in the connector, names in the DNS lookup) with no publish-time check.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LookupFunction } from 'node:net';
import { blockedRange, UpstreamAddressError } from '../src/proxy/ssrf-guard.ts';
import { createUpstreamClient } from '../src/proxy/upstream-client.ts';
import { startUpstream } from './helpers/sellers.ts';

test('only public unicast addresses pass', () => {
  const blocked: [string, string][] = [
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.1.1.1', 'private'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['ff02::1', 'multicast'],
  ];
  for (const [ip, range] of blocked) assert.equal(blockedRange(ip), range, ip);
  for (const ip of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(blockedRange(ip), null, ip);
});

test('the client refuses loopback and private addresses when dialling, by literal or by name', async () => {
  const up = await startUpstream();
  const port = new URL(up.url).port;
  let calls = 0;
  const lookup: LookupFunction = (_host, options, cb) => {
    calls++;
    if ((options as { all?: boolean }).all) (cb as any)(null, [{ address: '127.0.0.1', family: 4 }]);
    else cb(null, '127.0.0.1', 4);
  };
  const strict = createUpstreamClient({ allowLocal: false, caFile: null, lookup });
  const local = createUpstreamClient({ allowLocal: true, caFile: null });
  try {
    const req = { method: 'POST' as const, body: '{}', timeoutMs: 5000, maxResponseBytes: 1000 };
    const refused = async (url: string, client = strict) => {
      const err = await client.request(url, req).then(
        () => null,
        (e) => e,
      );
      let e = err;
      while (e && !(e instanceof UpstreamAddressError)) e = e.cause;
      assert.ok(e instanceof UpstreamAddressError, `${url}: ${err}`);
      return e as UpstreamAddressError;
    };
    assert.equal((await refused(`https://127.0.0.1:${port}/x`)).range, 'loopback');
    assert.equal((await refused(`https://[::1]:${port}/x`)).range, 'loopback');
    assert.equal((await refused(`https://anything.example:${port}/x`)).address, '127.0.0.1');
    assert.ok(calls >= 1, 'the name was resolved through the guard at connect time');
    // ALLOW_LOCAL_UPSTREAMS lets loopback through, nothing else.
    const ok = await local.request(`${up.url}/fine`, req);
    assert.equal(ok.status, 200);
    assert.equal((await refused('https://10.9.9.9/x', local)).range, 'private');
    assert.match(local.urlProblem('http://example.com/') ?? '', /must use https/);
    assert.equal(strict.urlProblem(`http://127.0.0.1:${port}/`), 'must use https');
    assert.equal(strict.urlProblem('https://user:pw@example.com/'), 'must not carry credentials');
  } finally {
    await strict.close();
    await local.close();
    await up.close();
  }
});

test('local upstreams are a devnet convenience: on by default there, refused in production; thresholds validated', async () => {
  const { loadConfig, ConfigError } = await import('../src/config.ts');
  assert.equal(loadConfig({}).sellers.allowLocalUpstreams, true);
  assert.equal(loadConfig({ ALLOW_LOCAL_UPSTREAMS: '0' }).sellers.allowLocalUpstreams, false);
  const addr = '0x' + '1'.repeat(40);
  const key = '0x' + '2'.repeat(64);
  const b58 = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
  const production = {
    PAYCALL_PROFILE: 'production',
    DATABASE_URL: 'postgres://db/x',
    ...Object.fromEntries(['BASE', 'POLYGON'].flatMap((c) => [[`${c}_RPC_URL`, 'https://rpc.example'], [`${c}_USDC`, addr], [`${c}_PAY_TO`, addr]])),
    SOLANA_RPC_URL: 'https://rpc.example',
    SOLANA_USDC_MINT: b58,
    SOLANA_PAY_TO: b58,
    EVM_RELAYER_KEY: key,
    EVM_TREASURY_KEY: key,
    SOLANA_FEE_PAYER_KEY: b58,
    SOLANA_TREASURY_KEY: b58,
    FORWARD_SIGNING_KEY: Buffer.alloc(32, 9).toString('base64'),
    API_KEY_SECRET: 'k'.repeat(32),
  };
  assert.equal(loadConfig(production).sellers.allowLocalUpstreams, false, 'off by default in production');
  assert.throws(() => loadConfig({ ...production, ALLOW_LOCAL_UPSTREAMS: '1' }), (e: unknown) => e instanceof ConfigError && e.variable === 'ALLOW_LOCAL_UPSTREAMS');
  assert.throws(() => loadConfig({ ENDPOINT_DEGRADE_AFTER_FAILURES: '5', ENDPOINT_SUSPEND_AFTER_FAILURES: '3' }), /ENDPOINT_SUSPEND_AFTER_FAILURES/);
  assert.throws(() => loadConfig({ PROBE_REGIONS: 'us east' }), /PROBE_REGIONS/);
  const d = loadConfig({}).sellers;
  assert.deepEqual(
    [d.probeRegions.length, d.probeTimeoutMs, d.activationP95Ms, d.degradeAfterFailures, d.recoverAfterSuccesses, d.suspendAfterFailures, d.suspendAfterDegradedMs],
    [3, 10_000, 5_000, 5, 3, 20, 30 * 60_000],
  );
});
