/** Migrations from an empty PostgreSQL database, idempotent on a second start; money columns are numeric(78,0). */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { openDatabase } from '../src/db/orm.ts';
import { silentLogger } from '../src/log.ts';
import { migrationsList } from '../src/db/migrations/index.ts';
import { PaymentSchema } from '../src/db/entities.ts';

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
