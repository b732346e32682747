/**
 * The service as a process: one data directory, one service (finding 5: a second start
 * rewrote devnet.json under the running one and died inside the embedded database), and the
 * last line of defence for errors that escape every handler. Real processes throughout:
 * src/main.ts and devnet/main.ts spawned as `npm start` / `npm run devnet` would run them.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { startServiceProcess } from '../helpers/app.ts';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.ts';

let dir: string;
let devnet: TestDevnet;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paycall-edge-process-'));
  devnet = await startTestDevnet();
});
after(async () => {
  await devnet?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Runs a script to its end (bounded by the test runner's own timeout). */
function runToEnd(script: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, PORT: '0', METRICS_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c) => (stdout += c));
    child.stderr!.on('data', (c) => (stderr += c));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const exitOf = (child: ChildProcess) => new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

const pgliteEnv = (name: string, extra: Record<string, string> = {}) => ({
  DATABASE_URL: '',
  PAYCALL_PROFILE: 'devnet',
  PAYCALL_START_DEVNET: '0',
  PAYCALL_DATA_DIR: join(dir, name),
  LOG_LEVEL: 'info',
  ...extra,
});

test('finding 5: a second service on a PGlite directory in use refuses at once with one line naming the directory and the process; a killed holder does not block', async () => {
  const env = pgliteEnv('second-service');
  const first = await startServiceProcess(env);
  try {
    const second = await runToEnd('src/main.ts', env);
    assert.equal(second.code, 1);
    const lines = second.stderr.trim().split('\n');
    assert.equal(lines.length, 1, second.stderr);
    assert.match(lines[0], new RegExp(`^paycall: the data directory .*second-service/pglite is in use by process ${first.child.pid} \\(paycall service`));
    // The first one never noticed.
    assert.equal((await fetch(`${first.url}/v1/_health`)).status, 200);

    // SIGKILL leaves the lock file behind; its pid is dead, so the next start takes it over.
    first.child.kill('SIGKILL');
    await exitOf(first.child);
    const lockFile = join(dir, 'second-service', 'pglite.lock');
    assert.ok(existsSync(lockFile));
    const next = await startServiceProcess(env);
    try {
      assert.equal((await fetch(`${next.url}/v1/_health`)).status, 200);
      assert.equal(JSON.parse(readFileSync(lockFile, 'utf8')).pid, next.child.pid);
    } finally {
      next.child.kill('SIGTERM');
      assert.equal(await exitOf(next.child), 0);
    }
    // A clean stop removes the lock.
    assert.equal(existsSync(lockFile), false);
  } finally {
    first.child.kill('SIGKILL');
  }
});

test('a lock file naming a dead process, or half-written, does not block a start', async () => {
  for (const [name, content] of [
    ['dead-pid', JSON.stringify({ pid: 2 ** 22 + 12345, role: 'paycall service', dir: 'x', startedAt: 'then', procStart: null, token: 't' })],
    ['empty', ''],
  ]) {
    const env = pgliteEnv(`stale-${name}`);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(env.PAYCALL_DATA_DIR, { recursive: true });
    writeFileSync(join(env.PAYCALL_DATA_DIR, 'pglite.lock'), content);
    const svc = await startServiceProcess(env);
    svc.child.kill('SIGTERM');
    assert.equal(await exitOf(svc.child), 0, `${name}: ${svc.output()}`);
  }
});

test('finding 5: npm start and npm run devnet on the data directory of a running devnet refuse and leave devnet.json untouched', async () => {
  const devnetJson = join(devnet.dataDir, 'devnet.json');
  const before = { text: readFileSync(devnetJson, 'utf8'), mtime: statSync(devnetJson).mtimeMs };
  // This test process holds the devnet's lock (startTestDevnet runs the devnet in-process).
  const service = await runToEnd('src/main.ts', { DATABASE_URL: '', PAYCALL_PROFILE: 'devnet', PAYCALL_START_DEVNET: '1', PAYCALL_DATA_DIR: devnet.dataDir, PGLITE_DIR: join(dir, 'npm-start-pglite') });
  assert.equal(service.code, 1);
  assert.equal(service.stderr.trim().split('\n').length, 1, service.stderr);
  assert.match(service.stderr, new RegExp(`^paycall: the data directory ${devnet.dataDir} is in use by process ${process.pid} \\(paycall devnet`));
  // The refused start gave its own PGlite lock back on the way out.
  assert.equal(existsSync(join(dir, 'npm-start-pglite.lock')), false);

  const second = await runToEnd('devnet/main.ts', { PAYCALL_DATA_DIR: devnet.dataDir });
  assert.equal(second.code, 1);
  assert.equal(second.stderr.trim().split('\n').length, 1, second.stderr);
  assert.match(second.stderr, new RegExp(`^paycall devnet: the data directory ${devnet.dataDir} is in use by process ${process.pid}`));

  assert.equal(readFileSync(devnetJson, 'utf8'), before.text);
  assert.equal(statSync(devnetJson).mtimeMs, before.mtime);
});

const metricValue = async (url: string, series: string) => {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(series));
  return line ? Number(line.split(' ').pop()) : 0;
};

test('an unhandled rejection outside any request is logged with its stack, counted, and the process stays up', async () => {
  const svc = await startServiceProcess(pgliteEnv('rejection', { PAYCALL_TEST_FAULT: 'rejection' }), { nodeArgs: ['--import', './test/fixtures/fault-on-signal.mjs'] });
  try {
    svc.child.kill('SIGUSR2');
    const series = 'paycall_process_errors_total{kind="unhandled_rejection"}';
    while ((await metricValue(svc.metricsUrl, series)) < 1) await new Promise((r) => setTimeout(r, 50));
    assert.equal((await fetch(`${svc.url}/v1/_health`)).status, 200);
    const logged = svc.output().split('\n').find((l) => l.includes('"msg":"unhandled rejection"'));
    assert.ok(logged, svc.output());
    assert.match(JSON.parse(logged).err.stack, /test fault: a rejection nobody handles\n\s+at /);
  } finally {
    svc.child.kill('SIGTERM');
    assert.equal(await exitOf(svc.child), 0);
  }
});

test('an uncaught exception is logged with its stack, in-flight requests finish, the database closes cleanly and the process exits 1', async () => {
  const env = pgliteEnv('uncaught', { PAYCALL_TEST_FAULT: 'exception' });
  const svc = await startServiceProcess(env, { nodeArgs: ['--import', './test/fixtures/fault-on-signal.mjs'] });
  const exited = exitOf(svc.child);
  try {
    // A request still streaming its body when the fault hits must get its answer. The fault
    // is raised only once the server has the request (its 100 Continue says so), so the
    // request is in flight, not a connection still waiting to be read.
    const u = new URL(`${svc.url}/v1/_seller/register`);
    const answered = new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', expect: '100-continue' } }, (r) => {
        r.resume();
        r.on('end', () => resolve(r.statusCode ?? 0));
      });
      req.on('error', reject);
      req.on('continue', () => {
        req.write('{"wallet":"0x1111111111111111111111111111111111111111",');
        svc.child.kill('SIGUSR2');
        const wait = setInterval(() => {
          if (!svc.output().includes('"msg":"uncaught exception"')) return;
          clearInterval(wait);
          req.end('"slug":"Bad_Slug","signature":"0x","timestamp":1}');
        }, 20);
      });
      req.flushHeaders();
    });
    assert.equal(await answered, 400);
    assert.equal(await exited, 1);
    const lines = svc.output().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const fault = lines.find((l) => l.msg === 'uncaught exception');
    assert.match(fault.err.stack, /test fault: an exception nobody catches\n\s+at /);
    assert.equal(fault.alert, 'paycall_process_exit', 'the last resort raises an alert');
    assert.ok(lines.some((l) => l.msg === 'stopped'));
  } finally {
    svc.child.kill('SIGKILL');
  }
  // Closed cleanly: the same cluster opens again at once, and the lock was given back.
  const again = await startServiceProcess(pgliteEnv('uncaught'));
  try {
    assert.equal((await fetch(`${again.url}/v1/_health`)).status, 200);
  } finally {
    again.child.kill('SIGTERM');
    await exitOf(again.child);
  }
});
