/**
 * The quote store against real PostgreSQL, and the offer rule (judgeOffer) on its own:
 *  - a recorded quote is committed, and seen from another connection (another instance),
 *    by the time `record` resolves: that is when its 402 may leave;
 *  - concurrent quotes are group-committed and each waits for its own write;
 *  - a request quoted at two prices keeps both offers with their amounts, trimmed together;
 *  - a quote that cannot be written rejects (no 402 is sent for it);
 *  - judgeOffer: only quotes live at the payment count, at their own amounts.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { openDatabase, type Database } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/log.ts';
import { createQuoteStore, QUOTE_TIMES_KEPT, type QuoteStore } from '../../src/payments/quote-store.ts';
import { judgeOffer } from '../../src/payments/verify-payment.ts';

let db: TestDatabase;
let orm: Database;
let store: QuoteStore;
/** Another connection, as another instance of the service would read. */
let other: pg.Client;
before(async () => {
  db = await createTestDatabase('quote_store');
  orm = await openDatabase({ databaseUrl: db.url, pgliteDir: '', log: silentLogger });
  // As the app opens it on a PostgreSQL server.
  store = createQuoteStore(orm, silentLogger, { commitWithoutFlush: true });
  other = new pg.Client({ connectionString: db.url });
  await other.connect();
});
after(async () => {
  await other?.end();
  await store?.close();
  await orm?.close(true);
  await db?.drop();
});

const fp = (s: string) => createHash('sha256').update(s).digest('hex');
const quote = (fingerprint: string, amount: bigint, createdAt = new Date()) => ({ fingerprint, resource: '/v1/acme/x', endpointKey: 'acme/x', amount, pages: 1, createdAt });
const visible = async (fingerprint: string) => (await other.query('select amount::text as amount from quote where fingerprint = $1', [fingerprint])).rows.length === 1;

test('every quote is committed and visible to another connection when record resolves, also 200 at once', async () => {
  const fps = Array.from({ length: 200 }, (_, i) => fp(`concurrent ${i}`));
  const at = new Date();
  const seen = await Promise.all(fps.map((f) => store.record(quote(f, 1000n, at)).then(() => visible(f))));
  assert.deepEqual(seen, fps.map(() => true));
  // The same-second dedupe: a repeat is no new row, and also resolves only once its row is there.
  assert.equal(await store.record(quote(fps[0], 1000n, at)).then(() => visible(fps[0])), true);
  assert.equal((await other.query('select cardinality(quoted_times) as n from quote where fingerprint = $1', [fps[0]])).rows[0].n, 1);
});

test('a request quoted at two prices keeps both offers, each with its own amount, trimmed together', async () => {
  const f = fp('two prices');
  const t0 = Date.now() - 60_000;
  // Both in the same batch (one event-loop turn): a price change within it loses no offer.
  await Promise.all([store.record(quote(f, 20_000n, new Date(t0))), store.record(quote(f, 50_000n, new Date(t0 + 1000)))]);
  assert.deepEqual(await store.offers(f), [
    { at: Math.floor(t0 / 1000), amount: 20_000n },
    { at: Math.floor((t0 + 1000) / 1000), amount: 50_000n },
  ]);

  const g = fp('many quotes');
  for (let i = 0; i < QUOTE_TIMES_KEPT + 5; i++) await store.record(quote(g, BigInt(100 + i), new Date(t0 + i * 1000)));
  const offers = await store.offers(g);
  assert.equal(offers.length, QUOTE_TIMES_KEPT);
  // The oldest went, and every kept time still has the amount quoted at it.
  for (const o of offers) assert.equal(o.amount, BigInt(100 + (o.at - Math.floor(t0 / 1000))));
});

test('a quote that cannot be written rejects, so its 402 is never sent; the next one is written', async () => {
  // fingerprint is varchar(64): this row cannot be stored.
  await assert.rejects(store.record(quote('x'.repeat(65), 1000n)));
  const f = fp('after a failure');
  await store.record(quote(f, 1000n));
  assert.equal(await visible(f), true);
});

test('judgeOffer: the quotes live at the payment decide, at their own amounts', () => {
  const w = (offers: [number, bigint][]) => ({ offers: offers.map(([at, amount]) => ({ at, amount })), maxTimeoutSeconds: 60, skewSeconds: 5 });
  // Raised after the quote: the quoted amount pays, recorded as the offer accepted.
  assert.deepEqual(judgeOffer(1030, 20_000n, w([[1000, 20_000n], [1020, 50_000n]])), { ok: true, quotedAmount: 20_000n });
  // Paying the higher live offer is recorded against it.
  assert.deepEqual(judgeOffer(1030, 50_000n, w([[1000, 20_000n], [1020, 50_000n]])), { ok: true, quotedAmount: 50_000n });
  // The old offer expired: only the raised one is live.
  assert.equal((judgeOffer(1070, 20_000n, w([[1000, 20_000n], [1020, 50_000n]])) as { reason: string }).reason, 'amount_mismatch');
  // Lowered, but the lower price was quoted only after the payment: nobody was quoted 5000 before it.
  assert.equal((judgeOffer(1030, 5_000n, w([[1000, 20_000n], [1040, 5_000n]])) as { reason: string }).reason, 'amount_mismatch');
  assert.deepEqual(judgeOffer(1045, 5_000n, w([[1000, 20_000n], [1040, 5_000n]])), { ok: true, quotedAmount: 5_000n });
  // No quote, a quote after the payment, an expired quote.
  assert.equal((judgeOffer(1000, 20_000n, w([])) as { reason: string }).reason, 'quote_expired');
  assert.equal((judgeOffer(1000, 20_000n, w([[1010, 20_000n]])) as { reason: string }).reason, 'quote_expired');
  assert.equal((judgeOffer(1100, 20_000n, w([[1000, 20_000n]])) as { reason: string }).reason, 'quote_expired');
});
