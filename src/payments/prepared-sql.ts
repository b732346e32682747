/**
 * The paid call's own statements (the receipt's row, the request's quotes, the consume with its
 * ledger row, the stored answer) as named prepared statements on PostgreSQL. The ORM's
 * `execute` writes each value into the SQL text, so the server parses and plans every
 * statement again on every call: for the receipt's two-table read, the consume CTE and the
 * stored answer that was 0.1-0.2 ms of the server's time per statement, on each of the four
 * round trips of a paid call (bench/paid-load.ts). A named statement is parsed once per pooled
 * connection; each call then sends only its values.
 *
 * Same SQL text, same `?` placeholders, same pooled connections (the ORM's own pg pool, with
 * its type parsers, so rows come back exactly as through `execute`). On PGlite (no pg pool)
 * and for a text with a placeholder form this does not translate, the ORM's `execute` runs it
 * as before. Only fixed texts of this folder come here: a name is given per distinct text.
 */
import { createHash } from 'node:crypto';
import type { Database } from '../db/orm.ts';

/** What the receipt and quote SQL needs of a database handle: the ORM entity manager's `execute`, same call shape. */
export interface SqlRunner {
  execute<T = unknown[]>(sql: string, params?: unknown[]): Promise<T>;
}

/** The part of pg's Pool used here (structural: no import of pg, which PGlite users need not load). */
interface PgPool {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
  totalCount: number;
}

const isPgPool = (x: unknown): x is PgPool => typeof x === 'object' && x !== null && typeof (x as PgPool).query === 'function' && typeof (x as PgPool).totalCount === 'number';

/** `?` placeholders numbered `$1, $2, ...`; null when the text has a form the ORM reads differently (`??`, `\?`). */
export function numberPlaceholders(sql: string): string | null {
  if (sql.includes('??') || sql.includes('\\?')) return null;
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** A bound on distinct texts: the fixed statements of this folder are a handful. */
const MAX_NAMED = 64;

/**
 * Per text, its numbered form under a name taken from the text's hash: a pg connection knows
 * a name with one text only, and several stores (each with a runner) share the ORM's pool.
 */
const named = new Map<string, { name: string; text: string } | null>();
const statementOf = (sql: string) => {
  let statement = named.get(sql);
  if (statement === undefined && named.size < MAX_NAMED) {
    const text = numberPlaceholders(sql);
    named.set(sql, (statement = text === null ? null : { name: `paycall_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`, text }));
  }
  return statement ?? null;
};

export function createPreparedSql(orm: Database): SqlRunner {
  const connection = orm.em.getConnection() as ReturnType<Database['em']['getConnection']> & { getNativeClient?: () => Promise<unknown> };
  let pool: Promise<PgPool | null> | null = null;
  const native = () =>
    (pool ??= typeof connection.getNativeClient === 'function'
      ? connection.getNativeClient().then((c) => (isPgPool(c) ? c : null), () => null)
      : Promise.resolve(null));

  return {
    async execute<T>(sql: string, params: unknown[] = []): Promise<T> {
      const pg = await native();
      const statement = pg && statementOf(sql);
      if (!pg || !statement) return connection.execute(sql, params) as Promise<T>;
      return (await pg.query({ name: statement.name, text: statement.text, values: params })).rows as T;
    },
  };
}
