/**
 * The exactly-once gate against real PostgreSQL: consumption and ledger row in one
 * transaction, replay of the stored answer, 409 for another request, and a crashed run
 * (its lease ran out) taken over by a retry without a second ledger row.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { openDatabase, type Database } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/log.ts';
import { createReceiptGate, type LedgerEntry } from '../../src/payments/receipt-gate.ts';
import { net } from '../../src/payments/take-rate.ts';
import { AppError } from '../../src/http/app-error.ts';

let db: TestDatabase;
let orm: Database;
let sql: pg.Client;
before(async () => {
  db = await createTestDatabase('gate');
  orm = await openDatabase({ databaseUrl: db.url, pgliteDir: '', log: silentLogger });
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
});
after(async () => {
  await sql?.end();
  await orm?.close(true);
  await db?.drop();
});

const entry = (tx: string, amount = 1_000_000n, takeBps = 300): LedgerEntry => ({
  network: 'base', tx, payer: '0xpayer', amount, quotedAmount: amount, endpointPath: '/v1/acme/x', sellerId: 7, endpointId: 3, takeBps,
});
const rows = async (tx: string) => (await sql.query('select * from payment where tx = $1', [tx])).rows;

test('net = floor(amount x (10000 - take_bps) / 10000); fee = amount - net', () => {
  assert.equal(net(1_000_000n, 300), 970_000n);
  assert.equal(net(1_000_000n, 400), 960_000n);
  assert.equal(net(33n, 300), 32n);
  assert.equal(net(1n, 400), 0n);
});

test('consume writes the receipt and the ledger row together; the stored answer replays', async () => {
  const gate = createReceiptGate(orm, { leaseMs: 60_000 });
  const first = await gate.consume('base:tx:0x01', 'base', 'fp-a', entry('0x01'));
  assert.equal(first.kind, 'claimed');
  const [row] = await rows('0x01');
  assert.deepEqual([row.amount, row.fee, row.net, row.take_bps], ['1000000', '30000', '970000', 300]);
  await gate.complete('base:tx:0x01', { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"ok":true}') });
  const again = await gate.check('base:tx:0x01', 'fp-a');
  assert.equal(again?.kind, 'replay');
  if (again?.kind === 'replay') assert.equal(again.answer.body.toString(), '{"ok":true}');
  await assert.rejects(gate.check('base:tx:0x01', 'fp-other'), (e: unknown) => e instanceof AppError && e.code === 'tx_already_consumed' && e.status === 409);
  assert.equal((await rows('0x01')).length, 1);
});

test('a run whose lease ran out (crashed instance) is taken over by a retry, without a second ledger row', async () => {
  const crashed = createReceiptGate(orm, { leaseMs: 200, waitPollMs: 20 });
  const first = await crashed.consume('base:tx:0x02', 'base', 'fp-b', entry('0x02'));
  assert.equal(first.kind, 'claimed');
  // The instance dies: its heartbeat stops and the run never completes. While its lease holds,
  // a retry on another instance waits; after it, takes over.
  crashed.close();
  const gate = createReceiptGate(orm, { leaseMs: 200, waitPollMs: 20 });
  const retried = await gate.check('base:tx:0x02', 'fp-b');
  assert.equal(retried?.kind, 'claimed');
  if (retried?.kind === 'claimed') assert.equal(retried.paymentId, first.kind === 'claimed' ? first.paymentId : -1);
  assert.equal((await rows('0x02')).length, 1);
});

test('concurrent consumers of one receipt: one claims, the others replay its answer', async () => {
  const gate = createReceiptGate(orm, { leaseMs: 60_000, waitPollMs: 20 });
  const outcomes = await Promise.all(
    Array.from({ length: 20 }, async () => {
      const o = await gate.consume('base:tx:0x03', 'base', 'fp-c', entry('0x03'));
      if (o.kind === 'claimed') {
        await new Promise((r) => setTimeout(r, 100));
        await gate.complete('base:tx:0x03', { status: 200, headers: {}, body: Buffer.from('done') });
      }
      return o.kind;
    }),
  );
  assert.equal(outcomes.filter((k) => k === 'claimed').length, 1);
  assert.equal(outcomes.filter((k) => k === 'replay').length, 19);
  assert.equal((await rows('0x03')).length, 1);
});

test('a reservation released after a failed settlement can be tried again; aliases block the settlement tx', async () => {
  const gate = createReceiptGate(orm, { leaseMs: 60_000 });
  assert.equal((await gate.reserve('base:auth:0xa:0x1', 'base', 'fp-d')).kind, 'claimed');
  await gate.release('base:auth:0xa:0x1');
  assert.equal((await gate.reserve('base:auth:0xa:0x1', 'base', 'fp-d')).kind, 'claimed');
  await gate.settle('base:auth:0xa:0x1', entry('0xsettle'), ['base:tx:0xsettle']);
  await gate.complete('base:auth:0xa:0x1', { status: 200, headers: {}, body: Buffer.from('paid') });
  const viaAlias = await gate.check('base:tx:0xsettle', 'fp-d');
  assert.equal(viaAlias?.kind, 'replay');
  await assert.rejects(gate.check('base:tx:0xsettle', 'fp-e'), (e: unknown) => e instanceof AppError && e.code === 'tx_already_consumed');
});

test('a crashed settled run taken over through its alias is completed on the receipt it names', async () => {
  const crashed = createReceiptGate(orm, { leaseMs: 150, waitPollMs: 20 });
  assert.equal((await crashed.reserve('base:auth:0xb:0x2', 'base', 'fp-f')).kind, 'claimed');
  await crashed.settle('base:auth:0xb:0x2', entry('0xsettle2'), ['base:tx:0xsettle2']);
  // The instance crashes before answering; the retry (elsewhere) presents the settlement hash instead.
  crashed.close();
  const gate = createReceiptGate(orm, { leaseMs: 150, waitPollMs: 20 });
  const taken = await gate.check('base:tx:0xsettle2', 'fp-f');
  assert.equal(taken?.kind, 'claimed');
  if (taken?.kind === 'claimed') assert.deepEqual(taken.payment, { tx: '0xsettle2', payer: '0xpayer' });
  await gate.complete('base:tx:0xsettle2', { status: 200, headers: {}, body: Buffer.from('ran once') });
  const replay = await createReceiptGate(orm, { leaseMs: 150 }).check('base:auth:0xb:0x2', 'fp-f');
  assert.equal(replay?.kind, 'replay');
  if (replay?.kind === 'replay') assert.equal(replay.answer.body.toString(), 'ran once');
  assert.equal((await rows('0xsettle2')).length, 1);
});

test('one receipt buys at most maxRuns run attempts; then the last stored failure is final', async () => {
  const gate = createReceiptGate(orm, { leaseMs: 60_000, maxRuns: 3 });
  // A fresh consume counts the run that follows it at once (attempt 1); takeovers count theirs in beginRun.
  assert.deepEqual(await gate.consume('base:tx:0x04', 'base', 'fp-g', entry('0x04')), { kind: 'claimed', paymentId: Number((await rows('0x04'))[0]?.id), runCounted: true });
  const failure = { status: 500, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"error":"internal_error"}') };
  for (let attempt = 1; attempt <= 3; attempt++) {
    if (attempt > 1) assert.deepEqual(await gate.beginRun('base:tx:0x04'), { kind: 'run' }, `attempt ${attempt} runs`);
    await gate.abandon('base:tx:0x04', failure);
    // The lease is given back at once: the next identical retry takes the run over.
    const retry = await gate.check('base:tx:0x04', 'fp-g');
    assert.equal(retry?.kind, 'claimed');
  }
  const fourth = await gate.beginRun('base:tx:0x04');
  assert.equal(fourth.kind, 'replay');
  if (fourth.kind === 'replay') assert.equal(fourth.answer.body.toString(), '{"error":"internal_error"}');
  const [row] = (await sql.query(`select state, attempts from consumed_receipt where receipt_key = 'base:tx:0x04'`)).rows;
  assert.deepEqual(row, { state: 'done', attempts: 3 });
  assert.equal((await gate.check('base:tx:0x04', 'fp-g'))?.kind, 'replay');
  assert.equal((await rows('0x04')).length, 1);
});

test('holds of one payer in flight are counted against its balance, also when reserved concurrently', async () => {
  const gate = createReceiptGate(orm, { leaseMs: 60_000 });
  const hold = { payer: '0xAbC', amount: 600n, balance: 1_000n };
  const outcomes = await Promise.all(Array.from({ length: 5 }, (_, i) => gate.reserveWithin(`base:auth:0xabc:0x${i}`, 'base', `fp-h${i}`, hold)));
  assert.equal(outcomes.filter((o) => o.kind === 'claimed').length, 1);
  assert.equal(outcomes.filter((o) => o.kind === 'over_balance').length, 4);
  // Once the held one settles (its money left the balance on chain), the hold no longer counts.
  const winner = outcomes.findIndex((o) => o.kind === 'claimed');
  await gate.settle(`base:auth:0xabc:0x${winner}`, entry('0xheld'), []);
  assert.equal((await gate.reserveWithin('base:auth:0xabc:0x9', 'base', 'fp-h9', { ...hold, balance: 600n })).kind, 'claimed');
  // Another payer is not affected.
  assert.equal((await gate.reserveWithin('base:auth:0xdef:0x1', 'base', 'fp-h10', { payer: '0xdef', amount: 900n, balance: 1_000n })).kind, 'claimed');
});

test('a second name recorded before broadcast leads to its receipt; a release drops both', async () => {
  const gate = createReceiptGate(orm, { leaseMs: 60_000 });
  assert.equal((await gate.reserve('base:auth:0xc:0x3', 'base', 'fp-i')).kind, 'claimed');
  await gate.alias('base:auth:0xc:0x3', 'base:tx:0xpending');
  // Someone presents the not-yet-mined hash for another request: it is already taken.
  await assert.rejects(gate.check('base:tx:0xpending', 'fp-other'), (e: unknown) => e instanceof AppError && e.code === 'tx_already_consumed');
  await gate.release('base:auth:0xc:0x3');
  assert.equal(Number((await sql.query(`select count(*) from consumed_receipt where receipt_key in ('base:auth:0xc:0x3', 'base:tx:0xpending')`)).rows[0].count), 0);
});

const answer = (text: string) => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: Buffer.from(text) });

test('a live run is never taken over: its heartbeat keeps a short lease alive for many lease periods', async () => {
  // Two instances (two gates, two holder ids) on one database, a 100 ms lease.
  const running = createReceiptGate(orm, { leaseMs: 100, waitPollMs: 10 });
  const other = createReceiptGate(orm, { leaseMs: 100, waitPollMs: 10 });
  assert.equal((await running.consume('base:tx:0x10', 'base', 'fp-l', entry('0x10'))).kind, 'claimed');
  // The retry waits on the live run; the run lasts 15 lease periods, then answers.
  const retry = other.check('base:tx:0x10', 'fp-l');
  await new Promise((r) => setTimeout(r, 1_500));
  assert.deepEqual(await running.complete('base:tx:0x10', answer('ran once')), { stored: true });
  const got = await retry;
  assert.equal(got?.kind, 'replay', 'the retry was not given the run');
  if (got?.kind === 'replay') assert.equal(got.answer.body.toString(), 'ran once');
  const [row] = (await sql.query(`select attempts, lease_holder from consumed_receipt where receipt_key = 'base:tx:0x10'`)).rows;
  assert.deepEqual(row, { attempts: 1, lease_holder: running.holder });
  running.close();
  other.close();
});

test("a holder that lost its lease (stalled past it, taken over) stores nothing: one answer, the new holder's", async () => {
  const stalled = createReceiptGate(orm, { leaseMs: 100, waitPollMs: 10 });
  const taker = createReceiptGate(orm, { leaseMs: 100, waitPollMs: 10 });
  assert.equal((await stalled.consume('base:tx:0x11', 'base', 'fp-m', entry('0x11'))).kind, 'claimed');
  stalled.close(); // its heartbeat stops, as in a long stall of its event loop
  const taken = await taker.check('base:tx:0x11', 'fp-m');
  assert.equal(taken?.kind, 'claimed');
  // The stalled run wakes up and answers first: refused, nothing stored.
  assert.deepEqual(await stalled.complete('base:tx:0x11', answer('late first')), { stored: false, answer: null });
  // Nor can it give the new holder's lease back or store its failure.
  await stalled.abandon('base:tx:0x11', { status: 500, headers: {}, body: Buffer.from('late failure') });
  const [held] = (await sql.query(`select lease_holder, lease_until > now() as live, response_body from consumed_receipt where receipt_key = 'base:tx:0x11'`)).rows;
  assert.deepEqual(held, { lease_holder: taker.holder, live: true, response_body: null });
  assert.deepEqual(await taker.complete('base:tx:0x11', answer('second')), { stored: true });
  // Once the answer exists, the late run learns it (and passes that one on).
  const late = await stalled.complete('base:tx:0x11', answer('late again'));
  assert.equal(late.stored, false);
  if (!late.stored) assert.equal(late.answer?.body.toString(), 'second');
  const replay = await createReceiptGate(orm, { leaseMs: 100 }).check('base:tx:0x11', 'fp-m');
  assert.equal(replay?.kind, 'replay');
  if (replay?.kind === 'replay') assert.equal(replay.answer.body.toString(), 'second');
  assert.equal((await rows('0x11')).length, 1);
  taker.close();
});

test('a reservation taken over is neither released by its stalled first holder nor settled twice', async () => {
  const stalled = createReceiptGate(orm, { leaseMs: 100, waitPollMs: 10 });
  const taker = createReceiptGate(orm, { leaseMs: 100, waitPollMs: 10 });
  assert.equal((await stalled.reserve('base:auth:0xd:0x4', 'base', 'fp-n')).kind, 'claimed');
  stalled.close();
  assert.equal((await taker.check('base:auth:0xd:0x4', 'fp-n'))?.kind, 'claimed');
  // The stalled holder's settlement failed meanwhile: its release must not drop the new holder's reservation.
  await stalled.release('base:auth:0xd:0x4');
  assert.equal((await sql.query(`select 1 from consumed_receipt where receipt_key = 'base:auth:0xd:0x4'`)).rows.length, 1);
  // Both settle the one transfer the chain made: one ledger row.
  const a = await taker.settle('base:auth:0xd:0x4', entry('0xsettle4'), ['base:tx:0xsettle4']);
  const b = await stalled.settle('base:auth:0xd:0x4', entry('0xsettle4'), ['base:tx:0xsettle4']);
  assert.equal(a, b);
  assert.equal((await rows('0xsettle4')).length, 1);
  taker.close();
});

test('a request lets go only of the holds it claimed: an unexpected error ends their heartbeat, not others\'', async () => {
  const gate = createReceiptGate(orm, { leaseMs: 100, waitPollMs: 10 });
  const other = createReceiptGate(orm, { leaseMs: 100, waitPollMs: 10 });
  const kept = gate.claims();
  await kept.run(() => gate.consume('base:tx:0x12', 'base', 'fp-o', entry('0x12')));
  const failed = gate.claims();
  await failed.run(() => gate.consume('base:tx:0x13', 'base', 'fp-p', entry('0x13')));
  failed.letGo();
  // The failed request's receipt is taken over once its lease runs out; the other one is still held.
  assert.equal((await other.check('base:tx:0x13', 'fp-p'))?.kind, 'claimed');
  const waiting = other.check('base:tx:0x12', 'fp-o');
  await new Promise((r) => setTimeout(r, 500));
  await gate.complete('base:tx:0x12', answer('kept'));
  assert.equal((await waiting)?.kind, 'replay');
  gate.close();
  other.close();
});
