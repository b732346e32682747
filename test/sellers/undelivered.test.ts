/**
 * A seller earns only for calls its upstream served (issue 20, item 2), on the devnet with real
 * local upstreams and real payouts:
 *  - the attack: an upstream that answers health probes (no X-Paycall-* headers) with 200 and
 *    every paid call with 500 degrades and is suspended at the configured thresholds, counted on
 *    its paid calls alone (the probe successes in between erase nothing), and earns nothing;
 *  - a paywall 5xx passed back and a proxy 504 timeout are undelivered too; a receipt retried
 *    after a paywall 5xx and then served ends delivered (and delivered is final);
 *  - the buyer still gets the spec's 502/504 with X-Service-Tx, and is not refunded;
 *  - a seller whose upstream serves is paid exactly as before, and the daily settlement pays
 *    each seller the net of its served calls only (read back from the chain).
 * Thresholds are shrunk through configuration and the scheduler is driven pass by pass.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.ts';
import { decodePaymentResponse, sessionToken, xPayment } from '../helpers/paid.ts';
import { FAST_LIFECYCLE_ENV, call, endpointInput, eventually, evmSigner, publish, register, signedQuery, type TestSigner } from '../helpers/sellers.ts';
import { movableClock, settleUntil, usdcOn } from '../helpers/settlement.ts';
import { assertMatchesContract } from '../helpers/contract.ts';
import { evmTransferUsdc, signEip3009Authorization } from '../../devnet/buyer.ts';
import { net } from '../../src/payments/take-rate.ts';
import { markDelivery } from '../../src/settlement/payout-store.ts';
import { sqlOf } from '../../src/db/orm.ts';

const PRICE = 20_000n;
const ENV = {
  ...FAST_LIFECYCLE_ENV,
  UPSTREAM_TIMEOUT_MS: '500',
  UPSTREAM_RETRY_WINDOW_MS: '300',
  UPSTREAM_RETRY_BASE_MS: '50',
  PAYMENT_POLL_TIMEOUT_MS: '1500',
  PAYMENT_POLL_INTERVAL_MS: '200',
  PAYOUT_RETRY_BASE_MS: '200',
  PAYOUT_POLL_MS: '50',
};

let devnet: TestDevnet;
let db: TestDatabase;
let t: TestApp;
let sql: pg.Client;
let upstream: Server;
let upstreamUrl: string;
const clock = movableClock();
const paidHits = new Map<string, number>();
/** Paid calls to /down-then-up that fail before it serves. */
let paywallFailures = 0;

const liar = evmSigner();
const mixed = evmSigner();
const honest = evmSigner();

/** Probes (no X-Paycall-Tx) always get 200 JSON; paid calls get the path's behaviour. */
function upstreamHandler(req: IncomingMessage, res: ServerResponse) {
  req.resume();
  req.on('end', () => {
    const path = req.url!.replace(/^\//, '').split('?')[0];
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.headers['x-paycall-tx'] === undefined) return json(200, { probe: true });
    paidHits.set(path, (paidHits.get(path) ?? 0) + 1);
    if (path === 'liar') return json(500, { error: 'not today' });
    if (path === 'down-then-up') return paywallFailures-- > 0 ? json(503, { down: true }) : json(200, { up: true });
    if (path === 'slow') return void setTimeout(() => json(200, { late: true }), 1_500);
    json(200, { served: path });
  });
}

before(async () => {
  upstream = createServer(upstreamHandler);
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  devnet = await startTestDevnet();
  db = await createTestDatabase('sellers_undelivered');
  t = await startTestApp({ ...testConfig({ DATABASE_URL: db.url, ...ENV }), chains: devnet.chains }, undefined, { now: clock.now });
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  const shops: [TestSigner, string, [string, 'proxy' | 'paywall'][]][] = [
    [liar, 'liar-shop', [['liar', 'proxy']]],
    [mixed, 'mixed-shop', [['down-then-up', 'paywall'], ['slow', 'proxy']]],
    [honest, 'honest-shop', [['honest', 'proxy']]],
  ];
  for (const [signer, slug, endpoints] of shops) {
    assert.equal((await register(t.baseUrl, signer, slug)).status, 201);
    for (const [suffix, mode] of endpoints) {
      const r = await publish(t.baseUrl, signer, endpointInput(upstreamUrl, suffix, { mode, atomic_price: Number(PRICE) }));
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
  }
  await pass();
  const { rows } = await sql.query(`select count(*)::int as n from seller_endpoint where status = 'active'`);
  assert.equal(rows[0].n, 4, 'every endpoint active after its activation round');
});
after(async () => {
  await sql?.end();
  await t?.close();
  await db?.drop();
  await devnet?.stop();
  upstream?.closeAllConnections();
  await new Promise((r) => upstream?.close(r));
});

/** One scheduler pass (health probes are due 1 ms after the last one). */
const pass = async () => {
  await new Promise((r) => setTimeout(r, 5));
  await t.app.runScheduledJobs();
};
const post = (path: string, headers: Record<string, string> = {}) => fetch(`${t.baseUrl}/v1/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
const base = () => devnet.info.chains.base;
/** A quote, then an EIP-3009 authorization for it (the X-Session-Token rail). */
const authorize = async (path: string, buyer: number) => {
  assert.equal((await post(path)).status, 402);
  const auth = await signEip3009Authorization({ chainId: base().chainId, usdc: base().usdc, privateKey: devnet.info.accounts[buyer].evmPrivateKey, to: base().payTo, value: PRICE });
  return { 'x-session-token': sessionToken('base', auth) };
};
/** A quote, then a plain USDC transfer proved by its hash (the tx-hash rail). */
const transfer = async (path: string, buyer: number) => {
  assert.equal((await post(path)).status, 402);
  const tx = await evmTransferUsdc({ rpcUrl: base().rpcUrl, chainId: base().chainId, usdc: base().usdc, privateKey: devnet.info.accounts[buyer].evmPrivateKey, to: base().payTo, amount: PRICE });
  return { 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) };
};
const paidTx = (res: Response) => decodePaymentResponse(res.headers.get('x-payment-response')).transaction as string;
const ledger = async (tx: string) => (await sql.query(`select id, amount::text, net::text, fee::text, delivery, seller_id from payment where lower(tx) = lower($1)`, [tx])).rows;
const statusOf = async (suffix: string) => (await sql.query(`select status from seller_endpoint where path_suffix = $1`, [suffix])).rows[0].status as string;
const account = async (s: TestSigner) => call(t.baseUrl, 'getAccount', 'GET', `/v1/account?wallet=${encodeURIComponent(s.wallet)}&${await signedQuery(s, 'read_account')}`);
const stats = async (s: TestSigner) => call(t.baseUrl, 'getSellerStats', 'GET', `/v1/_seller/${s.wallet}/stats?${await signedQuery(s, 'stats')}`);
/** Live-call outcomes are recorded beside the answer: wait until the n-th is in. */
const callOutcomes = (suffix: string, n: number) =>
  eventually(`${n} call outcomes of ${suffix}`, async () => {
    const { rows } = await sql.query(`select count(*)::int as n from endpoint_observation o join seller_endpoint e on e.id = o.endpoint_id where e.path_suffix = $1 and o.source = 'call'`, [suffix]);
    return rows[0].n >= n;
  });

/** A failed proxied call as the spec has it: the status and code, X-Service-Tx naming the payment, and the ledger row kept. */
async function assertFailedCall(res: Response, status: number, code: string) {
  const body = (await res.json()) as { error: string };
  assert.equal(res.status, status, JSON.stringify(body));
  assert.equal(body.error, code);
  await assertMatchesContract('callSellerEndpoint', status, body);
  const tx = res.headers.get('x-service-tx');
  assert.match(tx ?? '', /^0x[0-9a-f]{64}$/);
  assert.equal(tx, paidTx(res), 'X-Service-Tx names the payment');
  return tx!;
}

test('the attack: probes answered, every paid call 500 -> degraded after 2 failed calls and suspended after 4, probe successes in between erase nothing; the seller earns nothing', async () => {
  const txs: string[] = [];
  for (let i = 1; i <= 4; i++) {
    const res = await post('liar-shop/liar', await authorize('liar-shop/liar', i % 5));
    txs.push(await assertFailedCall(res, 502, 'upstream_5xx'));
    await callOutcomes('liar', i);
    assert.equal(await statusOf('liar'), i < 2 ? 'active' : i < 4 ? 'degraded' : 'suspended', `after ${i} failed paid calls`);
    if (i === 2) {
      // Degraded but not suspended: the seller still sees its stats, the undelivered calls apart.
      const s = await stats(liar);
      assert.equal(s.status, 200, JSON.stringify(s.body));
      assert.deepEqual(
        [s.body.calls, s.body.paid_atomic, s.body.earned_atomic, s.body.fee_atomic, s.body.withdrawable_atomic, s.body.undelivered_calls, s.body.undelivered_atomic],
        [2, (2n * PRICE).toString(), '0', '0', '0', 2, (2n * PRICE).toString()],
      );
      const e = s.body.by_endpoint[0];
      assert.deepEqual([e.calls, e.earned_atomic, e.undelivered_calls, e.undelivered_atomic], [2, '0', 2, (2n * PRICE).toString()]);
      assert.deepEqual([e.last_24h.undelivered_calls, e.last_24h.undelivered_atomic, e.last_24h.earned_atomic], [2, (2n * PRICE).toString(), '0']);
    }
    if (i < 4) {
      // The upstream answers the health probe: it must not reset what the paid calls showed.
      const probes = await sql.query(`select count(*)::int as n from endpoint_observation o join seller_endpoint e on e.id = o.endpoint_id where e.path_suffix = 'liar' and o.source = 'health' and o.ok`);
      await pass();
      const after = await sql.query(`select count(*)::int as n from endpoint_observation o join seller_endpoint e on e.id = o.endpoint_id where e.path_suffix = 'liar' and o.source = 'health' and o.ok`);
      assert.equal(after.rows[0].n, probes.rows[0].n + 1, 'a successful health probe ran');
      assert.equal(await statusOf('liar'), i < 2 ? 'active' : 'degraded', `after the probe following call ${i}`);
    }
  }
  assert.ok((paidHits.get('liar') ?? 0) >= 4, 'every paid call reached the upstream (and was retried while the window lasted)');
  assert.equal((await sql.query(`select status from seller where slug = 'liar-shop'`)).rows[0].status, 'suspended');
  const refused = await post('liar-shop/liar');
  assert.equal(refused.status, 410, 'suspended: refused before any quote');

  for (const tx of txs) {
    const [row] = await ledger(tx);
    assert.equal(row.delivery, 'undelivered', 'paid (not refunded) but undelivered');
    assert.equal(row.amount, PRICE.toString());
  }
  const a = await account(liar);
  assert.equal(a.status, 200, JSON.stringify(a.body));
  assert.deepEqual([a.body.earned_atomic, a.body.withdrawable_atomic, a.body.settled_atomic], ['0', '0', '0']);
});

test('paywall: an upstream 5xx passed back is undelivered; the same receipt retried and served ends delivered, and stays so', async () => {
  paywallFailures = 1;
  const headers = await authorize('mixed-shop/down-then-up', 1);
  const first = await post('mixed-shop/down-then-up', headers);
  assert.equal(first.status, 503);
  assert.deepEqual(await first.json(), { down: true }, 'passed back as it is');
  const tx = paidTx(first);
  assert.equal((await ledger(tx))[0].delivery, 'undelivered');
  let s = await stats(mixed);
  assert.deepEqual([s.body.undelivered_calls, s.body.undelivered_atomic, s.body.earned_atomic, s.body.withdrawable_atomic], [1, PRICE.toString(), '0', '0']);
  assert.equal((await account(mixed)).body.earned_atomic, '0');

  const second = await post('mixed-shop/down-then-up', headers);
  assert.equal(second.status, 200);
  assert.deepEqual(await second.json(), { up: true });
  assert.equal(paidTx(second), tx, 'the same payment');
  const rows = await ledger(tx);
  assert.equal(rows.length, 1, 'one ledger row for the one payment');
  assert.equal(rows[0].delivery, 'delivered', 'served on the retry: the seller earns it');
  const earned = net(PRICE, 300).toString();
  s = await stats(mixed);
  assert.deepEqual([s.body.undelivered_calls, s.body.undelivered_atomic, s.body.earned_atomic, s.body.withdrawable_atomic], [0, '0', earned, earned]);
  assert.equal((await account(mixed)).body.withdrawable_atomic, earned);

  // An attempt of the same receipt that fails after one served (a lease taken over) cannot take it back.
  const [{ receipt_key: key }] = (await sql.query(`select receipt_key from consumed_receipt where payment_id = $1 and alias_of is null`, [rows[0].id])).rows;
  assert.equal(await markDelivery(sqlOf(t.app.orm), key, 'undelivered'), false);
  assert.equal((await ledger(tx))[0].delivery, 'delivered');
});

test('proxy: a 504 upstream_timeout is undelivered; the buyer gets the spec answer with X-Service-Tx', async () => {
  const res = await post('mixed-shop/slow', await authorize('mixed-shop/slow', 2));
  const tx = await assertFailedCall(res, 504, 'upstream_timeout');
  const [row] = await ledger(tx);
  assert.deepEqual([row.delivery, row.amount], ['undelivered', PRICE.toString()]);
  const s = await stats(mixed);
  assert.deepEqual([s.body.calls, s.body.undelivered_calls, s.body.undelivered_atomic, s.body.earned_atomic], [2, 1, PRICE.toString(), net(PRICE, 300).toString()]);
  const slow = s.body.by_endpoint.find((e: { path: string }) => e.path === '/v1/mixed-shop/slow');
  assert.deepEqual([slow.calls, slow.undelivered_calls, slow.undelivered_atomic, slow.earned_atomic], [1, 1, PRICE.toString(), '0']);
  assert.equal((await account(mixed)).body.withdrawable_atomic, net(PRICE, 300).toString(), 'the timed-out call adds nothing');
});

test('an upstream that serves: paid exactly as before (net at 4 %, delivered, earned and withdrawable), stays active', async () => {
  for (const buyer of [3, 4]) {
    const res = await post('honest-shop/honest', await transfer('honest-shop/honest', buyer));
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { served: 'honest' });
    const [row] = await ledger(paidTx(res));
    assert.deepEqual([row.amount, row.fee, row.net, row.delivery], [PRICE.toString(), '800', '19200', 'delivered']);
  }
  await callOutcomes('honest', 2);
  assert.equal(await statusOf('honest'), 'active');
  const s = await stats(honest);
  assert.deepEqual(
    [s.body.calls, s.body.paid_atomic, s.body.earned_atomic, s.body.fee_atomic, s.body.withdrawable_atomic, s.body.undelivered_calls, s.body.undelivered_atomic],
    [2, '40000', '38400', '1600', '38400', 0, '0'],
  );
  const a = await account(honest);
  assert.deepEqual([a.body.earned_atomic, a.body.withdrawable_atomic], ['38400', '38400']);
});

test('at midnight the settlement pays each seller the net of its served calls only: nothing for undelivered ones (read from the chain)', { timeout: 120_000 }, async () => {
  clock.toNextMidnight();
  await settleUntil(t.app, async () => (await sql.query(`select count(*)::int as n from payout where status <> 'sent'`)).rows[0].n === 0);
  const payouts = (await sql.query(`select s.slug, o.amount::text as amount, o.status from payout o join seller s on s.id = o.seller_id order by s.slug`)).rows;
  assert.deepEqual(payouts, [
    { slug: 'honest-shop', amount: '38400', status: 'sent' },
    { slug: 'mixed-shop', amount: net(PRICE, 300).toString(), status: 'sent' },
  ]);
  assert.equal(await usdcOn(devnet.chains, 'base', honest.wallet), 38_400n);
  assert.equal(await usdcOn(devnet.chains, 'base', mixed.wallet), net(PRICE, 300));
  assert.equal(await usdcOn(devnet.chains, 'base', liar.wallet), 0n, 'the attacker got nothing for its four failed calls');
  const claimed = await sql.query(`select count(*)::int as n from payout_item i join payment p on p.id = i.payment_id where p.delivery <> 'delivered'`);
  assert.equal(claimed.rows[0].n, 0, 'no undelivered row is ever claimed by a payout');
  const undelivered = await sql.query(`select count(*)::int as n from payment where delivery = 'undelivered' and payout_id is null`);
  assert.equal(undelivered.rows[0].n, 5, 'the four calls of the attack and the timed-out one: none settled');
  const a = await account(honest);
  assert.deepEqual([a.body.earned_atomic, a.body.settled_atomic, a.body.withdrawable_atomic], ['38400', '38400', '0']);
});
