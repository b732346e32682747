/**
 * The settlement worker killed with kill -9 in the middle of payouts while another instance
 * runs: two service processes on one PostgreSQL database, on the devnet chains.
 *
 * Instance A (test/fixtures/settlement-crash.ts with HOLD_AT: createApp and listen, as
 * src/main.ts runs it, plus a hook) runs the day's settlement and stops inside the first
 * payout of each chain: on base and solana once the transaction is broadcast and not yet
 * marked (after-send), on polygon once it is signed and recorded but not broadcast
 * (before-send); the second payout of each chain is leased and not started. Instance B
 * (src/main.ts) starts beside it and must leave A's leased payouts alone. The test kills A
 * with SIGKILL; once A's payout lease (PAYOUT_LEASE_MS) has run out, B takes the payouts over
 * and finishes them.
 *
 * What must hold: every seller's wallet received its earnings exactly once (read from the
 * chain); the transactions A recorded are the ones that count (B looks a recorded transaction
 * up, or broadcasts the same one, before it signs anything); one 'sent' payout per seller and
 * the ledger's money identities. The diagnostics line gives the time to takeover.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.ts';
import { startServiceProcess } from '../helpers/app.ts';
import { eventually } from '../helpers/sellers.ts';
import { assertIdentities, balances, freshAddress, insertEarnings, insertSeller, usdcOn } from '../helpers/settlement.ts';
import { openDatabase } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/log.ts';
import type { PayoutChain } from '../../src/chains/payout-sender.ts';

/** How long an instance holds a payout it leased (documented default 300 s; short here). */
const LEASE_MS = 3000;
/** The chains started with every devnet (the payout-only ones would cost a node each). */
const HOLD: Record<string, string> = { base: 'after-send', polygon: 'before-send', solana: 'after-send' };
const CHAINS = Object.keys(HOLD) as PayoutChain[];

let devnet: TestDevnet;
let db: TestDatabase;
let c: pg.Client;
const children: ChildProcess[] = [];

before(async () => {
  devnet = await startTestDevnet();
  db = await createTestDatabase('settle_two');
  // Migrations once, before two processes race to apply them.
  await (await openDatabase({ databaseUrl: db.url, pgliteDir: '', log: silentLogger })).close(true);
  c = new pg.Client({ connectionString: db.url });
  await c.connect();
});
after(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await c?.end();
  await db?.drop();
  await devnet?.stop();
});

/** Whether a transaction is on chain, read from the chain's JSON-RPC. */
async function landed(chain: PayoutChain, tx: string): Promise<boolean> {
  const rpc = async (url: string, method: string, params: unknown[]) => {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    return ((await r.json()) as { result: any }).result;
  };
  if (chain === 'solana') return (await rpc(devnet.info.chains.solana.rpcUrl, 'getSignatureStatuses', [[tx], { searchTransactionHistory: true }])).value[0] !== null;
  return (await rpc(devnet.info.chains[chain as 'base' | 'polygon'].rpcUrl, 'eth_getTransactionReceipt', [tx])) !== null;
}

const env = () => ({
  DATABASE_URL: db.url,
  PAYCALL_DATA_DIR: devnet.dataDir,
  PAYCALL_START_DEVNET: '0',
  METRICS_PORT: '0',
  LOG_LEVEL: 'info',
  RATE_LIMITS: 'off',
  SCHEDULER_TICK_MS: '100',
  PAYOUT_LEASE_MS: String(LEASE_MS),
  PAYOUT_POLL_MS: '50',
  PAYOUT_RETRY_BASE_MS: '200',
  // No seller endpoints here: keep the probes out of the way.
  HEALTH_PROBE_INTERVAL_MS: '600000',
});

test('kill -9 of the instance paying out, another instance running: it takes the payouts over after the lease, each seller paid once', { timeout: 120_000 }, async (t) => {
  const sellers: { id: number; wallet: string; chain: PayoutChain }[] = [];
  for (const chain of CHAINS) {
    for (let k = 0; k < 2; k++) {
      const wallet = await freshAddress(chain);
      const id = await insertSeller(c, { wallet, chain });
      await insertEarnings(c, id, [1_000_000n + BigInt(k) * 10_000n, 30_000n]);
      sellers.push({ id, wallet, chain });
    }
  }

  // Both instances start at once. A (tomorrow's settlement: its clock one day ahead) waits for
  // a word on stdin before it listens; B (the real service) starts its scheduler at once.
  const a = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/settlement-crash.ts'], {
    env: { ...process.env, ...env(), CLOCK_DAYS: '1', HOLD_AT: Object.entries(HOLD).map(([k, v]) => `${k}:${v}`).join(',') },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(a);
  let aOut = '';
  a.stdout!.on('data', (d) => (aOut += d));
  a.stderr!.on('data', (d) => (aOut += d));
  const b = await startServiceProcess(env());
  children.push(b.child);
  // B has run a scheduler pass: its own daily settlement of today (nothing before its cut-off)
  // is written, so no transaction of it is open when B is paused below (one left open would
  // hold locks that A's claim waits for).
  await eventually('B runs its scheduler', async () => /"msg":"daily settlement written/.test(b.output()), 30_000);
  await eventually('A is ready', async () => aOut.includes('instance ready') || a.exitCode !== null, 60_000);
  assert.equal(a.exitCode, null, aOut);
  // B is paused (SIGSTOP) while A writes the day's payouts and leases them, so that they are
  // A's (between the two statements B's next pass could lease them first); B runs again
  // before the kill, so it is a running instance that must leave A's leases alone.
  b.child.kill('SIGSTOP');
  a.stdin!.end('go\n');
  await eventually('A holds a payout of every chain', async () => (aOut.match(/holding at/g) ?? []).length === CHAINS.length || a.exitCode !== null, 60_000);
  assert.equal(a.exitCode, null, aOut);
  b.child.kill('SIGCONT');
  // A pass of B while A holds its leases (a pass runs every 100 ms; its settlement task first
  // works due payouts, and A's are not due).
  await new Promise((r) => setTimeout(r, 500));

  const held = (await c.query(`select id, chain, tx, status, extract(epoch from next_attempt_at) * 1000 as lease_end_ms from payout order by id`)).rows;
  assert.equal(held.length, sellers.length, 'one payout per seller, written by A');
  const recorded = new Map(held.filter((p) => p.tx).map((p) => [Number(p.id), p.tx as string]));
  // A recorded a transaction for the first payout of each chain (before-send and after-send).
  assert.deepEqual([...new Set(held.filter((p) => p.tx).map((p) => p.chain))].sort(), [...CHAINS].sort());
  const leaseEndMs = Math.max(...held.map((p) => Number(p.lease_end_ms)));
  const [{ held_at_kill }] = (await c.query(`select bool_and(next_attempt_at > now()) and bool_and(status <> 'sent') as held_at_kill from payout`)).rows;

  const killedAt = Date.now();
  a.kill('SIGKILL');
  await new Promise((r) => a.once('exit', r));
  assert.equal(a.signalCode, 'SIGKILL');

  await eventually('B finishes every payout', async () => (await c.query(`select count(*)::int as n from payout where status = 'sent'`)).rows[0].n === sellers.length, 60_000);
  const doneAt = Date.now();
  // B logs a confirmation after its row is marked sent, and its log lines go out at the end of
  // the event loop's turn: the last ones may still be on their way when the rows say sent.
  const confirmations = () => b.output().split('\n').filter((l) => l.includes('"msg":"payout confirmed"')).length;
  await eventually('B logs every confirmation', async () => confirmations() >= sellers.length, 10_000).catch(() => undefined);
  assert.equal(confirmations(), sellers.length, 'B confirmed every payout');

  for (const s of sellers) {
    const bal = await balances(c, s.id);
    assertIdentities(bal, assert, `(${s.chain})`);
    assert.equal(bal.withdrawable, 0n);
    assert.equal(await usdcOn(devnet.chains, s.chain, s.wallet), bal.earned, `${s.chain}: paid exactly once, as the chain shows`);
    assert.deepEqual((await c.query(`select status from payout where seller_id = $1`, [s.id])).rows, [{ status: 'sent' }]);
  }
  // A transaction A recorded is either the one sent, or it never landed (B sent the chain's
  // other payout first, with the nonce A's had signed for, so A's expired and B signed anew).
  const final = new Map((await c.query(`select id, chain, tx from payout`)).rows.map((p) => [Number(p.id), p as { chain: PayoutChain; tx: string }]));
  let reused = 0;
  for (const [id, tx] of recorded) {
    const now = final.get(id)!;
    if (now.tx === tx) reused++;
    else assert.equal(await landed(now.chain, tx), false, `payout ${id}: A's transaction ${tx} was replaced by ${now.tx}, so it must never have landed`);
    assert.equal(await landed(now.chain, now.tx), true, `payout ${id}: ${now.tx} landed`);
  }

  t.diagnostic(
    `payouts: ${sellers.length} over ${CHAINS.length} chains (${Object.entries(HOLD).map(([k, v]) => `${k} killed ${v}`).join(', ')}, one more each leased and not started); ` +
      `lease held at the kill: ${held_at_kill}; all paid ${((doneAt - killedAt) / 1000).toFixed(1)} s after the kill, ${((doneAt - leaseEndMs) / 1000).toFixed(1)} s after A's lease (${LEASE_MS / 1000} s) ended; ` +
      `transactions landed: ${final.size}, one per seller; of the ${recorded.size} A had recorded, ${reused} were found and finished by B, ${recorded.size - reused} expired unsent and signed anew`,
  );
});
