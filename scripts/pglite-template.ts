/**
 * postinstall: an embedded PostgreSQL cluster with every migration applied, dumped once to
 * node_modules/.cache/paycall/, so that `npm start` on a fresh data directory loads it (about a
 * second) instead of running PGlite's initdb (about three) and every migration. Keyed by the
 * PGlite version; migrations added later are applied at start as usual. Without the template
 * (install scripts off, a failure here) the service creates the cluster with initdb as before.
 *   node --import tsx scripts/pglite-template.ts
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openDatabase } from '../src/db/orm.ts';
import { pgliteTemplatePath } from '../src/db/pglite-template.ts';
import { silentLogger } from '../src/log.ts';

const started = Date.now();
const work = mkdtempSync(join(tmpdir(), 'paycall-pglite-template-'));
try {
  const file = pgliteTemplatePath();
  const dataDir = join(work, 'pglite');
  // A template made from an older template plus the migrations is as good as one from initdb.
  const orm = await openDatabase({ databaseUrl: null, pgliteDir: dataDir, log: silentLogger });
  await orm.close(true);
  const { PGlite } = await import('@electric-sql/pglite');
  const pg = await PGlite.create({ dataDir });
  const dump = Buffer.from(await (await pg.dumpDataDir('gzip')).arrayBuffer());
  await pg.close();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.${process.pid}.tmp`, dump);
  renameSync(`${file}.${process.pid}.tmp`, file);
  console.log(`pglite-template: ${file} (${dump.length} bytes, ${Date.now() - started} ms)`);
} catch (e) {
  console.log(`pglite-template: skipped (${(e as Error).message}); a fresh embedded database will be created with initdb`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
