/**
 * GET /v1/_seller/{wallet}/stats?series=daily on real PostgreSQL: one row per UTC day from the
 * day of `since` (at most 90 days back) to today, days without calls as zeros, money as exact
 * atomic integers, undelivered calls apart, rows before `since` left out of the first day, and
 * the days adding up to the totals. An unknown series is 400 invalid_input.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { call, evmSigner, nowS, signedQuery } from '../helpers/sellers.ts';
import { insertEarnings, insertSeller } from '../helpers/settlement.ts';

const DAY = 86_400;
let db: TestDatabase;
let t: TestApp;
let c: pg.Client;
const seller = evmSigner();
let sellerId: number;
const now = nowS();
const dayOf = (unix: number) => unix - (unix % DAY);
const iso = (unix: number) => new Date(unix * 1000).toISOString();

before(async () => {
  db = await createTestDatabase('daily_stats');
  t = await startTestApp(testConfig({ DATABASE_URL: db.url, SCHEDULER_TICK_MS: '0' }));
  c = new pg.Client({ connectionString: db.url });
  await c.connect();
  sellerId = await insertSeller(c, { wallet: seller.wallet, chain: 'base' });
  // Amounts above 2^53: a float anywhere would round them.
  await insertEarnings(c, sellerId, [9007199254740993n, 20000n], { at: iso(now), takeBps: 300 });
  await insertEarnings(c, sellerId, [50000n], { at: iso(now), delivery: 'undelivered' });
  await insertEarnings(c, sellerId, [30000n], { at: iso(dayOf(now) - 2 * DAY + 3600) });
  await insertEarnings(c, sellerId, [70000n], { at: iso(dayOf(now) - 2 * DAY + 60) });
  await insertEarnings(c, sellerId, [11000n], { at: iso(now - 100 * DAY) });
});
after(async () => {
  await c?.end();
  await t?.close();
  await db?.drop();
});

const stats = async (query: string) => call(t.baseUrl, 'getSellerStats', 'GET', `/v1/_seller/${seller.wallet}/stats?${await signedQuery(seller, 'stats')}${query}`);
// As the ledger rows are written (test/helpers/settlement.ts insertEarnings): net rounded down.
const net = (amount: bigint) => (amount * 9700n) / 10000n;

test('without series there is no daily field', async () => {
  const r = await stats('&since=0');
  assert.equal(r.status, 200);
  assert.equal(r.body.daily, undefined);
});

test('series=daily: every UTC day of the last 90, zeros between, exact integers, the days adding up to the totals', async () => {
  const since = now - 95 * DAY;
  const r = await stats(`&since=${since}&series=daily`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const days: { day: number; calls: number; paid_atomic: string; earned_atomic: string; undelivered_calls: number; undelivered_atomic: string }[] = r.body.daily;
  // Clamped to 90 days back: the day of now - 90 d through today, one row each, oldest first.
  assert.equal(days.length, 91);
  assert.equal(days[0].day, dayOf(now - 90 * DAY));
  assert.equal(days.at(-1)!.day, dayOf(now));
  for (let i = 1; i < days.length; i++) assert.equal(days[i].day - days[i - 1].day, DAY);
  const today = days.at(-1)!;
  assert.deepEqual(today, {
    day: dayOf(now),
    calls: 3,
    paid_atomic: (9007199254740993n + 20000n + 50000n).toString(),
    earned_atomic: (net(9007199254740993n) + net(20000n)).toString(),
    undelivered_calls: 1,
    undelivered_atomic: '50000',
  });
  const twoAgo = days.find((d) => d.day === dayOf(now) - 2 * DAY)!;
  assert.deepEqual([twoAgo.calls, twoAgo.paid_atomic, twoAgo.earned_atomic], [2, '100000', (net(30000n) + net(70000n)).toString()]);
  const quiet = days.filter((d) => d.calls === 0);
  assert.equal(quiet.length, 89);
  for (const d of quiet) assert.deepEqual([d.paid_atomic, d.earned_atomic, d.undelivered_atomic, d.undelivered_calls], ['0', '0', '0', 0]);
  // The 100-day-old call is before the series but within `since`: counted in the totals only.
  const sum = (k: 'paid_atomic' | 'earned_atomic') => days.reduce((s, d) => s + BigInt(d[k]), 0n);
  assert.equal(BigInt(r.body.paid_atomic) - sum('paid_atomic'), 0n, 'since = now - 95 d: the 100-day-old call is outside both');
  assert.equal(BigInt(r.body.earned_atomic), sum('earned_atomic'));
  assert.equal(r.body.calls, days.reduce((s, d) => s + d.calls, 0));
});

test('the first day counts only from since on; a since within today gives one day', async () => {
  // since falls between the two calls of two days ago: only the later one (at +3600 s) counts.
  const since = dayOf(now) - 2 * DAY + 1800;
  const r = await stats(`&since=${since}&series=daily`);
  assert.equal(r.status, 200);
  assert.equal(r.body.daily.length, 3);
  assert.deepEqual([r.body.daily[0].day, r.body.daily[0].calls, r.body.daily[0].paid_atomic], [dayOf(now) - 2 * DAY, 1, '30000']);
  const one = await stats(`&since=${dayOf(now)}&series=daily`);
  assert.deepEqual(one.body.daily.map((d: { day: number }) => d.day), [dayOf(now)]);
});

test('an unknown series is 400 invalid_input on query.series', async () => {
  const r = await stats('&series=weekly');
  assert.equal(r.status, 400);
  assert.equal(r.body.error, 'invalid_input');
  assert.equal(r.body.issues[0].path, 'query.series');
});
