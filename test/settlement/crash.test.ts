/**
 * Crash safety with real processes and real chains: the settlement runs in a child process
 * (test/fixtures/settlement-crash.ts, the real app) that SIGKILLs itself at a named point of the
 * payout path: intent written (claimed), transaction recorded not broadcast (before-send),
 * broadcast not confirmed (after-send), confirmed on chain with rows not marked (after-confirm).
 * A normal restart then finishes, and each seller (one on each of the six payout chains) has
 * been paid exactly once, as the chain shows. Between the two runs the money identities hold.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.ts';
import { assertIdentities, balances, freshAddress, insertEarnings, insertSeller, usdcOn } from '../helpers/settlement.ts';
import { openDatabase } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/log.ts';
import { PAYOUT_ONLY_CHAINS } from '../../src/chains/usdc-addresses.ts';
import { PAYOUT_CHAINS } from '../../src/chains/payout-sender.ts';

let devnet: TestDevnet;
let db: TestDatabase;
let c: pg.Client;

before(async () => {
  devnet = await startTestDevnet();
  // The payout-only chains start on first use; started here, the children find them in devnet.json.
  await Promise.all(PAYOUT_ONLY_CHAINS.map((chain) => devnet.ensureChain(chain)));
  db = await createTestDatabase('settle_crash');
  // Migrations once, before the children race to apply them.
  await (await openDatabase({ databaseUrl: db.url, pgliteDir: '', log: silentLogger })).close(true);
  c = new pg.Client({ connectionString: db.url });
  await c.connect();
});
after(async () => {
  await c?.end();
  await db?.drop();
  await devnet?.stop();
});

function runSettlement(env: Record<string, string>): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/settlement-crash.ts'], {
      env: { ...process.env, DATABASE_URL: db.url, PAYCALL_DATA_DIR: devnet.dataDir, LOG_LEVEL: 'warn', PAYOUT_LEASE_MS: '1500', PAYOUT_POLL_MS: '50', PAYOUT_RETRY_BASE_MS: '200', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('exit', (code, signal) => resolve({ code, signal, out }));
  });
}

const CHAINS = PAYOUT_CHAINS;

for (const [i, point] of (['claimed', 'before-send', 'after-send', 'after-confirm'] as const).entries()) {
  test(`SIGKILL at ${point}, then a restart: every seller paid exactly once`, { timeout: 180_000 }, async () => {
    const sellers = [];
    for (const chain of CHAINS) {
      const wallet = await freshAddress(chain);
      const id = await insertSeller(c, { wallet, chain });
      await insertEarnings(c, id, [1_000_000n + BigInt(i) * 10_000n, 20_000n]);
      sellers.push({ id, wallet, chain });
    }
    // Each test is its own settlement day.
    const days = String(i + 1);
    const crashed = await runSettlement({ CRASH_AT: point, CLOCK_DAYS: days });
    assert.equal(crashed.signal, 'SIGKILL', crashed.out);
    assert.match(crashed.out, new RegExp(`crashing at ${point}`));
    for (const s of sellers) assertIdentities(await balances(c, s.id), assert, `after the crash (${s.chain})`);
    const [{ n }] = (await c.query(`select count(*)::int as n from payout where status <> 'sent'`)).rows;
    assert.ok(n >= 1, 'the crash left an unfinished payout');

    const restarted = await runSettlement({ CLOCK_DAYS: days });
    assert.equal(restarted.code, 0, restarted.out);
    for (const s of sellers) {
      const b = await balances(c, s.id);
      assertIdentities(b, assert, `after the restart (${s.chain})`);
      assert.equal(b.withdrawable, 0n);
      assert.equal(await usdcOn(devnet.chains, s.chain, s.wallet), b.earned, `${s.chain}: paid exactly once`);
      const ps = (await c.query(`select status from payout where seller_id = $1`, [s.id])).rows;
      assert.deepEqual(ps, [{ status: 'sent' }]);
    }
  });
}
