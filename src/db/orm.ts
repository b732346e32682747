/**
 * Opens the database: PostgreSQL when DATABASE_URL is set, otherwise the embedded PGlite
 * cluster in .data/pglite (same SQL, same migrations). Migrations are applied at start.
 */
import { mkdirSync } from 'node:fs';
import type { MikroORM } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { allEntities } from './entities.ts';
import { migrationsList } from './migrations/index.ts';
import type { Logger } from '../log.ts';

export type Database = MikroORM;

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
  let orm: MikroORM;
  if (opts.databaseUrl) {
    const { MikroORM: PgOrm } = await import('@mikro-orm/postgresql');
    orm = await PgOrm.init({ ...common, clientUrl: opts.databaseUrl, pool: { min: 0, max: 10 } });
  } else {
    mkdirSync(opts.pgliteDir, { recursive: true });
    const { MikroORM: PgliteOrm } = await import('@mikro-orm/pglite');
    orm = await PgliteOrm.init({ ...common, dbName: opts.pgliteDir });
  }
  if (opts.migrate !== false) {
    const applied = await orm.migrator.up();
    if (applied.length) opts.log.info('migrations applied', { migrations: applied.map((m) => m.name) });
  }
  return orm;
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
