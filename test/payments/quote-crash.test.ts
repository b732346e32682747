/**
 * A 402 quote survives the death of the process that sent it (issue 26, items 1 and 4): the
 * real service process (src/main.ts, which holds the port itself) quotes unpaid calls and is
 * SIGKILLed the moment the first 402 arrives. The buyer pays each quote it received honestly on
 * the devnet (running in this test process, so it outlives the service), the service is
 * restarted on the same data, and the paid retry is served 200 with its ledger row. On PGlite
 * (its data directory) and on PostgreSQL.
 *
 * Before the group commit, quotes waited 20 ms in memory after their 402 had gone out: the
 * retry was answered 402 quote_expired and the USDC sat in payTo with no call.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startServiceProcess } from '../helpers/app.ts';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { makePdf, xPayment } from '../helpers/paid.ts';
import { evmTransferUsdc } from '../../devnet/buyer.ts';
import { openDatabase } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/log.ts';

/** Unpaid calls sent at once, so that the killed write is a group of several quotes. */
const CALLS = 4;

let devnet: TestDevnet;
let dir: string;
let db: TestDatabase;
before(async () => {
  devnet = await startTestDevnet();
  dir = await mkdtemp(join(tmpdir(), 'paycall-quote-crash-'));
  db = await createTestDatabase('quote_crash');
});
after(async () => {
  await db?.drop();
  await devnet?.stop();
  await rm(dir, { recursive: true, force: true });
});

interface Quoted {
  pdf: Buffer;
  amount: bigint;
}

/**
 * Sends CALLS unpaid calls at once and SIGKILLs the service as soon as the first 402's headers
 * arrive (before its body is even read). Answers the quotes that reached the buyer: each is an
 * offer the buyer may pay.
 */
async function quoteThenKill(url: string, child: import('node:child_process').ChildProcess, pdfs: Buffer[]): Promise<Quoted[]> {
  const exited = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
  let killed = false;
  const u = new URL(`${url}/v1/pdf-text`);
  const one = (pdf: Buffer) =>
    new Promise<Quoted | null>((resolve) => {
      const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/pdf', 'content-length': pdf.length } }, (res) => {
        if (res.statusCode === 402 && !killed) {
          killed = true;
          child.kill('SIGKILL');
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode !== 402) return resolve(null);
          const quote = JSON.parse(Buffer.concat(chunks).toString()) as { accepts: { maxAmountRequired: string }[] };
          resolve({ pdf, amount: BigInt(quote.accepts[0].maxAmountRequired) });
        });
        // A 402 whose body the kill cut off never reached the buyer as an offer.
        res.on('error', () => resolve(null));
        res.on('aborted', () => resolve(null));
      });
      req.on('error', () => resolve(null));
      req.end(pdf);
    });
  const answers = await Promise.all(pdfs.map(one));
  assert.ok(killed, 'a 402 arrived and the service was killed');
  await exited;
  assert.equal(child.signalCode, 'SIGKILL');
  return answers.filter((a): a is Quoted => a !== null);
}

async function crashAfterQuote(t: import('node:test').TestContext, env: Record<string, string>, label: string, ledger: (txs: string[]) => Promise<number>) {
  const t0 = performance.now();
  const step = (what: string) => process.env.QUOTE_CRASH_DEBUG && process.stderr.write(`${label} +${Math.round(performance.now() - t0)} ms: ${what}\n`);
  const pdfs = await Promise.all(Array.from({ length: CALLS }, (_, i) => makePdf(1, `${label} quote ${i}`)));
  const first = await startServiceProcess(env);
  step('first service listening');
  const quoted = await quoteThenKill(first.url, first.child, pdfs);
  assert.ok(quoted.length >= 1, 'the first 402 reached the buyer whole');
  step(`killed after ${quoted.length} quotes`);

  // The buyer pays every quote it holds, honestly, while the service is down.
  const base = devnet.info.chains.base;
  const txs: string[] = [];
  for (const q of quoted) {
    txs.push(await evmTransferUsdc({ rpcUrl: base.rpcUrl, chainId: base.chainId, usdc: base.usdc, privateKey: devnet.info.accounts[0].evmPrivateKey, to: base.payTo, amount: q.amount }));
  }

  step('paid');
  const second = await startServiceProcess(env);
  step('second service listening');
  try {
    for (const [i, q] of quoted.entries()) {
      const paid = await fetch(`${second.url}/v1/pdf-text`, { method: 'POST', headers: { 'content-type': 'application/pdf', 'x-payment': xPayment('base', 'exact', { tx_hash: txs[i] }) }, body: new Uint8Array(q.pdf) });
      const body = await paid.text();
      assert.equal(paid.status, 200, `quote ${i} of ${quoted.length}: ${body.slice(0, 300)}`);
      assert.match(body, new RegExp(`${label} quote`));
    }
  } finally {
    second.child.kill('SIGTERM');
    await new Promise((r) => (second.child.exitCode !== null ? r(null) : second.child.once('exit', r)));
  }
  step('served and stopped');
  assert.equal(await ledger(txs), quoted.length, 'every paid quote has its ledger row');
  t.diagnostic(`${label}: ${quoted.length} of ${CALLS} quotes reached the buyer before the kill; all paid and served after the restart`);
}

const serviceEnv = (extra: Record<string, string>) => ({
  PAYCALL_PROFILE: 'devnet',
  PAYCALL_START_DEVNET: '0',
  PAYCALL_DATA_DIR: devnet.dataDir,
  RATE_LIMITS: 'off',
  TOOL_WORKERS: '1',
  LOG_LEVEL: 'info',
  ...extra,
});

test('PGlite: a 402 answered just before a SIGKILL is honoured after the restart', { timeout: 600_000 }, async (t) => {
  const pgliteDir = join(dir, 'pglite');
  await crashAfterQuote(t, serviceEnv({ DATABASE_URL: '', PGLITE_DIR: pgliteDir }), 'pglite', async (txs) => {
    const orm = await openDatabase({ databaseUrl: null, pgliteDir, migrate: false, log: silentLogger });
    try {
      const rows = await orm.em.getConnection().execute<{ tx: string }[]>('select lower(tx) as tx from payment');
      return rows.filter((r: { tx: string }) => txs.some((tx) => tx.toLowerCase() === r.tx)).length;
    } finally {
      await orm.close(true);
    }
  });
});

test('PostgreSQL: a 402 answered just before a SIGKILL is honoured after the restart', { timeout: 600_000 }, async (t) => {
  await crashAfterQuote(t, serviceEnv({ DATABASE_URL: db.url }), 'postgres', async (txs) => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      return (await c.query('select count(*)::int as n from payment where lower(tx) = any($1)', [txs.map((tx) => tx.toLowerCase())])).rows[0].n;
    } finally {
      await c.end();
    }
  });
});
