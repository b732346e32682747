/**
 * The embedded default: no DATABASE_URL means PGlite in a data directory. The real
 * process (src/main.ts) serves /v1/_health with no configuration, and SIGTERM lets an
 * in-flight request finish before the process exits.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { startServiceProcess, startTestApp, testConfig } from '../helpers/app.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paycall-pglite-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('createApp on PGlite migrates an empty cluster and answers health and meta', async () => {
  const t = await startTestApp(testConfig({ PGLITE_DIR: join(dir, 'in-process') }));
  try {
    const health = (await (await fetch(`${t.baseUrl}/v1/_health`)).json()) as any;
    assert.equal(health.checks.database.ok, true);
    const meta = (await (await fetch(`${t.baseUrl}/v1/_meta`)).json()) as any;
    assert.equal(meta.endpoints.length, 4);
  } finally {
    await t.close();
  }
});

test('the real process on PGlite serves /v1/_health and drains an in-flight request on SIGTERM', async () => {
  const { child, url, output } = await startServiceProcess({ DATABASE_URL: '', PGLITE_DIR: join(dir, 'process'), PAYCALL_PROFILE: 'devnet', PAYCALL_START_DEVNET: '0' });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const res = await fetch(`${url}/v1/_health`);
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as any).checks.database.ok, true);

    // An upload still streaming when SIGTERM arrives must still get its answer.
    const u = new URL(`${url}/v1/_seller/register`);
    const answered = new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (r) => {
        r.resume();
        r.on('end', () => resolve(r.statusCode ?? 0));
      });
      req.on('error', reject);
      req.write('{"wallet":"0x1111111111111111111111111111111111111111",');
      setTimeout(() => {
        child.kill('SIGTERM');
        setTimeout(() => req.end('"slug":"Bad_Slug","signature":"0x","timestamp":1}'), 300);
      }, 200);
    });
    assert.equal(await answered, 400);
    assert.equal(await exited, 0);
    assert.match(output(), /"msg":"stopped"/);
  } finally {
    child.kill('SIGKILL');
  }
});

test('a cluster is created atomically: a half-made directory is moved aside, a creation leftover removed, a good cluster kept', async () => {
  const { mkdirSync, writeFileSync, readdirSync, existsSync } = await import('node:fs');
  const { openDatabase } = await import('../../src/db/orm.ts');
  const { silentLogger } = await import('../../src/log.ts');
  const target = join(dir, 'half-made');
  // What a process killed while PGlite created the cluster used to leave behind.
  mkdirSync(join(target, 'base'), { recursive: true });
  writeFileSync(join(target, 'PG_VERSION'), '17\n');
  mkdirSync(join(dir, 'half-made.creating-4242'));
  const orm = await openDatabase({ databaseUrl: null, pgliteDir: target, log: silentLogger });
  await orm.em.getConnection().execute(`insert into quote (fingerprint, resource, endpoint_key, amount) values ('kept', '/v1/pdf-text', 'pdf-text', 1)`);
  await orm.close(true);
  const names = readdirSync(dir);
  assert.ok(names.some((n) => n.startsWith('half-made.unusable-')), 'the half-made directory is moved aside, not deleted');
  assert.ok(!names.includes('half-made.creating-4242'), 'the creation leftover is removed');
  assert.ok(existsSync(join(target, '.paycall-created')));
  // The new cluster, marked complete, opens with its data.
  const again = await openDatabase({ databaseUrl: null, pgliteDir: target, log: silentLogger });
  const rows = await again.em.getConnection().execute<{ fingerprint: string }[]>(`select fingerprint from quote`);
  assert.deepEqual(rows.map((r: { fingerprint: string }) => r.fingerprint), ['kept']);
  await again.close(true);
});

test('a fresh cluster comes from the install-time template (every migration in it); a broken template falls back to initdb', async () => {
  const { existsSync } = await import('node:fs');
  const { writeFile, mkdir } = await import('node:fs/promises');
  const { openDatabase } = await import('../../src/db/orm.ts');
  const { pgliteTemplatePath, seedFromTemplate } = await import('../../src/db/pglite-template.ts');
  const { migrationsList } = await import('../../src/db/migrations/index.ts');
  const { recordingLogger } = await import('../helpers/paid.ts');
  // What `npm install` runs; the suite makes the template itself when install scripts did not.
  if (!existsSync(pgliteTemplatePath())) {
    const { execFileSync } = await import('node:child_process');
    execFileSync(process.execPath, ['--import', 'tsx', 'scripts/pglite-template.ts'], { stdio: 'ignore' });
  }
  const rec = recordingLogger();
  const orm = await openDatabase({ databaseUrl: null, pgliteDir: join(dir, 'from-template'), log: rec.log });
  try {
    assert.equal(rec.count('embedded database created from the install-time template'), 1);
    assert.equal(rec.count('migrations applied'), 0, 'the template holds every migration already');
    const applied = await orm.em.getConnection().execute<{ name: string }[]>('select name from mikro_orm_migrations order by id');
    assert.deepEqual(applied.map((m: { name: string }) => m.name), migrationsList.map((m: { name: string }) => m.name));
    await orm.em.getConnection().execute(`insert into quote (fingerprint, resource, endpoint_key, amount, pages, created_at, quoted_times) values ('t', 'r', 'k', 1, 1, now(), array[now()])`);
  } finally {
    await orm.close(true);
  }

  const broken = join(dir, 'broken-template.tar.gz');
  await writeFile(broken, 'not a tar');
  await mkdir(join(dir, 'broken'));
  const warned = recordingLogger();
  assert.equal(await seedFromTemplate(join(dir, 'broken'), warned.log, broken), false);
  assert.equal(warned.count('the embedded database template did not load; creating the cluster with initdb'), 1);
});
