/**
 * A crash between a paid seller call's run and its delivery mark, with real processes (the
 * service is src/main.ts in a child, SIGKILLed while the upstream holds the paid call), the
 * devnet chains and a real local upstream:
 *  - the killed call's ledger row stays 'pending': the seller is not credited for a call nobody
 *    saw answered (the old code credited every paid row at once);
 *  - after a restart the buyer retries with the same proof; a served retry ends 'delivered' and
 *    is credited once, a failed one ends 'undelivered' and adds nothing.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startServiceProcess } from '../helpers/app.ts';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.ts';
import { sessionToken } from '../helpers/paid.ts';
import { call, endpointInput, eventually, evmSigner, publish, register, signedQuery } from '../helpers/sellers.ts';
import { signEip3009Authorization } from '../../devnet/buyer.ts';
import { openDatabase } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/log.ts';
import { net } from '../../src/payments/take-rate.ts';

const PRICE = 20_000n;
const NET = net(PRICE, 400);

let devnet: TestDevnet;
let db: TestDatabase;
let sql: pg.Client;
let upstream: Server;
let upstreamUrl: string;
/** What the upstream does with a paid call: hold it (never answer), serve it, or fail it. */
let mode: 'hold' | 'serve' | 'fail' = 'hold';
let paidCalls = 0;
let heldCall: (() => void) | null = null;
const held: ServerResponse[] = [];
const seller = evmSigner();

function upstreamHandler(req: IncomingMessage, res: ServerResponse) {
  req.resume();
  req.on('end', () => {
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.headers['x-paycall-tx'] === undefined) return json(200, { probe: true });
    paidCalls++;
    if (mode === 'serve') return json(200, { served: true });
    if (mode === 'fail') return json(500, { failed: true });
    held.push(res);
    heldCall?.();
  });
}

before(async () => {
  upstream = createServer(upstreamHandler);
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  devnet = await startTestDevnet();
  db = await createTestDatabase('undelivered_crash');
  await (await openDatabase({ databaseUrl: db.url, pgliteDir: '', log: silentLogger })).close(true);
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
});
after(async () => {
  await sql?.end();
  await db?.drop();
  await devnet?.stop();
  upstream?.closeAllConnections();
  await new Promise((r) => upstream?.close(r));
});

const service = () =>
  startServiceProcess({
    DATABASE_URL: db.url,
    PAYCALL_PROFILE: 'devnet',
    PAYCALL_START_DEVNET: '0',
    PAYCALL_DATA_DIR: devnet.dataDir,
    LOG_LEVEL: 'info',
    RATE_LIMITS: 'off',
    SCHEDULER_TICK_MS: '50',
    UPSTREAM_RETRY_WINDOW_MS: '300',
    UPSTREAM_RETRY_BASE_MS: '50',
    PAYMENT_POLL_TIMEOUT_MS: '1500',
    PAYMENT_POLL_INTERVAL_MS: '200',
  });
const exited = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
const post = (url: string, headers: Record<string, string> = {}) => fetch(`${url}/v1/crash-shop/crashy`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
const rowOf = async (id: number) => (await sql.query(`select delivery from payment where id = $1`, [id])).rows[0].delivery as string;
const account = async (url: string) => {
  const r = await call(url, 'getAccount', 'GET', `/v1/account?wallet=${encodeURIComponent(seller.wallet)}&${await signedQuery(seller, 'read_account')}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return [r.body.earned_atomic, r.body.withdrawable_atomic];
};

/** Pays for a call and sends it; returns once the upstream holds it, with the proof and the ledger row. */
async function paidCallHeld(url: string, buyer: number) {
  assert.equal((await post(url)).status, 402);
  const base = devnet.info.chains.base;
  const auth = await signEip3009Authorization({ chainId: base.chainId, usdc: base.usdc, privateKey: devnet.info.accounts[buyer].evmPrivateKey, to: base.payTo, value: PRICE });
  const headers = { 'x-session-token': sessionToken('base', auth) };
  mode = 'hold';
  const arrived = new Promise<void>((r) => (heldCall = r));
  const answer = post(url, headers).then(
    (r) => r.status,
    () => 'no answer' as const,
  );
  await arrived;
  const [{ id }] = (await sql.query(`select id::int from payment where seller_id is not null order by id desc limit 1`)).rows;
  return { headers, answer, paymentId: id as number };
}

/** Simulates the lease of the killed run running out (it would after the lease time). */
const leaseRunsOut = (paymentId: number) => sql.query(`update consumed_receipt set lease_until = now() where payment_id = $1`, [paymentId]);

test('SIGKILL while the upstream holds a paid call: not credited; the retry after a restart decides (served: credited once, failed: undelivered)', { timeout: 240_000 }, async () => {
  let svc = await service();
  try {
    assert.equal((await register(svc.url, seller, 'crash-shop')).status, 201);
    assert.equal((await publish(svc.url, seller, endpointInput(upstreamUrl, 'crashy', { atomic_price: Number(PRICE) }))).status, 201);
    await eventually('the endpoint is active', async () => (await sql.query(`select status from seller_endpoint where path_suffix = 'crashy'`)).rows[0].status === 'active');

    // 1. The process dies while the upstream holds the call: no outcome, no mark.
    const first = await paidCallHeld(svc.url, 0);
    svc.child.kill('SIGKILL');
    await exited(svc.child);
    assert.equal(await first.answer, 'no answer', 'the buyer got nothing');
    assert.equal(await rowOf(first.paymentId), 'pending');

    svc = await service();
    assert.deepEqual(await account(svc.url), ['0', '0'], 'a call whose outcome is unknown is not credited');
    const stats = await call(svc.url, 'getSellerStats', 'GET', `/v1/_seller/${seller.wallet}/stats?${await signedQuery(seller, 'stats')}`);
    assert.deepEqual([stats.body.calls, stats.body.earned_atomic, stats.body.undelivered_calls], [1, '0', 0]);

    // 2. The buyer retries with the same proof once the dead run's lease is over: served, credited once.
    mode = 'serve';
    await leaseRunsOut(first.paymentId);
    const retried = await post(svc.url, first.headers);
    assert.equal(retried.status, 200);
    assert.deepEqual(await retried.json(), { served: true });
    assert.equal(await rowOf(first.paymentId), 'delivered');
    assert.deepEqual(await account(svc.url), [NET.toString(), NET.toString()]);

    // 3. Again, and this time the upstream fails the retry: undelivered, nothing added.
    const second = await paidCallHeld(svc.url, 1);
    svc.child.kill('SIGKILL');
    await exited(svc.child);
    assert.equal(await second.answer, 'no answer');
    assert.equal(await rowOf(second.paymentId), 'pending');
    svc = await service();
    assert.deepEqual(await account(svc.url), [NET.toString(), NET.toString()], 'the unknown outcome adds nothing');
    mode = 'fail';
    await leaseRunsOut(second.paymentId);
    const failed = await post(svc.url, second.headers);
    assert.equal(failed.status, 502);
    assert.equal(((await failed.json()) as { error: string }).error, 'upstream_5xx');
    assert.ok(failed.headers.get('x-service-tx'));
    assert.equal(await rowOf(second.paymentId), 'undelivered');
    assert.deepEqual(await account(svc.url), [NET.toString(), NET.toString()]);
    assert.ok(paidCalls >= 4, 'both held calls and both retries reached the upstream');
  } finally {
    for (const r of held) r.destroy();
    svc.child.kill('SIGKILL');
    await exited(svc.child);
  }
});
