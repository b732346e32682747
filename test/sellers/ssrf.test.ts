/**
 * The SSRF guard on its own: ipaddr.js ranges, and the upstream client refusing at connect
 * time (literal IPs in the connector, names in the DNS lookup) with no publish-time check.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LookupFunction } from 'node:net';
import { blockedRange, UpstreamAddressError } from '../../src/proxy/ssrf-guard.ts';
import { createUpstreamClient } from '../../src/proxy/upstream-client.ts';
import { startUpstream } from '../helpers/sellers.ts';

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
    ['192.0.2.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['100::1', 'discard'],
    // IPv4-mapped: judged as the IPv4 address it carries.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.1.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    // IPv4-compatible (deprecated): dialled as 127.0.0.1 by some stacks; ipaddr.js calls it unicast.
    ['::7f00:1', 'ipv4Compatible'],
    ['[::7f00:1]', 'ipv4Compatible'],
    ['::127.0.0.1', 'ipv4Compatible'],
    ['::a00:1', 'ipv4Compatible'],
    ['::808:808', 'ipv4Compatible'],
    ['::0.0.0.2', 'ipv4Compatible'],
    // NAT64, well-known /96: judged as the embedded IPv4.
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::169.254.169.254', 'linkLocal'],
    // Local-use NAT64 (operator-chosen prefix length), IPv4-translated, 6to4, Teredo: refused whole.
    ['64:ff9b:1::7f00:1', 'rfc6052'],
    ['64:ff9b:1:808:800:800::', 'rfc6052'],
    ['::ffff:0:7f00:1', 'rfc6145'],
    ['2002:7f00:1::1', '6to4'],
    ['2002:a00:1::1', '6to4'],
    ['2002:808:808::1', '6to4'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'teredo'],
    ['2001::ffff:ffff', 'teredo'],
    // Outside 2000::/3, the only global unicast block.
    ['4000::1', 'notGlobalUnicast'],
    ['0:0:0:1::1', 'notGlobalUnicast'],
    ['e000::1', 'notGlobalUnicast'],
    // What no URL parser would pass on, and what is not an address at all.
    ['not-an-ip', 'unparseable'],
    ['::ffff:1.2.3', 'unparseable'],
  ];
  for (const [ip, range] of blocked) assert.equal(blockedRange(ip), range, ip);
  for (const ip of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '[2606:4700:4700::1111]', '::ffff:8.8.8.8', '64:ff9b::808:808', '2a00:1450:4001:80b::200e']) assert.equal(blockedRange(ip), null, ip);
});

test('IPv4 in decimal, octal, hex and short forms is judged as the address it means', async () => {
  // ipaddr.js reads the legacy inet_aton forms itself...
  for (const ip of ['2130706433', '0x7f000001', '0177.0.0.1', '0x7f.0.0.1', '127.1', '017700000001', '0x7f.1']) assert.equal(blockedRange(ip), 'loopback', ip);
  assert.equal(blockedRange('0xa9fea9fe'), 'linkLocal');
  assert.equal(blockedRange('3232235777'), 'private');
  // ...and the URL parser (WHATWG, as undici and the publish check use it) normalises them to
  // dotted decimal before any check, so no spelling of a private address reaches the network.
  const client = createUpstreamClient({ allowLocal: false, caFile: null });
  try {
    for (const host of ['2130706433', '0x7f000001', '0177.0.0.1', '0x7f.1', '127.1', '[::ffff:127.0.0.1]', '[::127.0.0.1]', '[64:ff9b::127.0.0.1]', '[0:0:0:0:0:0:7f00:1]']) {
      const err = await client.assertAllowedAddress(`https://${host}/`).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(err instanceof UpstreamAddressError, `https://${host}/ passed the publish check`);
    }
  } finally {
    await client.close();
  }
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
    // The embedded forms are refused at dial time too, by literal...
    assert.equal((await refused(`https://[::7f00:1]:${port}/x`)).range, 'ipv4Compatible');
    assert.equal((await refused(`https://[::ffff:7f00:1]:${port}/x`)).range, 'loopback');
    assert.equal((await refused(`https://[64:ff9b::7f00:1]:${port}/x`)).range, 'loopback');
    assert.equal((await refused(`https://[2002:7f00:1::1]:${port}/x`)).range, '6to4');
    assert.equal((await refused(`https://0x7f.1:${port}/x`)).range, 'loopback');
    // ...and by name, whatever the resolver answers.
    const embedded = createUpstreamClient({ allowLocal: false, caFile: null, lookup: (_h, o, cb) => ((o as { all?: boolean }).all ? (cb as any)(null, [{ address: '::7f00:1', family: 6 }]) : cb(null, '::7f00:1', 6)) });
    try {
      assert.equal((await refused(`https://compat.example:${port}/x`, embedded)).range, 'ipv4Compatible');
    } finally {
      await embedded.close();
    }
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
  const { loadConfig, ConfigError } = await import('../../src/config.ts');
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
