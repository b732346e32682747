/**
 * A fresh PostgreSQL database per suite, created from DATABASE_URL (the development
 * machines and CI: postgres://postgres@127.0.0.1:5432/test) and dropped afterwards, so
 * suites never see each other's rows.
 */
import pg from 'pg';
import { randomBytes } from 'node:crypto';

export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

const withAdmin = async <T>(fn: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
};

export async function createTestDatabase(prefix = 'paycall'): Promise<TestDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await withAdmin((c) => c.query(`create database "${name}"`));
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => withAdmin((c) => c.query(`drop database if exists "${name}" with (force)`)).then(() => undefined),
  };
}
