/** Migrations from an empty PostgreSQL database, idempotent on a second start; money columns are numeric(78,0). */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { openDatabase } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/log.ts';
import { migrationsList } from '../../src/db/migrations/index.ts';
import { PaymentSchema } from '../../src/db/entities.ts';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase('migrations');
});
after(async () => {
  await db?.drop();
});

test('an empty database gets every table, and a second open applies nothing', async () => {
  const orm = await openDatabase({ databaseUrl: db.url, pgliteDir: '', log: silentLogger });
  const pending = await orm.migrator.getPending();
  assert.equal(pending.length, 0);
  const executed = await orm.migrator.getExecuted();
  assert.deepEqual(executed.map((m) => m.name), migrationsList.map((m) => m.name));
  await orm.close(true);

  const again = await openDatabase({ databaseUrl: db.url, pgliteDir: '', log: silentLogger });
  assert.equal((await again.migrator.getExecuted()).length, migrationsList.length);
  await again.close(true);

  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const tables = await client.query(`select table_name from information_schema.tables where table_schema = 'public' order by 1`);
  const names = tables.rows.map((r) => r.table_name);
  for (const t of ['seller', 'seller_wallet', 'seller_endpoint', 'quote', 'consumed_receipt', 'payment', 'api_key', 'used_signature', 'payout', 'endpoint_error_count']) {
    assert.ok(names.includes(t), `table ${t} in ${names}`);
  }
  const money = await client.query(
    `select table_name, column_name, numeric_precision, numeric_scale from information_schema.columns
      where table_schema = 'public' and column_name in ('amount', 'fee', 'net', 'atomic_price', 'quoted_amount') order by 1, 2`,
  );
  assert.equal(money.rows.length, 8);
  for (const r of money.rows) assert.deepEqual([r.numeric_precision, r.numeric_scale], [78, 0], `${r.table_name}.${r.column_name}`);
  await client.end();
});

test('amounts round-trip as bigint beyond 2^53 without loss', async () => {
  const orm = await openDatabase({ databaseUrl: db.url, pgliteDir: '', log: silentLogger });
  const em = orm.em.fork();
  const big = 2n ** 200n + 12345n;
  const conn = em.getConnection();
  await conn.execute(
    `insert into payment (network, tx, payer, amount, quoted_amount, endpoint_path, take_bps, fee, net) values ('base', '0xabc', '0xpayer', ?, ?, '/v1/pdf-text', 0, 0, ?)`,
    [big.toString(), big.toString(), big.toString()],
  );
  const row = await em.findOneOrFail(PaymentSchema, { tx: '0xabc' });
  assert.equal((row as { amount: bigint }).amount, big);
  await orm.close(true);
});

test('undelivered_calls: past failed seller calls (final 5xx answer, unsettled) stop counting; served, built-in, claimed and paid rows stay delivered', async () => {
  const backfill = await createTestDatabase('migrations_undelivered');
  try {
    const orm = await openDatabase({ databaseUrl: backfill.url, pgliteDir: '', log: silentLogger, migrate: false });
    await orm.migrator.up({ to: 'Migration20261123091000_settlement' });
    const conn = orm.em.fork().getConnection();
    // What the old code left: a ledger row per paid call, and the receipt's final stored answer.
    const row = async (tx: string, sellerId: number | null, status: number, extra: { payoutId?: number; claimedBy?: number } = {}) => {
      const [{ id }] = await conn.execute<{ id: string }[]>(
        `insert into payment (network, tx, payer, amount, quoted_amount, endpoint_path, seller_id, take_bps, fee, net, payout_id) values ('base', ?, '0xp', 20000, 20000, '/v1/s/p', ?, 400, 800, 19200, ?) returning id`,
        [tx, sellerId, extra.payoutId ?? null],
      );
      await conn.execute(`insert into consumed_receipt (receipt_key, network, fingerprint, payment_id, state, lease_until, response_status) values (?, 'base', 'f', ?, 'done', now(), ?)`, [`k-${tx}`, id, status]);
      if (extra.claimedBy) await conn.execute(`insert into payout_item (payment_id, payout_id) values (?, ?)`, [id, extra.claimedBy]);
    };
    await row('failed-502', 7, 502);
    await row('failed-504', 7, 504);
    await row('paywall-503', 7, 503);
    await row('served', 7, 200);
    await row('buyer-error', 7, 400);
    await row('builtin-500', null, 500);
    await row('claimed-502', 7, 502, { claimedBy: 1 });
    await row('paid-502', 7, 502, { payoutId: 1 });
    await orm.migrator.up();
    const rows = await conn.execute<{ tx: string; delivery: string }[]>(`select tx, delivery from payment order by id`);
    assert.deepEqual(Object.fromEntries(rows.map((r: { tx: string; delivery: string }) => [r.tx, r.delivery])), {
      'failed-502': 'undelivered',
      'failed-504': 'undelivered',
      'paywall-503': 'undelivered',
      served: 'delivered',
      'buyer-error': 'delivered',
      'builtin-500': 'delivered',
      'claimed-502': 'delivered',
      'paid-502': 'delivered',
    });
    // New rows are written before their run: pending until the seller call marks them.
    await conn.execute(`insert into payment (network, tx, payer, amount, quoted_amount, endpoint_path, seller_id, take_bps, fee, net) values ('base', 'new', '0xp', 1, 1, '/v1/s/p', 7, 400, 0, 1)`);
    assert.deepEqual(await conn.execute(`select delivery from payment where tx = 'new'`), [{ delivery: 'pending' }]);
    await assert.rejects(conn.execute(`update payment set delivery = 'refunded' where tx = 'new'`), /payment_delivery_check/);
    await orm.close(true);
  } finally {
    await backfill.drop();
  }
});
