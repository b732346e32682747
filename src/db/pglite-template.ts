/**
 * A fresh embedded cluster from the template `npm install` made (scripts/pglite-template.mjs):
 * loading the dumped empty cluster takes about a second where PGlite's initdb takes about three,
 * the largest part of a first `npm start`. Without a template (install scripts off, another
 * PGlite version) the caller runs initdb as before.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../log.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Where the template of the installed PGlite version is, or would be. */
export function pgliteTemplatePath(): string {
  const { version } = JSON.parse(readFileSync(`${root}node_modules/@electric-sql/pglite/package.json`, 'utf8')) as { version: string };
  return `${root}node_modules/.cache/paycall/pglite-${version}.tar.gz`;
}

/**
 * Fills the empty directory `dir` from the template; false when there is none or it does not
 * load. The dump is a tar of the cluster's files: the system's tar unpacks it in a process of its
 * own (the start-up's main thread is busy loading modules meanwhile); PGlite's own loader is the
 * fallback where there is no tar.
 */
export async function seedFromTemplate(dir: string, log: Logger, template = pgliteTemplatePath()): Promise<boolean> {
  if (!existsSync(template)) return false;
  const started = performance.now();
  try {
    await untar(template, dir).catch(async () => {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const { PGlite } = await import('@electric-sql/pglite');
      const pg = await PGlite.create({ dataDir: dir, loadDataDir: new Blob([readFileSync(template)]) });
      await pg.close();
    });
    log.info('embedded database created from the install-time template', { template, ms: Math.round(performance.now() - started) });
    return true;
  } catch (e) {
    log.warn('the embedded database template did not load; creating the cluster with initdb', { template, error: (e as Error).message });
    return false;
  }
}

const untar = (file: string, dir: string) =>
  new Promise<void>((resolve, reject) => {
    // Members are stored with a leading '/': tar makes them relative to -C (never absolute).
    execFile('tar', ['-xzf', file, '-C', dir], (err) => (err ? reject(err) : resolve()));
  });
