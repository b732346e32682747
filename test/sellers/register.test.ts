/**
 * Wallet signatures and seller registration against the real server and PostgreSQL: both
 * signature kinds (EVM EIP-712, Solana Ed25519), shape A and B, every registration error,
 * replay, the timestamp window's edges, refusals counted in the metrics.
 */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { call, evmSigner, nowS, solanaSigner, type TestSigner } from '../helpers/sellers.ts';
import { verifyWalletSignature } from '../../src/http/wallet-signature.ts';
import { multiChainRegistrationBody } from '../../sdk/wallet-actions.ts';
import bs58 from 'bs58';
import { privateKeyToAccount } from 'viem/accounts';
import { devnetKeys } from '../../devnet/devnet-keys.ts';
import { PAYOUT_ONLY_USDC_ADDRESSES, USDC_ADDRESSES } from '../../src/chains/usdc-addresses.ts';
import type { ChainsConfig } from '../../src/config.ts';

let db: TestDatabase;
let t: TestApp;

/**
 * Chains that nothing here calls (registration is free), with arbitrum as the one payout-only
 * chain this deployment pays on: payout_chain arbitrum is accepted, optimism refused.
 */
function chainsPayingOnArbitrum(): ChainsConfig {
  const keys = devnetKeys(0);
  const treasury = privateKeyToAccount(keys.evmTreasuryKey).address;
  const dead = 'http://127.0.0.1:9';
  return {
    base: { rpcUrl: dead, chainId: 8453, usdc: USDC_ADDRESSES.base, payTo: treasury },
    polygon: { rpcUrl: dead, chainId: 137, usdc: USDC_ADDRESSES.polygon, payTo: treasury },
    solana: { rpcUrl: dead, usdcMint: USDC_ADDRESSES.solana, payTo: keys.solanaTreasury.publicKey.toBase58() },
    signers: {
      evmRelayerKey: keys.evmRelayerKey,
      evmTreasuryKey: keys.evmTreasuryKey,
      solanaFeePayerKey: bs58.encode(keys.solanaFeePayer.secretKey),
      solanaTreasuryKey: bs58.encode(keys.solanaTreasury.secretKey),
    },
    payoutChains: { arbitrum: { rpcUrl: dead, chainId: 42161, usdc: PAYOUT_ONLY_USDC_ADDRESSES.arbitrum } },
  };
}

before(async () => {
  db = await createTestDatabase('sellers_register');
  t = await startTestApp({ ...testConfig({ DATABASE_URL: db.url, SCHEDULER_TICK_MS: '0' }), chains: chainsPayingOnArbitrum() });
});
after(async () => {
  await t?.close();
  await db?.drop();
});

const registerB = async (signer: TestSigner, slug: string, opts: { timestamp?: number; signWith?: TestSigner; signedSlug?: string } = {}) => {
  const timestamp = opts.timestamp ?? nowS();
  const signature = await (opts.signWith ?? signer).sign('register', opts.signedSlug ?? slug, timestamp);
  const body = { wallet: signer.wallet, slug, signature, timestamp };
  return { body, answer: await call(t.baseUrl, 'registerSeller', 'POST', '/v1/_seller/register', { body }) };
};

describe('signatures', () => {
  test('an EVM wallet and a Solana wallet verify; another key, action, payload or timestamp does not', async () => {
    for (const s of [evmSigner(), solanaSigner()]) {
      const ts = nowS();
      const signature = await s.sign('register', 'acme', ts);
      assert.equal(await verifyWalletSignature('paycall', { wallet: s.wallet, action: 'register', payload: 'acme', timestamp: ts, signature }), true, s.kind);
      assert.equal(await verifyWalletSignature('paycall', { wallet: s.wallet, action: 'resume', payload: 'acme', timestamp: ts, signature }), false);
      assert.equal(await verifyWalletSignature('paycall', { wallet: s.wallet, action: 'register', payload: 'acme2', timestamp: ts, signature }), false);
      assert.equal(await verifyWalletSignature('paycall', { wallet: s.wallet, action: 'register', payload: 'acme', timestamp: ts + 1, signature }), false);
      assert.equal(await verifyWalletSignature('other-service', { wallet: s.wallet, action: 'register', payload: 'acme', timestamp: ts, signature }), false, 'domain name');
      const other = s.kind === 'evm' ? evmSigner() : solanaSigner();
      assert.equal(await verifyWalletSignature('paycall', { wallet: other.wallet, action: 'register', payload: 'acme', timestamp: ts, signature }), false);
      assert.equal(await verifyWalletSignature('paycall', { wallet: s.wallet, action: 'register', payload: 'acme', timestamp: ts, signature: 'garbage' }), false);
    }
  });

  test('the EVM wallet may be sent lower-case', async () => {
    const s = evmSigner();
    const ts = nowS();
    const signature = await s.sign('register', 'x', ts);
    assert.equal(await verifyWalletSignature('paycall', { wallet: s.wallet.toLowerCase(), action: 'register', payload: 'x', timestamp: ts, signature }), true);
  });
});

describe('POST /v1/_seller/register', () => {
  test('shape B with an EVM wallet: 201 with the seller record, payout chain base', async () => {
    const s = evmSigner();
    const { answer } = await registerB(s, 'evm-seller');
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { wallet: s.wallet, slug: 'evm-seller', wallets: { base: s.wallet }, payout_chain: 'base', status: 'active', created_at: answer.body.created_at });
    assert.ok(Math.abs(answer.body.created_at - nowS()) < 600);
  });

  test('shape B with a Solana wallet: payout chain solana', async () => {
    const s = solanaSigner();
    const { answer } = await registerB(s, 'sol-seller');
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.equal(answer.body.payout_chain, 'solana');
    assert.deepEqual(answer.body.wallets, { solana: s.wallet });
  });

  test('shape A: every chain wallet signs; payout_chain defaults to the primary wallet chain', async () => {
    const evm = evmSigner();
    const sol = solanaSigner();
    // The SDK signs the default payout chain it computes; sent without it, the service's default is the same.
    const { payout_chain, ...body } = await multiChainRegistrationBody({ slug: 'multi-chain', primary: sol, wallets: { base: evm, polygon: evm, solana: sol } });
    assert.equal(payout_chain, 'solana');
    const a = await call(t.baseUrl, 'registerSeller', 'POST', '/v1/_seller/register', { body });
    assert.equal(a.status, 201, JSON.stringify(a.body));
    assert.equal(a.body.wallet, sol.wallet);
    assert.equal(a.body.payout_chain, 'solana');
    assert.deepEqual(a.body.wallets, { base: evm.wallet, polygon: evm.wallet, solana: sol.wallet });
    // Either wallet now owns the slug: neither can register another one.
    for (const s of [evm, sol]) {
      const again = await registerB(s, `other-${s.kind}`);
      assert.equal(again.answer.status, 409);
      assert.equal(again.answer.body.error, 'wallet_already_registered');
    }
  });

  test('shape A: explicit payout_chain; a missing signature, a primary not among wallets, a chain without wallet are invalid_input', async () => {
    const evm = evmSigner();
    const evm2 = evmSigner();
    const base = await multiChainRegistrationBody({ slug: 'shape-a-checks', primary: evm, wallets: { base: evm, arbitrum: evm }, payoutChain: 'arbitrum' });
    const cases: [unknown, string][] = [
      [{ ...base, signatures: { base: base.signatures!.base } }, 'body.signatures.arbitrum'],
      [{ ...base, primary_wallet: evm2.wallet }, 'body.primary_wallet'],
      [{ ...base, payout_chain: 'solana' }, 'body.payout_chain'],
    ];
    for (const [body, path] of cases) {
      const a = await call(t.baseUrl, 'registerSeller', 'POST', '/v1/_seller/register', { body });
      assert.equal(a.status, 400);
      assert.equal(a.body.error, 'invalid_input');
      assert.equal(a.body.issues[0].path, path);
    }
    const ok = await call(t.baseUrl, 'registerSeller', 'POST', '/v1/_seller/register', { body: base });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(ok.body.payout_chain, 'arbitrum');
  });

  test('shape A: a payout_chain this deployment does not pay out on is invalid_input', async () => {
    const evm = evmSigner();
    const registration = { slug: 'no-optimism', primary: evm, wallets: { base: evm, optimism: evm } };
    const body = await multiChainRegistrationBody({ ...registration, payoutChain: 'optimism' });
    const a = await call(t.baseUrl, 'registerSeller', 'POST', '/v1/_seller/register', { body });
    assert.equal(a.status, 400);
    assert.equal(a.body.error, 'invalid_input');
    assert.deepEqual(a.body.issues, [{ path: 'body.payout_chain', message: 'is optimism, which this service does not pay out on (payout chains here: base, polygon, arbitrum, solana)' }]);
    // Nothing was registered: the same wallet may still register, paid on base.
    const ok = await call(t.baseUrl, 'registerSeller', 'POST', '/v1/_seller/register', { body: await multiChainRegistrationBody({ ...registration, payoutChain: 'base' }) });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
  });

  test('shape A: one wallet signed by another key is 401 invalid_signature', async () => {
    const evm = evmSigner();
    const sol = solanaSigner();
    // Names sol's wallet, signs the right payload with another key.
    const impostor: TestSigner = { ...solanaSigner(), wallet: sol.wallet };
    const body = await multiChainRegistrationBody({ slug: 'half-signed', primary: evm, wallets: { base: evm, solana: impostor } });
    const a = await call(t.baseUrl, 'registerSeller', 'POST', '/v1/_seller/register', { body });
    assert.equal(a.status, 401);
    assert.equal(a.body.error, 'invalid_signature');
  });

  test('409 slug_taken for another wallet, 409 wallet_already_registered for a second slug', async () => {
    const a = evmSigner();
    assert.equal((await registerB(a, 'taken-slug')).answer.status, 201);
    const b = solanaSigner();
    const taken = await registerB(b, 'taken-slug');
    assert.equal(taken.answer.status, 409);
    assert.equal(taken.answer.body.error, 'slug_taken');
    const second = await registerB(a, 'second-slug');
    assert.equal(second.answer.status, 409);
    assert.equal(second.answer.body.error, 'wallet_already_registered');
    // The same wallet in lower case is the same wallet.
    const ts = nowS();
    const lower = await call(t.baseUrl, 'registerSeller', 'POST', '/v1/_seller/register', {
      body: { wallet: a.wallet.toLowerCase(), slug: 'third-slug', signature: await a.sign('register', 'third-slug', ts), timestamp: ts },
    });
    assert.equal(lower.body.error, 'wallet_already_registered');
    // A refused registration gave its signature back: b registers another slug fine.
    assert.equal((await registerB(b, 'b-own-slug')).answer.status, 201);
  });

  test('a replayed signature is 409 signature_already_used', async () => {
    const s = evmSigner();
    const first = await registerB(s, 'replayed');
    assert.equal(first.answer.status, 201);
    const again = await call(t.baseUrl, 'registerSeller', 'POST', '/v1/_seller/register', { body: first.body });
    assert.equal(again.status, 409);
    assert.equal(again.body.error, 'signature_already_used');
  });

  test('two concurrent registrations of one slug: exactly one wins', async () => {
    const results = await Promise.all([evmSigner(), solanaSigner(), evmSigner()].map((s) => registerB(s, 'race-slug')));
    const statuses = results.map((r) => r.answer.status).sort();
    assert.deepEqual(statuses, [201, 409, 409]);
  });

  test('timestamp window: just inside passes, just outside is 400 invalid_timestamp (past and future)', async () => {
    const inside = [nowS() - 290, nowS() + 50];
    for (const ts of inside) {
      const s = solanaSigner();
      const r = await registerB(s, `inside-${ts}`.slice(0, 32), { timestamp: ts });
      assert.equal(r.answer.status, 201, `${ts - nowS()}: ${JSON.stringify(r.answer.body)}`);
    }
    for (const ts of [nowS() - 310, nowS() + 70]) {
      const r = await registerB(evmSigner(), 'outside', { timestamp: ts });
      assert.equal(r.answer.status, 400);
      assert.equal(r.answer.body.error, 'invalid_timestamp');
    }
  });

  test('401 invalid_signature: wrong key, wrong slug signed, malformed signature', async () => {
    const s = evmSigner();
    assert.equal((await registerB(s, 'bad-sig', { signWith: evmSigner() })).answer.body.error, 'invalid_signature');
    assert.equal((await registerB(s, 'bad-sig', { signedSlug: 'other' })).answer.body.error, 'invalid_signature');
    const sol = solanaSigner();
    assert.equal((await registerB(sol, 'bad-sig', { signWith: solanaSigner() })).answer.status, 401);
    const ts = nowS();
    const malformed = await call(t.baseUrl, 'registerSeller', 'POST', '/v1/_seller/register', { body: { wallet: s.wallet, slug: 'bad-sig', signature: '0x1234', timestamp: ts } });
    assert.equal(malformed.status, 401);
    assert.equal(malformed.body.error, 'invalid_signature');
  });

  test('400 invalid_slug_format, invalid_wallet, invalid_input, invalid_json; 413 over 4 KB', async () => {
    const s = evmSigner();
    const ts = nowS();
    const sig = await s.sign('register', 'x', ts);
    const post = (body: unknown) => call(t.baseUrl, 'registerSeller', 'POST', '/v1/_seller/register', { body });
    assert.equal((await post({ wallet: s.wallet, slug: 'Bad_Slug', signature: sig, timestamp: ts })).body.error, 'invalid_slug_format');
    assert.equal((await post({ wallet: s.wallet, slug: 'ab', signature: sig, timestamp: ts })).body.error, 'invalid_slug_format');
    assert.equal((await post({ wallet: '0x1234', slug: 'good-slug', signature: sig, timestamp: ts })).body.error, 'invalid_wallet');
    // Base58 of the right length but not 32 bytes.
    assert.equal((await post({ wallet: '1'.repeat(40), slug: 'good-slug', signature: sig, timestamp: ts })).body.error, 'invalid_wallet');
    const missing = await post({ wallet: s.wallet, slug: 'good-slug', timestamp: ts });
    assert.equal(missing.body.error, 'invalid_input');
    const mixed = await post({ wallet: s.wallet, slug: 'good-slug', signature: sig, timestamp: ts, ts });
    assert.equal(mixed.body.error, 'invalid_input');
    const json = await call(t.baseUrl, 'registerSeller', 'POST', '/v1/_seller/register', { raw: '{"wallet": ' });
    assert.equal(json.body.error, 'invalid_json');
    const big = await post({ wallet: s.wallet, slug: 'good-slug', signature: 'x'.repeat(5000), timestamp: ts });
    assert.equal(big.status, 413);
    assert.equal(big.body.error, 'body_too_large');
  });

  test('signature refusals are counted by reason', async () => {
    const text = await (await fetch(`${t.metricsUrl}/metrics`)).text();
    for (const reason of ['invalid_signature', 'invalid_timestamp', 'signature_already_used']) {
      assert.match(text, new RegExp(`paycall_signature_refusals_total\\{reason="${reason}"\\} [1-9]`), reason);
    }
  });
});
