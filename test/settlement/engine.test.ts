/**
 * The settlement engine on real PostgreSQL with in-memory payout senders (the PayoutSender
 * contract, no chain): one payout per seller per day, carry-over, the money identities at every
 * step (a payout in flight included), each recovery branch (pending, not found, expired, failed
 * on chain, sender errors) with back-off, two instances at midnight, a requested payout racing
 * the daily run, every error of POST /v1/_seller/{wallet}/payouts, and the same on PGlite.
 * Real chains: test/settlement/chains.test.ts and test/settlement/crash.test.ts.
 */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { call, evmSigner, nowS, register, signedQuery, solanaSigner } from '../helpers/sellers.ts';
import { assertIdentities, balances, fakeSender, insertEarnings, insertSeller, movableClock, requestPayoutBody, settleUntil, type FakeSender } from '../helpers/settlement.ts';
import type { PayoutChain } from '../../src/chains/payout-sender.ts';
import { workPayout, type HookPoint } from '../../src/settlement/payout-worker.ts';
import { findPayout } from '../../src/settlement/payout-store.ts';
import { sqlOf } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/log.ts';

const ENV = { SCHEDULER_TICK_MS: '0', PAYOUT_RETRY_BASE_MS: '40', PAYOUT_POLL_MS: '1', PAYOUT_REQUEST_INTERVAL_SECONDS: '3600' };

interface Harness {
  db: TestDatabase;
  c: pg.Client;
  clock: ReturnType<typeof movableClock>;
  senders: Record<'base' | 'polygon' | 'solana', FakeSender>;
  hooks: ((point: HookPoint, p: { id: number; chain: string }) => Promise<void>)[];
  start(): Promise<TestApp>;
  apps: TestApp[];
}

async function harness(name: string): Promise<Harness> {
  const db = await createTestDatabase(name);
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  const h: Harness = {
    db,
    c,
    clock: movableClock(),
    senders: { base: fakeSender('base'), polygon: fakeSender('polygon'), solana: fakeSender('solana') },
    hooks: [],
    apps: [],
    async start() {
      const app = await startTestApp(testConfig({ DATABASE_URL: db.url, ...ENV }), undefined, {
        payoutSenders: h.senders,
        now: h.clock.now,
        settlementHooks: { at: async (point, p) => { for (const hk of h.hooks) await hk(point, p); } },
      });
      h.apps.push(app);
      return app;
    },
  };
  return h;
}

const stop = async (h: Harness | undefined) => {
  if (!h) return;
  for (const a of h.apps) await a.close();
  await h.c.end();
  await h.db.drop();
};

const evmWallet = () => evmSigner().wallet;
const payoutsOf = async (c: pg.Client, sellerId: number) =>
  (await c.query(`select id::int, status, amount::text, tx, error, attempts, settlement_day from payout where seller_id = $1 order by id`, [sellerId])).rows;
const allFinal = (c: pg.Client) => async () => (await c.query(`select count(*)::int as n from payout where status <> 'sent'`)).rows[0].n === 0;

describe('daily settlement', () => {
  let h: Harness;
  let t: TestApp;
  before(async () => {
    h = await harness('settle_daily');
    t = await h.start();
  });
  after(() => stop(h));

  test('at midnight: one payout per seller on its chain, the small one carried over, identities hold at each step', async () => {
    const sellers: { id: number; wallet: string; chain: PayoutChain }[] = [];
    for (const chain of ['base', 'polygon', 'solana'] as const) {
      const wallet = chain === 'solana' ? solanaSigner().wallet : evmWallet();
      sellers.push({ id: await insertSeller(h.c, { wallet, chain }), wallet, chain });
    }
    const small = { id: await insertSeller(h.c, { wallet: evmWallet(), chain: 'base' }) };
    for (const [i, s] of sellers.entries()) await insertEarnings(h.c, s.id, [1_000_000n * BigInt(i + 1), 250_000n, 3n], { takeBps: i === 1 ? 400 : 300 });
    await insertEarnings(h.c, small.id, [5_000n]);

    // Before midnight: today's run covers rows before today's 00:00, i.e. none of these.
    await t.app.runScheduledJobs();
    assert.equal((await h.c.query('select count(*)::int as n from payout')).rows[0].n, 0);

    // In flight: the payout is written and sent, rows claimed, payout_id still null.
    const seen: string[] = [];
    h.hooks.push(async (point, p) => {
      const s = sellers.find((x) => x.chain === p.chain)!;
      const b = await balances(h.c, s.id);
      assertIdentities(b, assert, `${point} ${p.chain}`);
      if (point !== 'after-confirm') assert.equal(b.settled, 0n);
      assert.equal(b.inFlight, b.earned, `all rows claimed while in flight (${point})`);
      seen.push(`${p.chain}:${point}`);
    });
    h.clock.toNextMidnight();
    await settleUntil(t.app, allFinal(h.c));
    h.hooks.length = 0;
    for (const chain of ['base', 'polygon', 'solana']) for (const point of ['claimed', 'before-send', 'after-send', 'after-confirm']) assert.ok(seen.includes(`${chain}:${point}`), `${chain}:${point}`);

    for (const s of sellers) {
      const b = await balances(h.c, s.id);
      assertIdentities(b, assert, s.chain);
      assert.equal(b.withdrawable, 0n);
      assert.equal(h.senders[s.chain as 'base'].received.get(s.wallet), b.earned, `${s.chain} wallet received the net earnings`);
      const [p] = await payoutsOf(h.c, s.id);
      assert.equal(p.status, 'sent');
      assert.equal(p.settlement_day, h.clock.now().toISOString().slice(0, 10));
    }
    const b = await balances(h.c, small.id);
    assert.equal(b.withdrawable, 4_850n, 'below the minimum: carried over');
    assert.equal((await payoutsOf(h.c, small.id)).length, 0);

    // A second pass the same day settles nothing again; new earnings wait for the next day.
    await insertEarnings(h.c, small.id, [100_000n]);
    await t.app.runScheduledJobs();
    assert.equal((await payoutsOf(h.c, small.id)).length, 0);
    const run = (await h.c.query(`select sellers, total_atomic::text, carried_over, finished_at is not null as done from settlement_run order by day desc limit 1`)).rows[0];
    let total = 0n;
    for (const s of sellers) total += (await balances(h.c, s.id)).earned;
    assert.deepEqual(run, { sellers: 3, total_atomic: total.toString(), carried_over: 1, done: true });
    h.clock.toNextMidnight();
    await settleUntil(t.app, allFinal(h.c));
    const next = await balances(h.c, small.id);
    assert.equal(next.withdrawable, 0n, 'carried-over earnings paid once the sum reaches the minimum');
    assert.equal(h.senders.base.received.get((await h.c.query('select wallet from seller where id = $1', [small.id])).rows[0].wallet), 4_850n + 97_000n);

    const metrics = await (await fetch(`${t.metricsUrl}/metrics`)).text();
    assert.match(metrics, /paycall_payouts_total\{chain="base",outcome="carried_over"\} 1/);
    assert.match(metrics, /paycall_settlement_last_run_sellers 1/);
  });
});

describe('undelivered calls', () => {
  let h: Harness;
  let t: TestApp;
  before(async () => {
    h = await harness('settle_undelivered');
    t = await h.start();
  });
  after(() => stop(h));

  test('only served calls are paid: undelivered rows never, pending ones once their receipt shows the outcome', async () => {
    const wallet = evmWallet();
    const id = await insertSeller(h.c, { wallet, chain: 'base' });
    await insertEarnings(h.c, id, [1_000_000n]);
    await insertEarnings(h.c, id, [2_000_000n], { delivery: 'undelivered' });
    // Pending rows: the mark was lost, or an instance of the older code wrote them (rolling deploy).
    // Their receipts' final answers tell: 200 was served, 502 was not; a run that crashed has none.
    await insertEarnings(h.c, id, [300_000n, 400_000n, 500_000n], { delivery: 'pending' });
    const idOf = async (amount: bigint) => (await h.c.query(`select id from payment where seller_id = $1 and amount = $2`, [id, amount.toString()])).rows[0].id;
    for (const [amount, state, status] of [[300_000n, 'done', 200], [400_000n, 'done', 502], [500_000n, 'running', null]] as const) {
      await h.c.query(`insert into consumed_receipt (receipt_key, network, fingerprint, payment_id, state, lease_until, response_status) values ($1, 'base', 'f', $2, $3, now() + interval '1 hour', $4)`, [`k-${amount}`, await idOf(amount), state, status]);
    }
    h.clock.toNextMidnight();
    await settleUntil(t.app, allFinal(h.c));
    const net = (a: bigint) => (a * 9_700n) / 10_000n;
    const [p] = await payoutsOf(h.c, id);
    assert.deepEqual([p.status, p.amount], ['sent', (net(1_000_000n) + net(300_000n)).toString()]);
    assert.equal(h.senders.base.received.get(wallet), net(1_000_000n) + net(300_000n));
    const rows = (await h.c.query(`select amount::text, delivery, payout_id is not null as paid from payment where seller_id = $1 order by id`, [id])).rows;
    assert.deepEqual(rows, [
      { amount: '1000000', delivery: 'delivered', paid: true },
      { amount: '2000000', delivery: 'undelivered', paid: false },
      { amount: '300000', delivery: 'delivered', paid: true },
      { amount: '400000', delivery: 'undelivered', paid: false },
      { amount: '500000', delivery: 'pending', paid: false },
    ]);
    const b = await balances(h.c, id);
    assertIdentities(b, assert);
    assert.equal(b.withdrawable, 0n, 'nothing served is left unpaid');
    assert.equal(b.notServed, 2_000_000n + 400_000n + 500_000n);

    // A requested payout claims the same way: an undelivered row alone is nothing to pay.
    const s2 = evmSigner();
    assert.equal((await register(t.baseUrl, s2, 'undelivered-only')).status, 201);
    const id2 = (await h.c.query('select id from seller where wallet = $1', [s2.wallet])).rows[0].id;
    await insertEarnings(h.c, id2, [5_000_000n], { delivery: 'undelivered' });
    const r = await call(t.baseUrl, 'requestPayout', 'POST', `/v1/_seller/${s2.wallet}/payouts`, { body: await requestPayoutBody(s2) });
    assert.equal(r.status, 409, JSON.stringify(r.body));
    assert.equal(r.body.error, 'nothing_to_pay');
    assert.equal((await payoutsOf(h.c, id2)).length, 0);
  });
});

describe('recovery and failures', () => {
  let h: Harness;
  let t: TestApp;
  before(async () => {
    h = await harness('settle_recovery');
    t = await h.start();
  });
  after(() => stop(h));

  test('a failing payout is retried with back-off, its error visible, and does not hold the others', async () => {
    const badSigner = evmSigner();
    const bad = await insertSeller(h.c, { wallet: badSigner.wallet, chain: 'base' });
    const good = await insertSeller(h.c, { wallet: evmWallet(), chain: 'polygon' });
    const goodBase = await insertSeller(h.c, { wallet: evmWallet(), chain: 'base' });
    const refused = (await h.c.query('select wallet from seller where id = $1', [goodBase])).rows[0].wallet;
    for (const id of [bad, good, goodBase]) await insertEarnings(h.c, id, [1_000_000n]);
    // The first base payout throws in prepare (treasury empty); a destination the token refuses fails on chain.
    h.senders.base.mode = 'throw-prepare';
    h.clock.toNextMidnight();
    await t.app.runScheduledJobs();
    assert.equal((await payoutsOf(h.c, good))[0].status, 'sent', 'the polygon seller is paid meanwhile');
    for (const id of [bad, goodBase]) {
      const [p] = await payoutsOf(h.c, id);
      assert.equal(p.status, 'failed');
      assert.match(p.error, /insufficient funds/);
      assert.equal(p.attempts, 1);
      assert.equal(p.tx, null);
    }
    const m = await (await fetch(`${t.metricsUrl}/metrics`)).text();
    assert.match(m, /paycall_payouts_total\{chain="base",outcome="failed"\} 2/);
    assert.match(m, /paycall_payouts_retrying\{chain="base"\} 2/);
    // The seller sees it in its account: the payout, its attempts and the reason.
    const account = await call(t.baseUrl, 'getAccount', 'GET', `/v1/account?wallet=${badSigner.wallet}&${await signedQuery(badSigner, 'read_account')}`);
    assert.equal(account.status, 200, JSON.stringify(account.body));
    assert.deepEqual(
      account.body.payouts.map((p: any) => ({ status: p.status, attempts: p.attempts, amount: p.amount_atomic, chain: p.chain })), // eslint-disable-line @typescript-eslint/no-explicit-any
      [{ status: 'failed', attempts: 1, amount: '970000', chain: 'base' }],
    );
    assert.match(account.body.payouts[0].error, /insufficient funds/);
    assert.equal(account.body.withdrawable_atomic, '970000', 'not settled while it fails');

    h.senders.base.mode = 'ok';
    h.senders.base.refuse.add(refused);
    await new Promise((r) => setTimeout(r, 60));
    await t.app.runScheduledJobs();
    const [p1] = await payoutsOf(h.c, bad);
    assert.equal(p1.status, 'sent');
    const [p2] = await payoutsOf(h.c, goodBase);
    assert.equal(p2.status, 'failed');
    assert.match(p2.error, /failed on chain/);
    assert.equal(p2.attempts, 2, 'the back-off grows with each attempt');
    assert.equal(p2.tx, null, 'a failed transaction is dropped: the next attempt signs a new one');
    h.senders.base.refuse.clear();
    await settleUntil(t.app, allFinal(h.c));
    for (const id of [bad, good, goodBase]) assertIdentities(await balances(h.c, id), assert);
    assert.equal(h.senders.base.received.get(refused), 970_000n, 'paid once, after the failures');
  });

  test('pending waits, not_found broadcasts the same transaction again, expired signs anew: paid once', async () => {
    const id = await insertSeller(h.c, { wallet: evmWallet(), chain: 'base' });
    const wallet = (await h.c.query('select wallet from seller where id = $1', [id])).rows[0].wallet;
    await insertEarnings(h.c, id, [2_000_000n]);
    h.clock.toNextMidnight();
    // The broadcast goes nowhere (a node that dropped it): the tx stays recorded, not found.
    h.senders.base.mode = 'drop';
    await t.app.runScheduledJobs();
    let [p] = await payoutsOf(h.c, id);
    assert.equal(p.status, 'pending');
    assert.ok(p.tx);
    const firstTx = p.tx;
    const prepares = h.senders.base.prepares;
    // Next pass: looked up (not_found) and broadcast again, same transaction; now it stays pending.
    h.senders.base.mode = 'pending';
    await new Promise((r) => setTimeout(r, 5));
    await t.app.runScheduledJobs();
    [p] = await payoutsOf(h.c, id);
    assert.equal(p.tx, firstTx, 'same transaction');
    assert.equal(h.senders.base.prepares, prepares, 'nothing signed again');
    assertIdentities(await balances(h.c, id), assert, 'pending');
    await t.app.runScheduledJobs();
    assert.equal((await payoutsOf(h.c, id))[0].status, 'pending', 'pending: waits');
    const m = await (await fetch(`${t.metricsUrl}/metrics`)).text();
    assert.match(m, /paycall_payouts_unconfirmed\{chain="base"\} 1/);
    assert.match(m, /paycall_payouts_unconfirmed_age_seconds\{chain="base"\} \d+/);
    h.senders.base.mode = 'ok';
    await settleUntil(t.app, allFinal(h.c));
    assert.equal(h.senders.base.received.get(wallet), 1_940_000n);

    // Expired: an unsent transaction whose nonce passed is replaced by a new one, paid once.
    const id2 = await insertSeller(h.c, { wallet: evmWallet(), chain: 'base' });
    const wallet2 = (await h.c.query('select wallet from seller where id = $1', [id2])).rows[0].wallet;
    await insertEarnings(h.c, id2, [3_000_000n]);
    h.clock.toNextMidnight();
    h.senders.base.mode = 'drop';
    await t.app.runScheduledJobs();
    const [q] = await payoutsOf(h.c, id2);
    h.senders.base.expire(q.tx);
    h.senders.base.mode = 'ok';
    await settleUntil(t.app, allFinal(h.c));
    const [q2] = await payoutsOf(h.c, id2);
    assert.notEqual(q2.tx, q.tx, 'a new transaction');
    assert.equal(h.senders.base.received.get(wallet2), 2_910_000n);
    assertIdentities(await balances(h.c, id2), assert, 'expired');
  });

  test('a worker whose lease ran out neither sends its own transaction nor drops the one recorded since', async () => {
    const id = await insertSeller(h.c, { wallet: evmWallet(), chain: 'base' });
    await insertEarnings(h.c, id, [1_500_000n]);
    h.clock.toNextMidnight();
    h.senders.base.mode = 'drop';
    await t.app.runScheduledJobs();
    const [p] = await payoutsOf(h.c, id);
    const recorded = await findPayout(sqlOf(t.app.orm), p.id);
    const deps = { orm: t.app.orm, senders: h.senders, config: t.app.config.settlement, metrics: t.app.metrics, log: silentLogger };
    const before = { prepares: h.senders.base.prepares, broadcasts: h.senders.base.broadcasts };
    // The stale worker read the row before any transaction was recorded.
    await workPayout(deps, { ...recorded!, tx: null, raw: null, valid_until: null });
    assert.equal(h.senders.base.prepares, before.prepares + 1, 'it signed one');
    assert.equal(h.senders.base.broadcasts, before.broadcasts, 'but did not send it');
    assert.equal((await payoutsOf(h.c, id))[0].tx, p.tx, 'the recorded transaction stays');
    // A stale worker that judged an older transaction failed does not drop the recorded one.
    h.senders.base.mode = 'fail-on-chain';
    const older = await h.senders.base.prepare('0x0000000000000000000000000000000000000001', 1n);
    await h.senders.base.broadcast(older);
    await workPayout(deps, { ...recorded!, ...{ tx: older.tx, raw: older.raw, valid_until: older.validUntil } });
    assert.equal((await payoutsOf(h.c, id))[0].tx, p.tx, 'still the recorded transaction');
    h.senders.base.mode = 'ok';
    await h.c.query(`update payout set next_attempt_at = now() where id = $1`, [p.id]);
    await settleUntil(t.app, allFinal(h.c));
    assertIdentities(await balances(h.c, id), assert);
  });

  test('a chain with no sender: the payout waits with its reason, others are paid', async () => {
    const id = await insertSeller(h.c, { wallet: evmWallet(), chain: 'arbitrum', walletChain: 'base' });
    await insertEarnings(h.c, id, [1_000_000n]);
    h.clock.toNextMidnight();
    await t.app.runScheduledJobs();
    const [p] = await payoutsOf(h.c, id);
    assert.equal(p.status, 'failed');
    assert.match(p.error, /no payout sender is configured for arbitrum/);
    // Its destination is the seller's EVM wallet (same chain family).
    assert.equal((await h.c.query('select wallet from payout where id = $1', [p.id])).rows[0].wallet, (await h.c.query('select wallet from seller where id = $1', [id])).rows[0].wallet);
    await h.c.query(`update payout set status = 'sent' where id = $1`, [p.id]); // out of the way of the next tests
    await h.c.query(`update payment set payout_id = $1 where id in (select payment_id from payout_item where payout_id = $1)`, [p.id]);
  });
});

describe('concurrency', () => {
  let h: Harness;
  before(async () => {
    h = await harness('settle_concurrency');
  });
  after(() => stop(h));

  test('two instances at midnight: one settlement run, each seller paid once', async () => {
    const [a, b] = [await h.start(), await h.start()];
    const ids: number[] = [];
    for (let i = 0; i < 30; i++) ids.push(await insertSeller(h.c, { wallet: evmWallet(), chain: (['base', 'polygon'] as const)[i % 2] }));
    for (const id of ids) await insertEarnings(h.c, id, [500_000n, 600_000n]);
    h.clock.toNextMidnight();
    await Promise.all([a.app.runScheduledJobs(), b.app.runScheduledJobs(), a.app.runScheduledJobs(), b.app.runScheduledJobs()]);
    await settleUntil(a.app, allFinal(h.c));
    const runs = (await h.c.query('select count(*)::int as n from settlement_run where day = $1', [h.clock.now().toISOString().slice(0, 10)])).rows[0].n;
    assert.equal(runs, 1);
    const m = [await (await fetch(`${a.metricsUrl}/metrics`)).text(), await (await fetch(`${b.metricsUrl}/metrics`)).text()];
    const successes = m.map((x) => Number(/paycall_settlement_runs_total\{outcome="success"\} (\d+)/.exec(x)?.[1] ?? 0));
    assert.equal(successes[0] + successes[1], 1, 'exactly one instance ran it');
    for (const id of ids) {
      assert.equal((await payoutsOf(h.c, id)).length, 1);
      assertIdentities(await balances(h.c, id), assert);
    }
    assert.equal(h.senders.base.broadcasts + h.senders.polygon.broadcasts, 30, 'one transaction per seller');
  });

  test('a run whose instance died is taken over once its lease has passed, not before', async () => {
    const t = h.apps[0];
    const id = await insertSeller(h.c, { wallet: evmWallet(), chain: 'base' });
    await insertEarnings(h.c, id, [1_000_000n]);
    h.clock.toNextMidnight();
    const day = h.clock.now().toISOString().slice(0, 10);
    // Another instance started the run and is (still) holding it.
    await h.c.query(`insert into settlement_run (day, cutoff, lease_until) values ($1, $2::timestamptz, now() + interval '1 hour')`, [day, `${day}T00:00:00Z`]);
    await t.app.runScheduledJobs();
    assert.equal((await payoutsOf(h.c, id)).length, 0, 'a live run is left alone');
    // It died: its lease runs out, and the next pass finishes the run.
    await h.c.query(`update settlement_run set lease_until = now() - interval '1 second' where day = $1`, [day]);
    await settleUntil(t.app, allFinal(h.c));
    assert.equal((await payoutsOf(h.c, id)).length, 1);
    assertIdentities(await balances(h.c, id), assert);
    assert.equal((await h.c.query(`select finished_at is not null as done, sellers from settlement_run where day = $1`, [day])).rows[0].done, true);
  });

  test('a requested payout racing the daily run: every row paid exactly once', async () => {
    const t = h.apps[0];
    const signers = Array.from({ length: 6 }, () => evmSigner());
    const ids: number[] = [];
    for (const [i, s] of signers.entries()) {
      assert.equal((await register(t.baseUrl, s, `race-${i}-${nowS() % 100000}`)).status, 201);
      ids.push((await h.c.query('select id from seller where wallet = $1', [s.wallet])).rows[0].id);
    }
    for (const id of ids) await insertEarnings(h.c, id, [700_000n, 800_000n]);
    h.clock.toNextMidnight();
    const answers = await Promise.all([
      t.app.runScheduledJobs(),
      h.apps[1].app.runScheduledJobs(),
      ...signers.map(async (s) => call(t.baseUrl, 'requestPayout', 'POST', `/v1/_seller/${s.wallet}/payouts`, { body: await requestPayoutBody(s) })),
    ]);
    const statuses = answers.slice(2).map((a) => (a as { status: number }).status);
    for (const st of statuses) assert.ok(st === 202 || st === 409, `202 or 409, got ${st}`);
    await settleUntil(t.app, allFinal(h.c));
    for (const [i, id] of ids.entries()) {
      const ps = await payoutsOf(h.c, id);
      assert.equal(ps.length, 1, `one payout for seller ${i} (${statuses[i]})`);
      const b = await balances(h.c, id);
      assertIdentities(b, assert);
      assert.equal(b.withdrawable, 0n);
      assert.equal(h.senders.base.received.get(signers[i].wallet), b.earned);
    }
  });
});

describe('POST /v1/_seller/{wallet}/payouts', () => {
  let h: Harness;
  let t: TestApp;
  before(async () => {
    h = await harness('settle_request');
    t = await h.start();
  });
  after(() => stop(h));

  const request = async (wallet: string, body: unknown) => call(t.baseUrl, 'requestPayout', 'POST', `/v1/_seller/${wallet}/payouts`, { body });

  test('pays the withdrawable balance to the registered wallet; in progress, interval, nothing to pay', async () => {
    const s = solanaSigner();
    assert.equal((await register(t.baseUrl, s, 'sol-payee')).status, 201);
    const id = (await h.c.query('select id from seller where wallet = $1', [s.wallet])).rows[0].id;
    let r = await request(s.wallet, await requestPayoutBody(s));
    assert.equal(r.status, 409);
    assert.equal(r.body.error, 'nothing_to_pay');
    await insertEarnings(h.c, id, [9_000n]);
    r = await request(s.wallet, await requestPayoutBody(s));
    assert.equal(r.status, 409, 'below the minimum');
    assert.equal(r.body.error, 'nothing_to_pay');
    await insertEarnings(h.c, id, [1_000_000n]);

    r = await request(s.wallet, await requestPayoutBody(s));
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.deepEqual({ ...r.body, id: 0, created_at: 0 }, { id: 0, wallet: s.wallet, chain: 'solana', to: s.wallet, amount_atomic: String(8_730n + 970_000n), status: 'pending', tx: null, created_at: 0 });
    assertIdentities(await balances(h.c, id), assert, 'queued');

    r = await request(s.wallet, await requestPayoutBody(s, nowS() - 30));
    assert.equal(r.status, 409);
    assert.equal(r.body.error, 'payout_in_progress');
    await settleUntil(t.app, allFinal(h.c));
    assert.equal(h.senders.solana.received.get(s.wallet), 978_730n);
    const b = await balances(h.c, id);
    assertIdentities(b, assert, 'paid');
    assert.equal(b.withdrawable, 0n);

    await insertEarnings(h.c, id, [1_000_000n]);
    r = await request(s.wallet, await requestPayoutBody(s, nowS() - 60));
    assert.equal(r.status, 429);
    assert.equal(r.body.error, 'rate_limited');
    assert.ok(Number(r.headers.get('retry-after')) > 3500);
  });

  test('a destination in the body is refused; signature errors come from the signature check', async () => {
    const s = evmSigner();
    assert.equal((await register(t.baseUrl, s, 'evm-payee')).status, 201);
    const id = (await h.c.query('select id from seller where wallet = $1', [s.wallet])).rows[0].id;
    await insertEarnings(h.c, id, [1_000_000n]);
    let r = await request(s.wallet, { ...(await requestPayoutBody(s)), to: evmSigner().wallet });
    assert.equal(r.status, 400);
    assert.equal(r.body.error, 'invalid_input');
    assert.ok(r.body.issues.some((i: { path: string }) => i.path.includes('to')), JSON.stringify(r.body));

    r = await request(s.wallet, { signature: await evmSigner().sign('request_payout', s.wallet, nowS()), timestamp: nowS() });
    assert.equal(r.status, 401);
    assert.equal(r.body.error, 'invalid_signature');
    r = await request(s.wallet, await requestPayoutBody(s, nowS() - 1000));
    assert.equal(r.status, 400);
    assert.equal(r.body.error, 'invalid_timestamp');
    const other = evmSigner();
    r = await request(other.wallet, await requestPayoutBody(other));
    assert.equal(r.status, 404);
    assert.equal(r.body.error, 'seller_not_found');

    const body = await requestPayoutBody(s);
    r = await request(s.wallet, body);
    assert.equal(r.status, 202);
    r = await request(s.wallet, body);
    assert.equal(r.status, 409);
    assert.equal(r.body.error, 'signature_already_used');
    assertIdentities(await balances(h.c, id), assert);
  });
});

describe('on the embedded database (PGlite)', () => {
  test('the daily run and a requested payout work the same', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'paycall-settle-pglite-'));
    const clock = movableClock();
    const base = fakeSender('base');
    const t = await startTestApp(testConfig({ PGLITE_DIR: join(dir, 'pglite'), PAYCALL_DATA_DIR: dir, ...ENV }), undefined, { payoutSenders: { base }, now: clock.now });
    try {
      const conn = t.app.orm.em.fork().getConnection();
      const s = evmSigner();
      assert.equal((await register(t.baseUrl, s, 'pglite-payee')).status, 201);
      const [{ id }] = await conn.execute<{ id: number }[]>('select id from seller where wallet = ?', [s.wallet]);
      const earn = (tx: string) =>
        conn.execute(`insert into payment (network, tx, payer, amount, quoted_amount, endpoint_path, seller_id, take_bps, fee, net, delivery) values ('base', ?, '0xp', 1000000, 1000000, '/v1/x/y', ?, 300, 30000, 970000, 'delivered')`, [tx, id]);
      const done = async () => Number((await conn.execute<{ n: string }[]>(`select count(*) as n from payout where status <> 'sent'`))[0].n) === 0;
      await earn('0x01');
      clock.toNextMidnight();
      await settleUntil(t.app, done);
      assert.equal(base.received.get(s.wallet), 970_000n);
      await earn('0x02');
      const r = await call(t.baseUrl, 'requestPayout', 'POST', `/v1/_seller/${s.wallet}/payouts`, { body: await requestPayoutBody(s) });
      assert.equal(r.status, 202);
      await settleUntil(t.app, done);
      assert.equal(base.received.get(s.wallet), 1_940_000n);
      const [row] = await conn.execute<{ unsettled: string }[]>(`select count(*) filter (where payout_id is null) as unsettled from payment`);
      assert.equal(Number(row.unsettled), 0);
    } finally {
      await t.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
