/**
 * Fault: SIGTERM (a redeploy, `docker compose stop`) while paid calls are running. The real
 * service process (src/main.ts, on the devnet's chains and a PostgreSQL database) receives
 * SIGTERM once its workers have started the paid jobs; every paid call still gets its 200
 * answer, each has its one ledger row, and the process exits 0 after draining.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { evmTransferUsdc } from '../../devnet/buyer.ts';
import { startServiceProcess } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.ts';
import { callTool, makePdf, xPayment } from '../helpers/paid.ts';

let devnet: TestDevnet;
let db: TestDatabase;
before(async () => {
  devnet = await startTestDevnet();
  db = await createTestDatabase('ops_sigterm');
});
after(async () => {
  await db?.drop();
  await devnet?.stop();
});

/** Resolves once `pattern` has matched `count` times in the output (the test's timeout bounds it). */
const waitFor = async (output: () => string, pattern: RegExp, count: number) => {
  while ((output().match(pattern) ?? []).length < count) await new Promise((r) => setTimeout(r, 20));
};

test('SIGTERM while paid calls run: each still answers 200 with its result, one ledger row each, exit 0', { timeout: 180_000 }, async () => {
  const svc = await startServiceProcess({
    DATABASE_URL: db.url,
    PAYCALL_START_DEVNET: '0',
    PAYCALL_DATA_DIR: devnet.dataDir,
    LOG_LEVEL: 'info',
    TOOL_WORKERS: '2',
    RATE_LIMITS: 'off',
    SHUTDOWN_TIMEOUT_MS: '120000',
  });
  const exited = new Promise<number | null>((resolve) => svc.child.once('exit', (code) => resolve(code)));
  const base = devnet.info.chains.base;
  // Documents big enough that their runs are still going when the signal arrives.
  const pdfs = await Promise.all([0, 1, 2].map((i) => makePdf(150, `sigterm-${i}`)));
  const proofs: { header: Record<string, string>; tx: string }[] = [];
  for (const [i, pdf] of pdfs.entries()) {
    const quote = await callTool(svc.url, '/v1/pdf-text', pdf);
    assert.equal(quote.status, 402);
    const amount = BigInt(quote.body.accepts.find((a: { network: string }) => a.network === 'base').maxAmountRequired);
    const tx = await evmTransferUsdc({ rpcUrl: base.rpcUrl, chainId: base.chainId, usdc: base.usdc, privateKey: devnet.info.accounts[i].evmPrivateKey, to: base.payTo, amount });
    proofs.push({ header: { 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) }, tx });
  }

  const started = (svc.output().match(/"msg":"tool job started"/g) ?? []).length;
  let finished = 0;
  const calls = pdfs.map((pdf, i) =>
    callTool(svc.url, '/v1/pdf-text', pdf, proofs[i].header).then((r) => {
      finished++;
      return r;
    }),
  );
  // The paid jobs are on the workers: now the signal.
  await waitFor(svc.output, /"msg":"tool job started"/g, started + 2);
  const inFlight = pdfs.length - finished;
  svc.child.kill('SIGTERM');

  const answers = await Promise.all(calls);
  assert.ok(inFlight >= 1, `paid calls in flight when SIGTERM arrived: ${inFlight}`);
  for (const [i, a] of answers.entries()) {
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.match(a.body.text, new RegExp(`sigterm-${i} page 150`));
  }
  assert.equal(await exited, 0, svc.output().slice(-2000));
  assert.match(svc.output(), /"msg":"shutting down".*"(signal|reason)":"SIGTERM"/);
  assert.match(svc.output(), /"msg":"stopped"/);

  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  try {
    for (const { tx } of proofs) assert.equal((await sql.query('select count(*)::int as n from payment where tx = $1', [tx])).rows[0].n, 1, tx);
  } finally {
    await sql.end();
  }
});
