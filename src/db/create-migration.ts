/**
 * Developer tool: writes a new migration into src/db/migrations from the difference between
 * the entities and a database that has every committed migration applied.
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx src/db/create-migration.ts <name>
 */
import { openDatabase } from './orm.ts';
import { createLogger } from '../log.ts';

const name = process.argv[2] ?? 'change';
const orm = await openDatabase({ databaseUrl: process.env.DATABASE_URL ?? null, pgliteDir: '.data/pglite-migrations', log: createLogger('info') });
const result = await orm.migrator.create('src/db/migrations', false, false, name);
console.log(result.fileName ? `written ${result.fileName}` : 'no schema difference');
await orm.close(true);
