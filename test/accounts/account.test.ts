/**
 * GET /v1/account against a ledger written by hand (payment and payout rows inserted with SQL),
 * so every figure is checked against sums computed here, beyond 2^53 and with EVM payers in
 * every letter case. Authorised by a `balance:read` key or a `read_account` signature.
 */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { call, deleteEndpoint, endpointInput, evmSigner, nowS, publish, register, signedQuery, solanaSigner, startUpstream, type TestSigner, type TestUpstream } from '../helpers/sellers.ts';
import { bearer, newKey, signedRevokeHeaders, TEST_API_KEY_SECRET } from '../helpers/keys.ts';
import { accountBalances } from '../../src/accounts/account.ts';
import { openDatabase, sqlOf } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/log.ts';

let db: TestDatabase;
let t: TestApp;
let up: TestUpstream;
let sql: pg.Client;
const seller = evmSigner();
const solSeller = solanaSigner();
const buyer = solanaSigner();
const stranger = evmSigner();

// The hand-computed ledger of `seller` (see before()).
const SETTLED = 960_000n + 9_007_199_254_740_993n;
const WITHDRAWABLE = 485_000n + 123_456_789_012_345_678_901_234_567_890n;
const SELLER_SPENT = 10_000n + 20_000n + 30_000n + 7n;
// The Solana buyer paid the seller 500000 and a built-in 4000 (rows below).
const BUYER_SPENT = 500_000n + 4_000n;

let tx = 0;
/** A ledger row; `delivery` as the seller call leaves it (default: a served call). */
const pay = async (row: { payer: string; amount: bigint; network?: string; sellerId?: number | null; net?: bigint; payoutId?: number | null; buyerWallet?: string | null; delivery?: 'pending' | 'delivered' | 'undelivered' }) => {
  const net = row.net ?? 0n;
  await sql.query(
    `insert into payment (network, tx, payer, amount, quoted_amount, endpoint_path, seller_id, endpoint_id, take_bps, fee, net, payout_id, buyer_wallet, delivery)
     values ($1, $2, $3, $4, $4, '/v1/x/y', $5, null, 400, $6, $7, $8, $9, $10)`,
    [row.network ?? 'base', `0xtx${++tx}`, row.payer, row.amount.toString(), row.sellerId ?? null, (row.amount - net).toString(), net.toString(), row.payoutId ?? null, row.buyerWallet ?? null, row.delivery ?? 'delivered'],
  );
};

before(async () => {
  db = await createTestDatabase('accounts_account');
  up = await startUpstream();
  t = await startTestApp(testConfig({ DATABASE_URL: db.url, SCHEDULER_TICK_MS: '0', ALLOW_LOCAL_UPSTREAMS: '1', API_KEY_SECRET: TEST_API_KEY_SECRET }));
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  assert.equal((await register(t.baseUrl, seller, 'ledger-shop')).status, 201);
  assert.equal((await register(t.baseUrl, solSeller, 'sol-ledger')).status, 201);
  const ids: number[] = [];
  for (const suffix of ['one', 'two', 'three']) {
    const r = await publish(t.baseUrl, seller, endpointInput(up.url, suffix));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    ids.push(r.body.id);
  }
  assert.equal((await deleteEndpoint(t.baseUrl, seller, ids[2])).status, 200);

  const sellerId = (await sql.query('select id from seller where wallet_key = $1', [seller.wallet.toLowerCase()])).rows[0].id;
  // A confirmed payout (the settlement engine sets payout_id on its rows only once confirmed).
  const payoutId = (
    await sql.query(`insert into payout (seller_id, wallet, chain, amount, status, tx, sent_at) values ($1, $2, 'base', $3, 'sent', '0xpayout', now()) returning id`, [sellerId, seller.wallet, SETTLED.toString()])
  ).rows[0].id;
  // As seller: two settled rows, two unsettled ones (amounts past 2^53 and past 2^64).
  await pay({ payer: stranger.wallet, amount: 1_000_000n, sellerId, net: 960_000n, payoutId });
  await pay({ payer: stranger.wallet, amount: 9_400_000_000_000_000n, sellerId, net: 9_007_199_254_740_993n, payoutId, network: 'polygon' });
  await pay({ payer: buyer.wallet, amount: 500_000n, sellerId, net: 485_000n, network: 'solana' });
  await pay({ payer: stranger.wallet, amount: 128_600_000_000_000_000_000_000_000_000n, sellerId, net: 123_456_789_012_345_678_901_234_567_890n });
  // Calls the upstream did not serve (upstream_5xx, upstream_timeout) and one whose outcome was
  // never recorded (a crash between the run and its mark): the seller earns none of them.
  await pay({ payer: stranger.wallet, amount: 20_000n, sellerId, net: 19_200n, delivery: 'undelivered' });
  await pay({ payer: stranger.wallet, amount: 7_000_000n, sellerId, net: 6_720_000n, delivery: 'undelivered', network: 'polygon' });
  await pay({ payer: stranger.wallet, amount: 30_000n, sellerId, net: 28_800n, delivery: 'pending' });
  // As buyer: the same EVM address in three letter cases on two chains, and once named by a pay key.
  await pay({ payer: seller.wallet, amount: 10_000n });
  await pay({ payer: seller.wallet.toLowerCase(), amount: 20_000n, network: 'polygon' });
  await pay({ payer: '0x' + seller.wallet.slice(2).toUpperCase(), amount: 30_000n });
  await pay({ payer: stranger.wallet, amount: 7n, buyerWallet: seller.wallet.toLowerCase() });
  // Solana: base58 is case-sensitive, a lower-cased address is someone else.
  await pay({ payer: buyer.wallet, amount: 4_000n, network: 'solana' });
  await pay({ payer: buyer.wallet.toLowerCase(), amount: 1n, network: 'solana' });
  await pay({ payer: buyer.wallet.toUpperCase(), amount: 2n, network: 'solana' });
});
after(async () => {
  await sql?.end();
  await t?.close();
  await up?.close();
  await db?.drop();
});

const account = (query: string, headers: Record<string, string> = {}) => call(t.baseUrl, 'getAccount', 'GET', `/v1/account${query}`, { headers });
const signedAccount = async (signer: TestSigner, wallet = signer.wallet) => account(`?wallet=${encodeURIComponent(wallet)}&${await signedQuery(signer, 'read_account')}`);

describe('balances', () => {
  test('a seller with a balance:read key: exact sums, earned = settled + withdrawable, scopes shown', async () => {
    const { key } = await newKey(t.baseUrl, seller, ['balance:read']);
    const r = await account('', bearer(key));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, {
      wallet: seller.wallet,
      earned_atomic: (SETTLED + WITHDRAWABLE).toString(),
      settled_atomic: SETTLED.toString(),
      withdrawable_atomic: WITHDRAWABLE.toString(),
      spent_atomic: SELLER_SPENT.toString(),
      payout_chain: 'base',
      endpoints_count: 2,
      payouts: [{ id: r.body.payouts[0]?.id, wallet: seller.wallet, chain: 'base', to: seller.wallet, amount_atomic: SETTLED.toString(), status: 'sent', tx: '0xpayout', attempts: 0, error: null, created_at: r.body.payouts[0]?.created_at }],
      scopes: ['balance:read'],
    });
    assert.equal(typeof r.body.payouts[0].created_at, 'number');
    assert.equal(r.body.earned_atomic, '123456789012354686100490753883');
    assert.equal(BigInt(r.body.earned_atomic), BigInt(r.body.settled_atomic) + BigInt(r.body.withdrawable_atomic));
  });

  test('the same figures with a read_account signature, without scopes', async () => {
    const r = await signedAccount(seller);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.earned_atomic, (SETTLED + WITHDRAWABLE).toString());
    assert.equal(r.body.spent_atomic, SELLER_SPENT.toString());
    assert.equal('scopes' in r.body, false);
    // A read signature may be reused within its window.
    const q = `?wallet=${seller.wallet}&${await signedQuery(seller, 'read_account')}`;
    assert.equal((await account(q)).status, 200);
    assert.equal((await account(q)).status, 200);
  });

  test('a Solana buyer: spends counted exactly (base58 is case-sensitive), its chain as payout chain', async () => {
    const r = await signedAccount(buyer);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, { wallet: buyer.wallet, earned_atomic: '0', settled_atomic: '0', withdrawable_atomic: '0', spent_atomic: BUYER_SPENT.toString(), payout_chain: 'solana', endpoints_count: 0 });
  });

  test('a Solana seller with nothing sold, and a wallet that never bought nor sold: zeros', async () => {
    const s = await signedAccount(solSeller);
    assert.equal(s.status, 200);
    assert.deepEqual([s.body.earned_atomic, s.body.spent_atomic, s.body.withdrawable_atomic, s.body.payout_chain, s.body.endpoints_count], ['0', '0', '0', 'solana', 0]);
    const nobody = evmSigner();
    const n = await signedAccount(nobody);
    assert.deepEqual(n.body, { wallet: nobody.wallet, earned_atomic: '0', settled_atomic: '0', withdrawable_atomic: '0', spent_atomic: '0', payout_chain: 'base', endpoints_count: 0 });
  });

  test('accountBalances for other modules: bigint figures from one snapshot', async () => {
    const orm = await openDatabase({ databaseUrl: db.url, pgliteDir: '', log: silentLogger });
    try {
      const b = await accountBalances(sqlOf(orm), seller.wallet.toLowerCase());
      assert.deepEqual(b, { earned: SETTLED + WITHDRAWABLE, settled: SETTLED, withdrawable: WITHDRAWABLE, spent: SELLER_SPENT, endpointsCount: 2, payoutChain: 'base' });
    } finally {
      await orm.close(true);
    }
  });
});

describe('refusals', () => {
  test('401 missing_sig_or_ts: nothing, a wallet alone, a signature without wallet', async () => {
    for (const q of ['', `?wallet=${seller.wallet}`, `?wallet=${seller.wallet}&sig=0x12`, `?${await signedQuery(seller, 'read_account')}`]) {
      const r = await account(q);
      assert.equal(r.status, 401, q);
      assert.equal(r.body.error, 'missing_sig_or_ts', q);
    }
  });

  test('401 invalid_signature: signed by another wallet, or for another action', async () => {
    const other = await account(`?wallet=${seller.wallet}&${await signedQuery(stranger, 'read_account')}`);
    assert.equal(other.status, 401);
    assert.equal(other.body.error, 'invalid_signature');
    const ts = nowS();
    const wrongAction = await account(`?wallet=${seller.wallet}&sig=${await seller.sign('stats', seller.wallet, ts)}&ts=${ts}`);
    assert.equal(wrongAction.body.error, 'invalid_signature');
  });

  test('400 invalid_timestamp and invalid_wallet', async () => {
    const stale = await account(`?wallet=${seller.wallet}&${await signedQuery(seller, 'read_account', nowS() - 301)}`);
    assert.equal(stale.status, 400);
    assert.equal(stale.body.error, 'invalid_timestamp');
    const bad = await account(`?wallet=0x1234&sig=0x12&ts=${nowS()}`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'invalid_wallet');
  });

  test('keys: 403 without balance:read, 401 wallet_mismatch for another wallet, 401 invalid_api_key once revoked', async () => {
    const { key: readOnly } = await newKey(t.baseUrl, seller, ['read', 'pay', 'endpoints:write', 'payout:request']);
    const r = await account('', bearer(readOnly));
    assert.equal(r.status, 403);
    assert.equal(r.body.error, 'insufficient_scope');

    const { key, id } = await newKey(t.baseUrl, seller, ['balance:read']);
    const mismatch = await account(`?wallet=${buyer.wallet}`, bearer(key));
    assert.equal(mismatch.status, 401);
    assert.equal(mismatch.body.error, 'wallet_mismatch');
    // Its own wallet, in another letter case, is its own.
    assert.equal((await account(`?wallet=${seller.wallet.toLowerCase()}`, bearer(key))).status, 200);
    // A stranger's valid signature does not get a key-holder's balances, nor the reverse.
    const mixed = await account(`?wallet=${stranger.wallet}&${await signedQuery(stranger, 'read_account')}`, bearer(key));
    assert.equal(mixed.body.error, 'wallet_mismatch');

    assert.equal((await call(t.baseUrl, 'revokeApiKey', 'DELETE', `/v1/keys/${id}`, { headers: await signedRevokeHeaders(seller, id) })).status, 200);
    const revoked = await account('', bearer(key));
    assert.equal(revoked.status, 401);
    assert.equal(revoked.body.error, 'invalid_api_key');
  });
});
