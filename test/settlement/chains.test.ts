/**
 * Settlement on the devnet chains with the real payout senders: at "midnight" each seller's net
 * earnings arrive in its wallet as USDC on its payout chain (read back from the chain), the
 * money identities hold at every step (payouts in flight included), a seller below the minimum
 * is carried over, a requested payout goes the same way, the payout-only chains (arbitrum, optimism,
 * avalanche: devnet nodes started on first use) pay too, and a payout the treasury cannot cover
 * fails, is retried with back-off and does not hold the others.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.ts';
import { call, register, solanaSigner } from '../helpers/sellers.ts';
import { assertIdentities, balances, freshAddress, insertEarnings, insertSeller, movableClock, requestPayoutBody, settleUntil, usdcOn } from '../helpers/settlement.ts';
import { evmTransferUsdc } from '../../devnet/buyer.ts';
import type { HookPoint } from '../../src/settlement/payout-worker.ts';

let devnet: TestDevnet;
let db: TestDatabase;
let t: TestApp;
let c: pg.Client;
const clock = movableClock();
const hooks: ((point: HookPoint, p: { id: number; chain: string }) => Promise<void>)[] = [];

before(async () => {
  devnet = await startTestDevnet();
  db = await createTestDatabase('settle_chains');
  t = await startTestApp({ ...testConfig({ DATABASE_URL: db.url, SCHEDULER_TICK_MS: '0', PAYOUT_RETRY_BASE_MS: '200', PAYOUT_POLL_MS: '50' }), chains: devnet.chains }, undefined, {
    now: clock.now,
    settlementHooks: { at: async (point, p) => { for (const h of hooks) await h(point, p); } },
  });
  c = new pg.Client({ connectionString: db.url });
  await c.connect();
});
after(async () => {
  await c?.end();
  await t?.close();
  await db?.drop();
  await devnet?.stop();
});

const allFinal = async () => (await c.query(`select count(*)::int as n from payout where status <> 'sent'`)).rows[0].n === 0;
const CHAINS = ['base', 'polygon', 'solana'] as const;

test('midnight: USDC arrives in each seller wallet on base, polygon and solana; small balances carry over; identities at every step', { timeout: 120_000 }, async () => {
  const sellers: { id: number; wallet: string; chain: (typeof CHAINS)[number] }[] = [];
  for (const chain of CHAINS) {
    const wallet = await freshAddress(chain);
    const id = await insertSeller(c, { wallet, chain });
    await insertEarnings(c, id, [1_230_000n, 45_678n], { takeBps: chain === 'polygon' ? 400 : 300 });
    sellers.push({ id, wallet, chain });
  }
  const smallWallet = await freshAddress('solana');
  const small = await insertSeller(c, { wallet: smallWallet, chain: 'solana' });
  await insertEarnings(c, small, [9_000n]);

  const steps: string[] = [];
  hooks.push(async (point, p) => {
    const s = sellers.find((x) => x.chain === p.chain)!;
    const b = await balances(c, s.id);
    assertIdentities(b, assert, `${p.chain} ${point}`);
    const onChain = await usdcOn(devnet.chains, s.chain, s.wallet);
    if (point === 'claimed' || point === 'before-send') assert.equal(onChain, 0n, `nothing sent yet (${p.chain} ${point})`);
    if (point !== 'after-confirm') assert.equal(b.settled, 0n);
    steps.push(`${p.chain}:${point}`);
  });
  clock.toNextMidnight();
  await settleUntil(t.app, allFinal);
  hooks.length = 0;
  assert.equal(steps.length, 12, steps.join(' '));

  for (const s of sellers) {
    const b = await balances(c, s.id);
    assertIdentities(b, assert, s.chain);
    assert.equal(b.withdrawable, 0n);
    assert.equal(await usdcOn(devnet.chains, s.chain, s.wallet), b.earned, `${s.chain}: the net earnings arrived`);
    const [p] = (await c.query(`select chain, wallet, status, tx from payout where seller_id = $1`, [s.id])).rows;
    assert.deepEqual([p.chain, p.wallet, p.status], [s.chain, s.wallet, 'sent']);
  }
  assert.equal((await balances(c, small)).withdrawable, 8_730n, 'carried over');
  assert.equal(await usdcOn(devnet.chains, 'solana', smallWallet), 0n);
});

test('a requested payout is sent on the seller payout chain to its registered wallet', { timeout: 60_000 }, async () => {
  const s = solanaSigner();
  assert.equal((await register(t.baseUrl, s, 'chain-payee')).status, 201);
  const id = (await c.query('select id from seller where wallet = $1', [s.wallet])).rows[0].id;
  await insertEarnings(c, id, [555_000n]);
  const r = await call(t.baseUrl, 'requestPayout', 'POST', `/v1/_seller/${s.wallet}/payouts`, { body: await requestPayoutBody(s) });
  assert.equal(r.status, 202);
  assert.equal(r.body.to, s.wallet);
  await settleUntil(t.app, allFinal);
  assert.equal(await usdcOn(devnet.chains, 'solana', s.wallet), 538_350n);
  assertIdentities(await balances(c, id), assert);
});

test('a payout the treasury cannot cover fails with back-off, the others are paid; once funded it is paid once', { timeout: 120_000 }, async () => {
  const treasury = devnet.extras.addresses.evmTreasury;
  const have = await usdcOn(devnet.chains, 'base', treasury);
  const bigWallet = await freshAddress('base');
  const big = await insertSeller(c, { wallet: bigWallet, chain: 'base' });
  // Net just above what the treasury holds.
  await insertEarnings(c, big, [((have + 1_000_000n) * 10000n) / 9700n + 1n]);
  const others: { id: number; wallet: string; chain: 'base' | 'polygon' }[] = [];
  for (const chain of ['base', 'polygon'] as const) {
    const wallet = await freshAddress(chain);
    const id = await insertSeller(c, { wallet, chain });
    await insertEarnings(c, id, [777_000n]);
    others.push({ id, wallet, chain });
  }
  clock.toNextMidnight();
  await settleUntil(t.app, async () => (await c.query(`select count(*)::int as n from payout where status = 'sent' and seller_id = any($1)`, [others.map((o) => o.id)])).rows[0].n === 2);
  for (const o of others) assert.equal(await usdcOn(devnet.chains, o.chain, o.wallet), 753_690n, `${o.chain} seller paid meanwhile`);
  const [p] = (await c.query(`select status, error, attempts, tx from payout where seller_id = $1`, [big])).rows;
  assert.equal(p.status, 'failed');
  assert.ok(p.error, 'the reason is kept');
  assert.ok(p.attempts >= 1);
  assertIdentities(await balances(c, big), assert, 'failing');
  const m = await (await fetch(`${t.metricsUrl}/metrics`)).text();
  assert.match(m, /paycall_payouts_total\{chain="base",outcome="failed"\} [1-9]/);

  // The operator tops the treasury up: the next attempt pays it, once.
  for (const i of [0, 1]) {
    const a = devnet.info.accounts[i];
    await evmTransferUsdc({ rpcUrl: devnet.chains.base.rpcUrl, chainId: devnet.chains.base.chainId, usdc: devnet.chains.base.usdc, privateKey: a.evmPrivateKey, to: treasury, amount: 900_000n * 10n ** 6n });
  }
  await settleUntil(t.app, allFinal, 60_000);
  const b = await balances(c, big);
  assertIdentities(b, assert, 'funded');
  assert.equal(await usdcOn(devnet.chains, 'base', bigWallet), b.earned);
});

test('the payout-only chains: arbitrum, optimism and avalanche sellers are paid in USDC there', { timeout: 240_000 }, async () => {
  const sellers = [];
  for (const chain of ['arbitrum', 'optimism', 'avalanche'] as const) {
    const wallet = await freshAddress(chain);
    // Shape A lists the wallet for the payout chain itself.
    const id = await insertSeller(c, { wallet, chain });
    await insertEarnings(c, id, [2_000_000n, 1n]);
    sellers.push({ id, wallet, chain });
  }
  clock.toNextMidnight();
  await settleUntil(t.app, allFinal, 180_000);
  for (const s of sellers) {
    const b = await balances(c, s.id);
    assertIdentities(b, assert, s.chain);
    assert.equal(b.withdrawable, 0n);
    assert.equal(await usdcOn(devnet.chains, s.chain, s.wallet), b.earned, `${s.chain}: the net earnings arrived`);
  }
});

test('two instances at midnight with the real senders, and requested payouts racing them: one run, every seller paid once', { timeout: 180_000 }, async () => {
  // A second instance on the same database and chains (its own senders: the treasury's nonces
  // are contended between processes as in production).
  const second = await startTestApp({ ...testConfig({ DATABASE_URL: db.url, SCHEDULER_TICK_MS: '0', PAYOUT_RETRY_BASE_MS: '200', PAYOUT_POLL_MS: '50' }), chains: devnet.chains }, undefined, { now: clock.now });
  try {
    const sellers: { id: number; wallet: string; chain: (typeof CHAINS)[number]; signer?: ReturnType<typeof solanaSigner> }[] = [];
    for (const [i, chain] of [...CHAINS, ...CHAINS].entries()) {
      const wallet = await freshAddress(chain);
      const id = await insertSeller(c, { wallet, chain });
      await insertEarnings(c, id, [600_000n + BigInt(i)]);
      sellers.push({ id, wallet, chain });
    }
    // Two registered Solana sellers request a payout while both instances run midnight.
    for (const [i, s] of [solanaSigner(), solanaSigner()].entries()) {
      assert.equal((await register(t.baseUrl, s, `racer-${i}-${Date.now() % 100000}`)).status, 201);
      const id = (await c.query('select id from seller where wallet = $1', [s.wallet])).rows[0].id;
      await insertEarnings(c, id, [400_000n]);
      sellers.push({ id, wallet: s.wallet, chain: 'solana', signer: s });
    }
    clock.toNextMidnight();
    const day = clock.now().toISOString().slice(0, 10);
    await Promise.all([
      t.app.runScheduledJobs(),
      second.app.runScheduledJobs(),
      ...sellers.filter((s) => s.signer).map(async (s) => call(t.baseUrl, 'requestPayout', 'POST', `/v1/_seller/${s.wallet}/payouts`, { body: await requestPayoutBody(s.signer!) })),
    ]);
    await Promise.all([settleUntil(t.app, allFinal, 120_000), settleUntil(second.app, allFinal, 120_000)]);
    assert.equal((await c.query('select count(*)::int as n from settlement_run where day = $1', [day])).rows[0].n, 1);
    for (const s of sellers) {
      const b = await balances(c, s.id);
      assertIdentities(b, assert, s.chain);
      assert.equal(b.withdrawable, 0n);
      assert.equal(await usdcOn(devnet.chains, s.chain, s.wallet), b.earned, `${s.chain}: paid exactly once`);
      assert.equal((await c.query(`select count(*)::int as n from payout where seller_id = $1`, [s.id])).rows[0].n, 1);
    }
  } finally {
    await second.close();
  }
});
