/**
 * Fault: PostgreSQL restarts while requests flow. The test runs its own PostgreSQL (initdb +
 * pg_ctl in a temporary directory, on a free port), the service on it with the devnet's chains,
 * and a steady stream of requests. While the database is down every request still gets an
 * HTTP answer (no dropped connection) and /v1/_health answers 503; once it is back the service
 * recovers by itself, and a call paid before the outage still answers with its stored result.
 * Skipped where the PostgreSQL server binaries are not installed.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { evmTransferUsdc } from '../../devnet/buyer.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.ts';
import { callTool, makePdf, xPayment } from '../helpers/paid.ts';

const pgBin = (() => {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const version = readdirSync(root).sort((a, b) => Number(b) - Number(a))[0];
  const bin = join(root, version, 'bin');
  return existsSync(join(bin, 'pg_ctl')) ? bin : null;
})();
const skip = pgBin ? false : 'PostgreSQL server binaries (initdb, pg_ctl) not installed: apt-get install postgresql';

/** initdb and the server refuse to run as root: run them as the postgres user there. */
const asOwner = (cmd: string, args: string[]) => {
  const isRoot = process.getuid?.() === 0;
  const [file, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  return spawnSync(file, argv, { encoding: 'utf8' });
};

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

let dir: string;
let port: number;
let devnet: TestDevnet;
let app: TestApp;
const pgCtl = (...args: string[]) => {
  const r = asOwner(join(pgBin!, 'pg_ctl'), ['-D', join(dir, 'data'), '-w', '-t', '60', ...args]);
  assert.equal(r.status, 0, `pg_ctl ${args.join(' ')}: ${r.stdout}${r.stderr}`);
};
const startPg = () => pgCtl('-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, '-l', join(dir, 'pg.log'), 'start');
const stopPg = () => pgCtl('-m', 'fast', 'stop');

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'paycall-pg-'));
  chmodSync(dir, 0o755);
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const init = asOwner(join(pgBin!, 'initdb'), ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync']);
  assert.equal(init.status, 0, init.stderr);
  port = await freePort();
  startPg();
  devnet = await startTestDevnet();
  const config = { ...testConfig({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`, TOOL_WORKERS: '1', PAYMENT_POLL_TIMEOUT_MS: '1500', PAYMENT_POLL_INTERVAL_MS: '200' }), chains: devnet.chains };
  app = await startTestApp(config);
});

after(async () => {
  if (skip) return;
  await app?.close().catch(() => undefined);
  await devnet?.stop();
  if (dir && existsSync(join(dir, 'data', 'postmaster.pid'))) asOwner(join(pgBin!, 'pg_ctl'), ['-D', join(dir, 'data'), '-m', 'immediate', 'stop']);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Polls until `check` holds; the test's timeout bounds it (no fixed waits). */
const until = async (check: () => Promise<boolean>) => {
  while (!(await check())) await new Promise((r) => setTimeout(r, 100));
};
const health = async () => {
  const res = await fetch(`${app.baseUrl}/v1/_health`);
  return { status: res.status, body: (await res.json()) as { status: string; checks: { database: { ok: boolean } } } };
};

test('PostgreSQL stops and starts under load: every request answered, health 503 while down, recovery by itself, the paid answer kept', { skip, timeout: 180_000 }, async () => {
  // A call paid before the outage.
  const base = devnet.info.chains.base;
  const pdf = await makePdf(1, 'pg-restart');
  const quote = await callTool(app.baseUrl, '/v1/pdf-text', pdf);
  assert.equal(quote.status, 402);
  const amount = BigInt(quote.body.accepts.find((a: { network: string }) => a.network === 'base').maxAmountRequired);
  const txHash = await evmTransferUsdc({ rpcUrl: base.rpcUrl, chainId: base.chainId, usdc: base.usdc, privateKey: devnet.info.accounts[2].evmPrivateKey, to: base.payTo, amount });
  const proof = { 'x-payment': xPayment('base', 'exact', { tx_hash: txHash }) };
  const paid = await callTool(app.baseUrl, '/v1/pdf-text', pdf, proof);
  assert.equal(paid.status, 200, JSON.stringify(paid.body));

  // Steady load: the catalog lookup of a seller path (a database read) and the health check.
  let phase: 'up' | 'down' | 'restarting' | 'back' = 'up';
  const answers: { phase: string; status: number | 'no answer'; error?: string }[] = [];
  let running = true;
  const load = (async () => {
    while (running) {
      for (const path of ['/v1/acme/parse', '/v1/_health']) {
        // A request counts for a phase only if it started and ended in it.
        const at = phase;
        const tag = () => (phase === at ? at : 'transition');
        try {
          const res = await fetch(`${app.baseUrl}${path}`, { method: path === '/v1/_health' ? 'GET' : 'POST', headers: { 'content-type': 'application/json' }, body: path === '/v1/_health' ? undefined : '{}' });
          const body = (await res.json()) as { error?: string };
          answers.push({ phase: tag(), status: res.status, error: body.error });
        } catch (e) {
          answers.push({ phase: tag(), status: 'no answer', error: String(e) });
        }
      }
    }
  })();

  await until(async () => answers.length >= 10);
  stopPg();
  phase = 'restarting';
  await until(async () => (await health()).status === 503);
  phase = 'down';
  const down = await health();
  assert.equal(down.body.status, 'down');
  assert.equal(down.body.checks.database.ok, false);
  await until(async () => answers.filter((a) => a.phase === 'down').length >= 10);

  // Answers while it starts again may be either; they are not looked at below.
  phase = 'restarting';
  startPg();
  await until(async () => (await health()).status === 200);
  phase = 'back';
  await until(async () => answers.filter((a) => a.phase === 'back' && a.status === 404).length >= 3);
  running = false;
  await load;

  // Every request got an HTTP answer, before, during and after.
  assert.deepEqual(answers.filter((a) => a.status === 'no answer'), []);
  assert.ok(answers.filter((a) => a.phase === 'up').every((a) => a.status === 404 || a.status === 200));
  const during = answers.filter((a) => a.phase === 'down');
  assert.ok(during.some((a) => a.status === 503), 'health answers 503 while the database is down');
  assert.ok(during.every((a) => typeof a.status === 'number' && a.status >= 400), JSON.stringify(during));
  assert.ok(answers.filter((a) => a.phase === 'back').every((a) => a.status === 404 || a.status === 200), 'recovered by itself');

  // The paid answer survived the restart: the same proof replays it; one ledger row.
  const replay = await callTool(app.baseUrl, '/v1/pdf-text', pdf, proof);
  assert.equal(replay.status, 200);
  assert.equal(replay.headers.get('x-idempotent-replay'), 'true');
  assert.deepEqual(replay.body, paid.body);
  const sql = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await sql.connect();
  try {
    assert.equal((await sql.query('select count(*)::int as n from payment where tx = $1', [txHash])).rows[0].n, 1);
  } finally {
    await sql.end();
  }
  // What the database outage looked like to clients, for the record (a 500 here is a gap: it should be 503).
  const statuses = [...new Set(during.map((a) => `${a.status} ${a.error}`))];
  console.log(`# answers while PostgreSQL was down: ${statuses.join(', ')}`);
});

test('while PostgreSQL is down, database reads answer 503, not 500', { skip }, async () => {
  stopPg();
  try {
    await until(async () => (await health()).status === 503);
    const res = await fetch(`${app.baseUrl}/v1/acme/parse`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(res.status, 503);
  } finally {
    startPg();
    await until(async () => (await health()).status === 200);
  }
});
