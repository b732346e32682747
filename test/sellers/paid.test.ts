/**
 * Paid calls to seller endpoints, end to end on the devnet with a real local upstream: the
 * quote before anything, payment on EVM and Solana rails, proxy and paywall forwarding, the
 * signed X-Paycall-* headers verified with an independent RFC 9421 library, no buyer
 * credential reaching the upstream, replays that do not call the upstream again, 502/504 with
 * X-Service-Tx, a 51 MB body refused before the upstream sees it, a 20 MB answer streamed, and
 * take-rate arithmetic in the ledger.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { httpbis, createVerifier } from 'http-message-signatures';
import type { TestDevnet } from '../helpers/devnet.ts';
import { decodePaymentResponse, sessionToken, startPaidTestEnv, xPayment, type PaidTestEnv } from '../helpers/paid.ts';
import { endpointInput, eventually, evmSigner, listEndpoints, publish, register } from '../helpers/sellers.ts';
import { createPaycallClient } from '../../sdk/paycall-client.ts';
import { walletActions } from '../../sdk/wallet-actions.ts';
import { newKey } from '../helpers/keys.ts';
import { assertMatchesContract } from '../helpers/contract.ts';
import { signEip3009Authorization, solanaPartiallySignedTransfer } from '../../devnet/buyer.ts';
import { net } from '../../src/payments/take-rate.ts';

let env: PaidTestEnv;
let devnet: TestDevnet;
let t: PaidTestEnv['t'];
let sql: pg.Client;
let upstream: Server;
let upstreamUrl: string;
const received: { url: string; headers: IncomingMessage['headers']; body: Buffer }[] = [];
const hits = (path: string) => received.filter((r) => r.url === `/${path}`).length;
let flakyFailures = 0;
const seller = evmSigner();
/** A live `pay` key the buyer sends beside its payment: it must not reach the upstream either. */
let buyerKey: string;

/** Probes (no X-Paycall-Tx) always get 200 JSON; paid calls get the path's behaviour. */
function upstreamHandler(req: IncomingMessage, res: import('node:http').ServerResponse) {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const paid = req.headers['x-paycall-tx'] !== undefined;
    const path = req.url!.replace(/^\//, '').split('?')[0];
    if (paid) received.push({ url: `/${path}`, headers: req.headers, body: Buffer.concat(chunks) });
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    if (!paid) return json(200, { probe: true });
    if (path === 'flaky' && flakyFailures-- > 0) return json(503, { busy: true });
    if (path === 'down' || path === 'down-paywall') return json(503, { down: true });
    if (path === 'slow') return void setTimeout(() => json(200, { late: true }), 1_500);
    if (path === 'drip') {
      // Half now, half later: a buyer can drop the connection in between.
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('a'.repeat(100_000));
      return void setTimeout(() => res.end('b'.repeat(100_000)), 400);
    }
    if (path === 'big') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const mb = Buffer.alloc(1024 * 1024, 1);
      let sent = 0;
      const more = () => {
        while (sent < 20) {
          sent++;
          if (!res.write(mb)) return void res.once('drain', more);
        }
        res.end();
      };
      return more();
    }
    json(200, { echo: Buffer.concat(chunks).toString(), path }, { 'set-cookie': 'upstream=session', 'x-seller-header': 'kept' });
  });
}

const PATHS = { echo: 'proxy', 'echo-paywall': 'paywall', flaky: 'proxy', down: 'proxy', 'down-paywall': 'paywall', slow: 'proxy', big: 'proxy', 'price-one': 'paywall', 'price-33': 'proxy', limit: 'proxy', drip: 'proxy' } as const;
const PRICES: Record<string, number> = { 'price-one': 1, 'price-33': 33 };

before(async () => {
  upstream = createServer(upstreamHandler);
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  env = await startPaidTestEnv('sellerpaid', { TOOL_WORKERS: '1', UPSTREAM_TIMEOUT_MS: '500', UPSTREAM_RETRY_WINDOW_MS: '2000', UPSTREAM_RETRY_BASE_MS: '50', PROXY_MAX_STORED_BYTES: String(1024 * 1024) });
  ({ devnet, t, sql } = env);
  assert.equal((await register(t.baseUrl, seller, 'acme')).status, 201);
  buyerKey = (await newKey(t.baseUrl, evmSigner(), ['pay'])).key;
  for (const [suffix, mode] of Object.entries(PATHS)) {
    const r = await publish(t.baseUrl, seller, endpointInput(upstreamUrl, suffix, { mode, atomic_price: PRICES[suffix] ?? 20_000, sample_body: { q: 'sample' } }));
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
  await eventually('every endpoint active', async () => {
    const meta = (await (await fetch(`${t.baseUrl}/v1/_meta`)).json()) as { endpoints: { path: string }[] };
    return Object.keys(PATHS).every((p) => meta.endpoints.some((e) => e.path === `/v1/acme/${p}`));
  });
});
after(async () => {
  await env?.close();
  upstream?.closeAllConnections();
  await new Promise((r) => upstream?.close(r));
});

const post = (path: string, body: string | Uint8Array, headers: Record<string, string> = {}) =>
  fetch(`${t.baseUrl}/v1/acme/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
const base = () => devnet.info.chains.base;
const authorize = async (path: string, body: string, value: bigint, buyer = 0) => {
  const q = await post(path, body);
  assert.equal(q.status, 402);
  const auth = await signEip3009Authorization({ chainId: base().chainId, usdc: base().usdc, privateKey: devnet.info.accounts[buyer].evmPrivateKey, to: base().payTo, value });
  return { 'x-session-token': sessionToken('base', auth), authorization: `Bearer ${buyerKey}`, cookie: 'buyer=secret' };
};
const ledger = async (tx: string) => (await sql.query('select * from payment where lower(tx) = lower($1)', [tx])).rows;

test('an unpaid call answers the quote of the endpoint (price, description, bazaar) before anything else', async () => {
  const res = await post('echo', '{}');
  const body = (await res.json()) as any;
  assert.equal(res.status, 402);
  await assertMatchesContract('callSellerEndpoint', 402, body);
  assert.equal(body.accepts.length, 6);
  for (const a of body.accepts) {
    assert.equal(a.maxAmountRequired, '20000');
    assert.equal(a.description, 'Test endpoint echo');
    assert.equal(a.resource, `${t.baseUrl}/v1/acme/echo`);
  }
  assert.deepEqual(body.accepts[0].extra, { perPagePrice: 20000, estimatedPages: 1, totalEstimate: 20000, name: 'USD Coin', version: '2' });
  const v2 = JSON.parse(Buffer.from(res.headers.get('payment-required')!, 'base64').toString());
  assert.deepEqual(v2.extensions.bazaar.info.input.body, { q: 'sample' });
  assert.equal(hits('echo'), 0, 'the upstream is not called for a quote');
});

test('proxy mode: paid, forwarded with who paid (signed, verifiable), no buyer credential, replayed without a second upstream call', async () => {
  const body = '{"q":"lisbon"}';
  const headers = await authorize('echo', body, 20_000n);
  const res = await post('echo', body, headers);
  const answer = (await res.json()) as any;
  assert.equal(res.status, 200, JSON.stringify(answer));
  assert.equal(answer.echo, body);
  assert.equal(res.headers.get('set-cookie'), null, 'upstream cookies are not passed back');
  assert.equal(res.headers.get('x-seller-header'), 'kept');
  const paid = decodePaymentResponse(res.headers.get('x-payment-response'));
  const got = received.filter((r) => r.url === '/echo').at(-1)!;
  for (const h of ['x-session-token', 'x-payment', 'authorization', 'cookie']) assert.equal(got.headers[h], undefined, `${h} must not reach the upstream`);
  assert.equal(got.headers['x-paycall-tx'], paid.transaction);
  assert.equal(got.headers['x-paycall-network'], 'base');
  assert.equal(got.headers['idempotency-key'], `"${paid.transaction}"`);
  assert.equal(String(got.headers['x-paycall-payer']).toLowerCase(), paid.payer.toLowerCase());
  const meta = (await (await fetch(`${t.baseUrl}/v1/_meta`)).json()) as any;
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: meta.forward_signing.public_key }, format: 'jwk' });
  const verified = await httpbis.verifyMessage(
    { keyLookup: async () => ({ id: meta.forward_signing.keyid, algs: ['ed25519'], verify: createVerifier(key, 'ed25519') }), requiredFields: ['@method', '@target-uri', 'content-digest', 'x-paycall-payer', 'x-paycall-tx', 'x-paycall-network', 'idempotency-key'] },
    { method: 'POST', url: `${upstreamUrl}/echo`, headers: got.headers as Record<string, string> },
  );
  assert.equal(verified, true, 'the seller can verify the call with an RFC 9421 library');

  const [row] = await ledger(paid.transaction);
  assert.deepEqual([row.amount, row.take_bps, row.fee, row.net], ['20000', 400, '800', '19200']);
  assert.ok(row.seller_id && row.endpoint_id);

  const calls = hits('echo');
  const replay = await post('echo', body, headers);
  assert.equal(replay.status, 200);
  assert.equal(replay.headers.get('x-idempotent-replay'), 'true');
  assert.deepEqual(await replay.json(), answer);
  assert.equal(hits('echo'), calls, 'a replay does not call the upstream');
});

test('paywall mode on Solana: one forward, 3 % take; a 5xx of the upstream is passed back as it is', async () => {
  const sol = devnet.info.chains.solana;
  const pay = async (path: string) => {
    await post(path, '{}');
    const transaction = await solanaPartiallySignedTransfer({ rpcUrl: sol.rpcUrl, mint: sol.usdcMint, secretKey: devnet.info.accounts[1].solanaSecretKey, toOwner: sol.payTo, amount: 20_000n, feePayer: sol.feePayer });
    return post(path, '{}', { 'x-payment': xPayment('solana', 'exact', { transaction }) });
  };
  const ok = await pay('echo-paywall');
  assert.equal(ok.status, 200);
  const [row] = await ledger(decodePaymentResponse(ok.headers.get('x-payment-response')).transaction);
  assert.deepEqual([row.take_bps, row.fee, row.net], [300, '600', '19400']);
  const before = hits('down-paywall');
  const down = await pay('down-paywall');
  assert.equal(down.status, 503);
  assert.deepEqual(await down.json(), { down: true });
  assert.equal(hits('down-paywall') - before, 1, 'paywall does not retry');
});

test('proxy mode: a 5xx that recovers is retried; one that does not is 502, a slow upstream 504, both with X-Service-Tx', async () => {
  flakyFailures = 2;
  const flaky = await post('flaky', '{}', await authorize('flaky', '{}', 20_000n, 1));
  assert.equal(flaky.status, 200);
  assert.equal(hits('flaky'), 3);

  const downHeaders = await authorize('down', '{}', 20_000n, 2);
  const down = await post('down', '{}', downHeaders);
  const downBody = (await down.json()) as any;
  assert.equal(down.status, 502);
  assert.equal(downBody.error, 'upstream_5xx');
  await assertMatchesContract('callSellerEndpoint', 502, downBody);
  const tx = down.headers.get('x-service-tx');
  assert.match(tx!, /^0x[0-9a-f]{64}$/);
  assert.equal((await ledger(tx!)).length, 1, 'paid: not refunded');
  const downHits = hits('down');
  const again = await post('down', '{}', downHeaders);
  assert.equal(again.status, 502);
  assert.equal(hits('down'), downHits, 'the final failure is replayed, not retried upstream');

  const slow = await post('slow', '{}', await authorize('slow', '{}', 20_000n, 3));
  const slowBody = (await slow.json()) as any;
  assert.equal(slow.status, 504);
  assert.equal(slowBody.error, 'upstream_timeout');
  assert.ok(slow.headers.get('x-service-tx'));
});

test('a 51 MB body is refused with 413 before the upstream sees it', async () => {
  const big = new Uint8Array(51 * 1024 * 1024);
  const res = await post('limit', big).catch((e: Error) => e);
  if (res instanceof Response) {
    assert.equal(res.status, 413);
    assert.equal(((await res.json()) as any).error, 'body_too_large');
  }
  assert.equal(hits('limit'), 0);
});

test('a 20 MB answer streams through; a retry of it is 409, the upstream called once', async () => {
  const headers = await authorize('big', '{}', 20_000n, 4);
  const res = await post('big', '{}', headers);
  assert.equal(res.status, 200);
  let total = 0;
  for await (const chunk of res.body!) total += (chunk as Uint8Array).length;
  assert.equal(total, 20 * 1024 * 1024);
  await eventually('the answer is final', async () => (await sql.query(`select 1 from consumed_receipt where state = 'done' and response_status = 409`)).rows.length > 0);
  const retry = await post('big', '{}', headers);
  assert.equal(retry.status, 409);
  assert.equal(hits('big'), 1);
});

test('a buyer who drops the connection midway gets the whole answer on a retry with the same proof; the upstream is called once', async () => {
  const headers = await authorize('drip', '{}', 20_000n, 1);
  const first = await post('drip', '{}', headers).then((r) => r, (e: unknown) => e);
  if (first instanceof Response) {
    const reader = first.body!.getReader();
    await reader.read();
    await reader.cancel();
  }
  await eventually('the answer is stored', async () => (await sql.query(`select 1 from consumed_receipt where state = 'done' and length(response_body) = 200000`)).rows.length > 0);
  const retry = await post('drip', '{}', headers);
  assert.equal(retry.status, 200);
  assert.equal(retry.headers.get('x-idempotent-replay'), 'true');
  assert.equal((await retry.text()).length, 200_000);
  assert.equal(hits('drip'), 1);
  const metrics = await (await fetch(`${t.metricsUrl}/metrics`)).text();
  assert.match(metrics, /paycall_upstream_requests_total\{endpoint="acme\/drip",outcome="ok"\} 1/);
  assert.match(metrics, /paycall_upstream_requests_total\{endpoint="acme\/down",outcome="http_5xx"\} 1/);
});

test('take rates on awkward amounts: fee + net = amount, net = floor(amount x (10000 - bps) / 10000)', async () => {
  for (const [suffix, value, bps] of [['price-one', 1n, 300], ['price-33', 33n, 400]] as const) {
    const res = await post(suffix, '{}', await authorize(suffix, '{}', value, 0));
    assert.equal(res.status, 200);
    const [row] = await ledger(decodePaymentResponse(res.headers.get('x-payment-response')).transaction);
    const expectedNet = (value * BigInt(10_000 - bps)) / 10_000n;
    assert.deepEqual([row.take_bps, row.net, row.fee], [bps, expectedNet.toString(), (value - expectedNet).toString()]);
  }
  const huge = 10n ** 18n + 7n;
  assert.equal(net(huge, 400), 960_000_000_000_000_006n);
  assert.equal(huge - net(huge, 400) + net(huge, 400), huge);
  assert.equal(net(1n, 300), 0n);
  assert.equal(net(33n, 400), 31n);
});

test('a price or description change is quoted at once (serialized quotes are reused only while what they price is unchanged)', async () => {
  const first = (await (await post('limit', '{}')).json()) as any;
  assert.equal(first.accepts[0].maxAmountRequired, '20000');
  const { api } = createPaycallClient({ baseUrl: t.baseUrl });
  const id = Number((await listEndpoints(t.baseUrl, seller)).body.endpoints.find((e: any) => e.path_suffix === 'limit').id);
  const updated = await walletActions(api, seller).update(id, { atomic_price: 25_000, desc: 'Dearer now' });
  assert.equal(updated.response.status, 200, JSON.stringify(updated.error));
  const res = await post('limit', '{}');
  const body = (await res.json()) as any;
  assert.deepEqual([body.accepts[0].maxAmountRequired, body.accepts[0].description], ['25000', 'Dearer now']);
  const v2 = JSON.parse(Buffer.from(res.headers.get('payment-required')!, 'base64').toString());
  assert.equal(v2.accepts[0].amount, '25000');
});
