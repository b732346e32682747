/**
 * Rate limits: 429 rate_limited with Retry-After once a client has used its bucket, per
 * client address (unpaid quotes, the facilitator) or per wallet (seller and key calls); calls
 * carrying a payment proof are not limited; RATE_LIMITS=off disables them. Counters in memory
 * are per process; with REDIS_URL two instances share them (real Redis at 127.0.0.1:6379, or
 * TEST_REDIS_URL), and a Redis that stops answering falls back to per-process counting.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { redisReachable, TEST_REDIS_URL } from '../helpers/redis.ts';
import { parseRateLimits, ConfigError, loadConfig } from '../../src/config.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { makePdf } from '../helpers/paid.ts';
import type { ChainsConfig } from '../../src/config.ts';

const REDIS_URL = TEST_REDIS_URL;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** One request from a chosen loopback address (127.0.0.2 is another client to the server). */
/**
 * Chains named but never reached: a payment refused on its form (an unknown network) is decided
 * before any RPC call, so a suite without a devnet can still present one.
 */
async function devChains(): Promise<ChainsConfig> {
  const { Keypair } = await import('@solana/web3.js');
  const bs58 = (await import('bs58')).default;
  const key = bs58.encode(Keypair.generate().secretKey);
  const evm = (n: number) => ({ rpcUrl: 'http://127.0.0.1:9', chainId: n, usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: '0x5df1e9B7234A47e0B951726CE7cC2Eb20608B9A4' });
  return {
    base: evm(8453),
    polygon: { ...evm(137), usdc: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' },
    solana: { rpcUrl: 'http://127.0.0.1:9', usdcMint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', payTo: '8fgDjAuUJxWyZcn59R6Y6wgpaAeYFYteYV7hZSCELRYz' },
    signers: { evmRelayerKey: '0x' + '11'.repeat(32), evmTreasuryKey: '0x' + '22'.repeat(32), solanaFeePayerKey: key, solanaTreasuryKey: key },
  } as ChainsConfig;
}

function call(baseUrl: string, method: string, path: string, opts: { from?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}${path}`, { method, localAddress: opts.from ?? '127.0.0.1', headers: { connection: 'close', ...(opts.headers ?? {}) }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {}
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const quote = (app: TestApp, from?: string, headers: Record<string, string> = {}) =>
  call(app.baseUrl, 'POST', '/v1/pdf-text', { from, headers: { 'content-type': 'application/pdf', ...headers }, body: Buffer.from('%PDF-1.4 not really a pdf') });

const assertLimited = (a: Answer, windowSeconds: number) => {
  assert.equal(a.status, 429, JSON.stringify(a.body));
  assert.equal(a.body.error, 'rate_limited');
  assert.match(a.body.hint, /^Retry after \d+ s$/);
  const retryAfter = Number(a.headers['retry-after']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= windowSeconds, `Retry-After: ${a.headers['retry-after']}`);
  assert.ok(a.body.request_id);
};

test('RATE_LIMITS: buckets, windows, defaults for the buckets not named, off, and errors naming the variable', () => {
  const limits = parseRateLimits('quote=5/10s,keys=2/1m')!;
  assert.deepEqual(limits.quote, { points: 5, durationSeconds: 10 });
  assert.deepEqual(limits.keys, { points: 2, durationSeconds: 60 });
  assert.deepEqual(limits.facilitator, { points: 60, durationSeconds: 60 });
  assert.deepEqual(parseRateLimits(undefined)!.seller, { points: 120, durationSeconds: 60 });
  assert.equal(parseRateLimits('off'), null);
  for (const bad of ['quote=5', 'quote=5/10d', 'nope=1/1s', 'quote=0/1s']) {
    assert.throws(() => loadConfig({ RATE_LIMITS: bad }), (e: unknown) => e instanceof ConfigError && e.variable === 'RATE_LIMITS', bad);
  }
  assert.throws(() => loadConfig({ REDIS_URL: 'http://x' }), (e: unknown) => e instanceof ConfigError && e.variable === 'REDIS_URL');
});

describe('in memory (no REDIS_URL): per process', () => {
  let db: TestDatabase;
  const apps: TestApp[] = [];
  after(async () => {
    for (const a of apps) await a.close();
    await db?.drop();
  });
  const start = async (env: Record<string, string>) => {
    db ??= await createTestDatabase('ops_rl');
    const app = await startTestApp(testConfig({ DATABASE_URL: db.url, ...env }));
    apps.push(app);
    return app;
  };

  test('unpaid quotes: the 4th call of a client in the window is 429 with Retry-After; another address is not limited', async () => {
    const app = await start({ RATE_LIMITS: 'quote=3/60s' });
    for (let i = 0; i < 3; i++) assert.notEqual((await quote(app)).status, 429);
    assertLimited(await quote(app), 60);
    assert.notEqual((await quote(app, '127.0.0.2')).status, 429, 'another client address has its own bucket');
    // Counted in the metrics operators watch.
    const metrics = await (await fetch(`${app.metricsUrl}/metrics`)).text();
    assert.match(metrics, /^paycall_rate_limited_total\{bucket="quote"\} 1$/m);
    // Health and metrics are never limited (load balancers and Prometheus poll them).
    for (let i = 0; i < 5; i++) assert.equal((await call(app.baseUrl, 'GET', '/v1/_health')).status === 429, false);
  });

  test('a call carrying a payment proof is not limited, even when the bucket is used up', async () => {
    const app = await start({ RATE_LIMITS: 'quote=1/60s' });
    assert.notEqual((await quote(app, '127.0.0.3')).status, 429);
    assertLimited(await quote(app, '127.0.0.3'), 60);
    const proof = Buffer.from(JSON.stringify({ x402Version: 1, scheme: 'exact', network: 'base', payload: { tx_hash: `0x${'ab'.repeat(32)}` } })).toString('base64url');
    const proofs: Record<string, string>[] = [{ 'x-payment': proof }, { 'x-session-token': 'e30' }, { 'payment-signature': proof }];
    for (const headers of proofs) {
      assert.notEqual((await quote(app, '127.0.0.3', headers)).status, 429, Object.keys(headers)[0]);
    }
  });

  test('MCP at /mcp counts against the quote bucket, except a tools/call carrying a payment in _meta', async () => {
    const app = await start({ RATE_LIMITS: 'quote=1/60s' });
    const mcp = (message: object) =>
      call(app.baseUrl, 'POST', '/mcp', { from: '127.0.0.9', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }) });
    const list = await mcp({ method: 'tools/list', params: {} });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assertLimited(await mcp({ method: 'tools/list', params: {} }), 60);
    const unpaid = { name: 'pdf-text', arguments: { document: Buffer.from('%PDF-1.4').toString('base64') } };
    assertLimited(await mcp({ method: 'tools/call', params: unpaid }), 60);
    const paid = await mcp({ method: 'tools/call', params: { ...unpaid, _meta: { 'x402/payment': { x402Version: 2, accepted: { network: 'eip155:1', scheme: 'exact' }, payload: {} } } } });
    assert.equal(paid.status, 200, 'a call carrying a payment runs whatever the count');
  });

  test('MCP: a refused payment (a tool result inside a 200) is counted like an unpaid call', async () => {
    const app = await startTestApp({ ...testConfig({ DATABASE_URL: (db ??= await createTestDatabase('ops_rl')).url, RATE_LIMITS: 'quote=1/60s' }), chains: await devChains() });
    apps.push(app);
    const mcp = (message: object) =>
      call(app.baseUrl, 'POST', '/mcp', { from: '127.0.0.10', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }) });
    const forged = { name: 'pdf-text', arguments: { document: (await makePdf(1, 'rate-limit')).toString('base64') }, _meta: { 'x402/payment': { x402Version: 2, accepted: { network: 'eip155:1', scheme: 'exact' }, payload: {} } } };
    const refused = await mcp({ method: 'tools/call', params: forged });
    assert.equal(refused.status, 200);
    assert.equal(refused.body.result.structuredContent.error, 'invalid_payment');
    // The refusal used the bucket's one request: an unpaid call is now limited.
    assertLimited(await mcp({ method: 'tools/list', params: {} }), 60);
  });

  test('seller calls are counted per wallet, whatever the address and the letter case of an EVM wallet', async () => {
    const app = await start({ RATE_LIMITS: 'seller=2/60s' });
    const wallet = `0x${randomBytes(20).toString('hex')}`;
    const stats = (w: string, from: string) => call(app.baseUrl, 'GET', `/v1/_seller/${w}/stats`, { from });
    assert.notEqual((await stats(wallet.toLowerCase(), '127.0.0.4')).status, 429);
    assert.notEqual((await stats(wallet.toUpperCase().replace('0X', '0x'), '127.0.0.5')).status, 429);
    assertLimited(await stats(wallet, '127.0.0.6'), 60);
    assert.notEqual((await stats(`0x${randomBytes(20).toString('hex')}`, '127.0.0.4')).status, 429, 'another wallet has its own bucket');
  });

  test('the facilitator is counted per client address', async () => {
    const app = await start({ RATE_LIMITS: 'facilitator=1/30s' });
    const cosign = () => call(app.baseUrl, 'POST', '/v1/_facilitator/solana', { from: '127.0.0.7', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ transaction: 'AQ==' }) });
    assert.notEqual((await cosign()).status, 429);
    assertLimited(await cosign(), 30);
  });

  test('two instances without Redis count separately: memory limits are per process', async () => {
    const a = await start({ RATE_LIMITS: 'quote=1/60s' });
    const b = await start({ RATE_LIMITS: 'quote=1/60s' });
    assert.notEqual((await quote(a, '127.0.0.8')).status, 429);
    assert.notEqual((await quote(b, '127.0.0.8')).status, 429);
    assertLimited(await quote(a, '127.0.0.8'), 60);
  });

  test('RATE_LIMITS=off: never 429', async () => {
    const app = await start({ RATE_LIMITS: 'off' });
    for (let i = 0; i < 30; i++) assert.notEqual((await quote(app, '127.0.0.9')).status, 429);
  });
});

const noRedis = (await redisReachable()) ? false : `no Redis at ${REDIS_URL} (set TEST_REDIS_URL, or apt-get install redis-server): shared limits not tested`;

describe('with Redis (REDIS_URL): shared by every instance', { skip: noRedis }, () => {
  let db: TestDatabase;
  const apps: TestApp[] = [];
  after(async () => {
    for (const a of apps) await a.close();
    await db?.drop();
  });
  // A service name of its own: Redis keys are namespaced by it, so runs never share counters.
  const serviceName = `paycall-test-${randomBytes(4).toString('hex')}`;
  const start = async (env: Record<string, string>) => {
    db ??= await createTestDatabase('ops_rl_redis');
    const app = await startTestApp(testConfig({ DATABASE_URL: db.url, SERVICE_NAME: serviceName, ...env }));
    apps.push(app);
    return app;
  };

  test('two instances on one Redis share the limit: calls to either use the same bucket', async () => {
    const env = { RATE_LIMITS: 'quote=3/60s', REDIS_URL };
    const a = await start(env);
    const b = await start(env);
    assert.notEqual((await quote(a)).status, 429);
    assert.notEqual((await quote(b)).status, 429);
    assert.notEqual((await quote(a)).status, 429);
    // The client has used 3 across the two instances: both refuse now.
    assertLimited(await quote(b), 60);
    assertLimited(await quote(a), 60);
    // The counter really is in Redis, under this deployment's prefix.
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`paycall:rl:${serviceName}:quote*`);
      assert.equal(keys.length, 1, keys.join(', '));
      assert.ok(Number(await redis.get(keys[0])) >= 3);
      await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
  });

  test('a Redis that does not answer: requests are still served, limited per process', async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number };
        s.close(() => resolve(port));
      });
    });
    const app = await start({ RATE_LIMITS: 'quote=2/60s', REDIS_URL: `redis://127.0.0.1:${closed}` });
    assert.notEqual((await quote(app, '127.0.0.10')).status, 429);
    assert.notEqual((await quote(app, '127.0.0.10')).status, 429);
    assertLimited(await quote(app, '127.0.0.10'), 60);
  });
});
