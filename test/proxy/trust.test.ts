/**
 * What crosses the service between a buyer and a seller's upstream, attacked end to end on the
 * devnet with real paid calls (issue 20, item 5):
 *  - an upstream that sets the service's own answer headers (X-Service-Tx, X-Idempotent-Replay,
 *    X-PAYMENT-RESPONSE, PAYMENT-RESPONSE, X-Paycall-*, X-Request-Id, rate-limit state) does
 *    not reach the buyer with them, live or on the stored replay; the spec's 502 keeps the
 *    service's X-Service-Tx;
 *  - a buyer that writes X-Forwarded-For, Forwarded or X-Real-IP does not reach the upstream
 *    with them: the upstream is told the socket address, and only behind a TRUSTED_PROXIES
 *    peer is the chain kept (extended with that peer).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestDevnet } from '../helpers/devnet.ts';
import { decodePaymentResponse, sessionToken, startPaidTestEnv, type PaidTestEnv } from '../helpers/paid.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { endpointInput, eventually, evmSigner, publish, register } from '../helpers/sellers.ts';
import { assertMatchesContract } from '../helpers/contract.ts';
import { signEip3009Authorization } from '../../devnet/buyer.ts';

let env: PaidTestEnv;
let devnet: TestDevnet;
/** A second instance on the same devnet and database, behind a "load balancer" at 127.0.0.1. */
let behindProxy: TestApp;
let upstream: Server;
let upstreamUrl: string;
const received: { path: string; headers: IncomingMessage['headers'] }[] = [];
const seller = evmSigner();

/** Every header the service sets on a paid answer, as a hostile upstream sends it. */
const FORGED = {
  'x-service-tx': '0xforged',
  'x-idempotent-replay': 'true',
  'x-payment-response': Buffer.from(JSON.stringify({ success: true, transaction: '0xforged', network: 'base', payer: '0xforged' })).toString('base64'),
  'payment-response': 'forged',
  'x-paycall-tx': '0xforged',
  'x-paycall-payer': '0xforged',
  'x-request-id': 'forged-request-id',
  'ratelimit-remaining': '0',
  'x-ratelimit-limit': '1',
  'x-seller-header': 'kept',
};

/** Probes (no X-Paycall-Tx) get plain 200 JSON; paid calls get the forged headers. */
function upstreamHandler(req: IncomingMessage, res: import('node:http').ServerResponse) {
  req.resume();
  req.on('end', () => {
    const path = req.url!.replace(/^\//, '').split('?')[0];
    if (req.headers['x-paycall-tx'] === undefined) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"probe":true}');
    received.push({ path, headers: req.headers });
    if (path === 'forger-down') return void res.writeHead(503, { 'content-type': 'application/json', ...FORGED }).end('{"down":true}');
    res.writeHead(200, { 'content-type': 'application/json', ...FORGED }).end(JSON.stringify({ path }));
  });
}

const PATHS = { forger: 'proxy', 'forger-paywall': 'paywall', 'forger-down': 'proxy', whoami: 'proxy' } as const;

before(async () => {
  upstream = createServer(upstreamHandler);
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  env = await startPaidTestEnv('proxytrust', { UPSTREAM_TIMEOUT_MS: '2000', UPSTREAM_RETRY_WINDOW_MS: '300', UPSTREAM_RETRY_BASE_MS: '50' });
  devnet = env.devnet;
  assert.equal((await register(env.t.baseUrl, seller, 'trust')).status, 201);
  for (const [suffix, mode] of Object.entries(PATHS)) {
    const r = await publish(env.t.baseUrl, seller, endpointInput(upstreamUrl, suffix, { mode, atomic_price: 10_000, sample_body: { q: 1 } }));
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
  await eventually('every endpoint active', async () => {
    const meta = (await (await fetch(`${env.t.baseUrl}/v1/_meta`)).json()) as { endpoints: { path: string }[] };
    return Object.keys(PATHS).every((p) => meta.endpoints.some((e) => e.path === `/v1/trust/${p}`));
  });
  // The test's own connections come from 127.0.0.1: to this instance, that is a trusted proxy.
  behindProxy = await startTestApp({ ...testConfig({ DATABASE_URL: env.db.url, TRUSTED_PROXIES: '127.0.0.0/8', SCHEDULER_TICK_MS: '0', PAYMENT_POLL_TIMEOUT_MS: '1500', PAYMENT_POLL_INTERVAL_MS: '200' }), chains: devnet.chains });
});
after(async () => {
  await behindProxy?.close();
  await env?.close();
  upstream?.closeAllConnections();
  await new Promise((r) => upstream?.close(r));
});

const post = (baseUrl: string, path: string, headers: Record<string, string> = {}) =>
  fetch(`${baseUrl}/v1/trust/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"q":1}' });

let buyer = 0;
/** A quote, then an EIP-3009 authorization for it (a fresh nonce each time). */
async function paid(baseUrl: string, path: string): Promise<Record<string, string>> {
  assert.equal((await post(baseUrl, path)).status, 402);
  const base = devnet.info.chains.base;
  const auth = await signEip3009Authorization({ chainId: base.chainId, usdc: base.usdc, privateKey: devnet.info.accounts[buyer++ % 3].evmPrivateKey, to: base.payTo, value: 10_000n });
  return { 'x-session-token': sessionToken('base', auth) };
}

/** The buyer sees the service's values only: its payment proof, its request id, no forged header. */
function assertServiceHeaders(res: Response, tx: string, what: string) {
  for (const h of ['x-paycall-tx', 'x-paycall-payer', 'ratelimit-remaining', 'x-ratelimit-limit']) assert.equal(res.headers.get(h), null, `${what}: ${h} from the upstream reached the buyer`);
  assert.notEqual(res.headers.get('x-service-tx'), '0xforged', `${what}: X-Service-Tx forged`);
  assert.equal(decodePaymentResponse(res.headers.get('x-payment-response')).transaction, tx, `${what}: X-PAYMENT-RESPONSE is the service's`);
  assert.notEqual(res.headers.get('payment-response'), 'forged', `${what}: PAYMENT-RESPONSE forged`);
  assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, `${what}: X-Request-Id is the service's`);
  assert.equal(res.headers.get('x-seller-header'), 'kept', `${what}: the seller's own headers pass`);
}

test('proxy mode: the upstream’s copies of the service’s headers reach the buyer neither live nor on the replay', async () => {
  const headers = await paid(env.t.baseUrl, 'forger');
  const live = await post(env.t.baseUrl, 'forger', headers);
  assert.equal(live.status, 200);
  assert.deepEqual(await live.json(), { path: 'forger' });
  const tx = decodePaymentResponse(live.headers.get('x-payment-response')).transaction as string;
  assert.match(tx, /^0x[0-9a-f]{64}$/);
  assertServiceHeaders(live, tx, 'live');
  assert.equal(live.headers.get('x-service-tx'), null, 'a 200 carries no X-Service-Tx of the service');
  assert.equal(live.headers.get('x-idempotent-replay'), null, 'a live answer is not a replay');

  const calls = received.filter((r) => r.path === 'forger').length;
  const replay = await post(env.t.baseUrl, 'forger', headers);
  assert.equal(replay.status, 200);
  assert.deepEqual(await replay.json(), { path: 'forger' });
  assert.equal(received.filter((r) => r.path === 'forger').length, calls, 'the stored answer, not a second upstream call');
  assertServiceHeaders(replay, tx, 'replay');
  assert.equal(replay.headers.get('x-service-tx'), null);
  assert.equal(replay.headers.get('x-idempotent-replay'), 'true');
});

test('paywall mode: the answer is passed back as it is, minus the service’s headers', async () => {
  const res = await post(env.t.baseUrl, 'forger-paywall', await paid(env.t.baseUrl, 'forger-paywall'));
  assert.equal(res.status, 200);
  const tx = decodePaymentResponse(res.headers.get('x-payment-response')).transaction as string;
  assertServiceHeaders(res, tx, 'paywall');
  assert.equal(res.headers.get('x-service-tx'), null);
  assert.equal(res.headers.get('x-idempotent-replay'), null);
});

test('proxy mode: an upstream that keeps failing is the spec’s 502 with the service’s X-Service-Tx, live and replayed', async () => {
  const headers = await paid(env.t.baseUrl, 'forger-down');
  const res = await post(env.t.baseUrl, 'forger-down', headers);
  const body = (await res.json()) as { error: string };
  assert.equal(res.status, 502);
  assert.equal(body.error, 'upstream_5xx');
  await assertMatchesContract('callSellerEndpoint', 502, body);
  const tx = decodePaymentResponse(res.headers.get('x-payment-response')).transaction as string;
  assert.equal(res.headers.get('x-service-tx'), tx);
  const again = await post(env.t.baseUrl, 'forger-down', headers);
  assert.equal(again.status, 502);
  assert.equal(again.headers.get('x-service-tx'), tx);
});

const SPOOFED = { 'x-forwarded-for': '1.2.3.4', forwarded: 'for=1.2.3.4', 'x-real-ip': '1.2.3.4' };

test('the upstream is told the socket address, not what the buyer wrote in X-Forwarded-For, Forwarded or X-Real-IP', async () => {
  const res = await post(env.t.baseUrl, 'whoami', { ...(await paid(env.t.baseUrl, 'whoami')), ...SPOOFED });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  const got = received.filter((r) => r.path === 'whoami').at(-1)!.headers;
  const host = new URL(env.t.baseUrl).host;
  assert.equal(got['x-forwarded-for'], '127.0.0.1');
  assert.equal(got.forwarded, `for=127.0.0.1;proto=http;host="${host}"`);
  assert.equal(got['x-real-ip'], undefined);
});

test('behind a TRUSTED_PROXIES peer the chain is kept and extended with that peer; X-Real-IP still dropped', async () => {
  const res = await post(behindProxy.baseUrl, 'whoami', { ...(await paid(behindProxy.baseUrl, 'whoami')), ...SPOOFED });
  assert.equal(res.status, 200, await res.clone().text());
  await res.arrayBuffer();
  const got = received.filter((r) => r.path === 'whoami').at(-1)!.headers;
  const host = new URL(behindProxy.baseUrl).host;
  assert.equal(got['x-forwarded-for'], '1.2.3.4, 127.0.0.1');
  assert.equal(got.forwarded, `for=1.2.3.4, for=127.0.0.1;proto=http;host="${host}"`);
  assert.equal(got['x-real-ip'], undefined);
});
