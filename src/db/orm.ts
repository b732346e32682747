/**
 * Opens the database: PostgreSQL when DATABASE_URL is set, otherwise the embedded PGlite
 * cluster in .data/pglite (same SQL, same migrations). Migrations are applied at start.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import type { AbstractSqlDriver, SqlEntityManager } from '@mikro-orm/sql';
import { Migrator } from '@mikro-orm/migrations';
import { allEntities } from './entities.ts';
import { migrationsList } from './migrations/index.ts';
import { seedFromTemplate } from './pglite-template.ts';
import type { Logger } from '../log.ts';

/**
 * The open database. Both drivers we use (PostgreSQL, PGlite) are SQL drivers, so the handle is
 * typed with the SQL driver: its entity manager has `execute`, and no module needs a cast.
 */
export type Database = MikroORM<AbstractSqlDriver>;

/** The entity manager the stores take first (raw SQL through the ORM's connection). */
export type Sql = SqlEntityManager;

/** A fresh entity manager for one unit of work (requests must not share the global one). */
export const sqlOf = (db: Database): Sql => db.em.fork();

export interface DatabaseOptions {
  databaseUrl: string | null;
  pgliteDir: string;
  /** Migrations run at open unless false (the migration generator opens an empty schema). */
  migrate?: boolean;
  log: Logger;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const common = {
    entities: allEntities,
    extensions: [Migrator],
    migrations: {
      migrationsList,
      tableName: 'mikro_orm_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
    },
    debug: false,
    allowGlobalContext: false,
    // Amount columns hydrate to bigint through AtomicAmountType; ensure bigint ids too.
    forceUndefined: false,
  };
  let orm: Database;
  if (opts.databaseUrl) {
    const { MikroORM: PgOrm } = await import('@mikro-orm/postgresql');
    orm = await PgOrm.init({ ...common, clientUrl: opts.databaseUrl, pool: { min: 0, max: 10 } });
  } else {
    const { MikroORM: PgliteOrm } = await import('@mikro-orm/pglite');
    orm = await openPglite(opts.pgliteDir, opts.log, (dir) => PgliteOrm.init({ ...common, dbName: dir }));
  }
  if (opts.migrate !== false) {
    const applied = await orm.migrator.up();
    if (applied.length) opts.log.info('migrations applied', { migrations: applied.map((m) => m.name) });
  }
  return orm;
}

/** Written once a cluster has been created completely; a cluster without it may be half made. */
const CREATED_MARKER = '.paycall-created';

/**
 * The embedded cluster, created atomically: a new cluster is made in a directory beside the
 * target and renamed into place only once PGlite has finished creating it, so a process killed
 * during creation (the slowest part of a first start) leaves no half-made cluster behind. A
 * directory without the marker that PGlite cannot open is such a leftover of an older version:
 * it is moved aside (never deleted) and a fresh cluster is made. A marked cluster that fails to
 * open is a real problem and stops the start.
 */
async function openPglite(dir: string, log: Logger, init: (dir: string) => Promise<Database>): Promise<Database> {
  const parent = dirname(resolve(dir));
  mkdirSync(parent, { recursive: true });
  for (const leftover of readdirSync(parent).filter((n) => n.startsWith(`${basename(dir)}.creating-`))) rmSync(join(parent, leftover), { recursive: true, force: true });
  if (existsSync(join(dir, CREATED_MARKER))) return init(dir);
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    let orm: Database | null = null;
    try {
      orm = await init(dir);
      // The connection is made lazily: a query proves the cluster opens.
      await orm.em.getConnection().execute('select 1');
      writeFileSync(join(dir, CREATED_MARKER), `${new Date().toISOString()}\n`);
      return orm;
    } catch (e) {
      await orm?.close(true).catch(() => undefined);
      const aside = `${dir}.unusable-${Date.now()}`;
      renameSync(dir, aside);
      log.warn('the embedded database directory could not be opened and was never completely created: moved aside, creating a new one', { dir, moved_to: aside, error: (e as Error).message });
    }
  }
  const creating = join(parent, `${basename(dir)}.creating-${process.pid}`);
  const fresh = () => {
    rmSync(creating, { recursive: true, force: true });
    mkdirSync(creating, { recursive: true });
  };
  fresh();
  if (!(await seedFromTemplate(creating, log))) fresh();
  const first = await init(creating);
  await first.close(true);
  writeFileSync(join(creating, CREATED_MARKER), `${new Date().toISOString()}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(creating, dir);
  return init(dir);
}

/**
 * The database's clock at full precision (clock_timestamp, not the transaction's now()): the
 * scheduled jobs compare due times with it, so every instance reads the same clock.
 */
export async function databaseNow(em: Sql): Promise<string> {
  const [{ t }] = await em.execute<{ t: string }[]>('select clock_timestamp()::text as t');
  return t;
}

/** A cheap round trip for /v1/_health. */
export async function pingDatabase(orm: Database): Promise<{ ok: boolean; latencyMs: number; error?: string }> {
  const started = performance.now();
  try {
    await orm.em.getConnection().execute('select 1');
    return { ok: true, latencyMs: Math.round(performance.now() - started) };
  } catch (e) {
    return { ok: false, latencyMs: Math.round(performance.now() - started), error: (e as Error).message };
  }
}
