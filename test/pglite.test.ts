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
import { startServiceProcess, startTestApp, testConfig } from './helpers/app.ts';

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
