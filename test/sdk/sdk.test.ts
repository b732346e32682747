/**
 * The generated SDK (openapi-fetch over openapi.yaml's types) against the real service on the
 * devnet: typed catalog calls, seller calls signed by EVM and Solana wallets, key and account
 * calls, and paid calls on every rail with the spend cap and the confirmation hook guarding
 * the money. A contract change that breaks generated clients breaks this suite (and `tsc`).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestDevnet } from '../helpers/devnet.ts';
import { makePdf, startPaidTestEnv, type PaidTestEnv } from '../helpers/paid.ts';
import { createPaycallClient, evmActionSigner, evmAuthorizationPayer, evmTransferPayer, PaymentDeclinedError, solanaActionSigner, solanaTransactionPayer, SpendCapError, walletActions, type PaymentEvent } from '../../sdk/index.ts';
import { evmTokenBalance } from '../../devnet/buyer.ts';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import nacl from 'tweetnacl';
import { startUpstream, type TestUpstream } from '../helpers/sellers.ts';
import { assertMatchesContract } from '../helpers/contract.ts';

let env: PaidTestEnv;
let devnet: TestDevnet;
let t: PaidTestEnv['t'];
let upstream: TestUpstream;

before(async () => {
  env = await startPaidTestEnv('sdk', { TOOL_WORKERS: '1' });
  ({ devnet, t } = env);
  upstream = await startUpstream();
});
after(async () => {
  await env?.close();
  await upstream?.close();
});

test('typed catalog calls: meta, health, discovery', async () => {
  const { api } = createPaycallClient({ baseUrl: t.baseUrl });
  const meta = await api.GET('/v1/_meta');
  assert.equal(meta.response.status, 200);
  assert.ok(meta.data!.endpoints.some((e) => e.path === '/v1/pdf-text'));
  const health = await api.GET('/v1/_health');
  assert.equal(health.data?.status, 'ok');
  const page = await api.GET('/discovery/resources', { params: { query: { limit: 2 } } });
  assert.equal(page.data!.items.length, 2);
  assert.equal(page.data!.pagination.total, 4);
  const builtins = await api.GET('/discovery/resources', { params: { query: { type: 'http', limit: 10, offset: 0 } } });
  assert.ok(builtins.data!.items.every((i) => i.x402Version === 1 && i.accepts.length > 0));
});

test('seller calls, signed by an EVM and a Solana wallet: typed answers and typed refusals', async () => {
  const { api } = createPaycallClient({ baseUrl: t.baseUrl });
  for (const signer of [evmActionSigner(generatePrivateKey()), solanaActionSigner(nacl.sign.keyPair().secretKey)]) {
    const seller = walletActions(api, signer);
    const slug = `sdk-${signer.kind}`;
    const registered = await seller.register(slug);
    assert.equal(registered.response.status, 201, JSON.stringify(registered.error));
    assert.deepEqual({ wallet: registered.data!.wallet, slug: registered.data!.slug }, { wallet: signer.wallet, slug });
    const again = await seller.register(`${slug}-2`);
    assert.equal(again.error?.error, 'wallet_already_registered');

    const published = await seller.publish({ path_suffix: 'echo', upstream_url: `${upstream.url}/${slug}`, atomic_price: 20_000, unit: 'request', desc: 'SDK echo', mode: 'proxy', sample_body: { q: 1 } });
    assert.equal(published.response.status, 201, JSON.stringify(published.error));
    assert.equal(published.data!.path, `/v1/${slug}/echo`);
    const id = published.data!.id;
    const listed = await seller.list();
    assert.deepEqual(listed.data!.endpoints.map((e) => e.id), [id]);
    // The signature covers the endpoint after the update: the SDK reads it first.
    const updated = await seller.update(id, { atomic_price: 30_000, desc: 'SDK echo, dearer' });
    assert.equal(updated.response.status, 200, JSON.stringify(updated.error));
    assert.deepEqual({ price: updated.data!.atomic_price, desc: updated.data!.desc, unit: updated.data!.unit }, { price: '30000', desc: 'SDK echo, dearer', unit: 'request' });
    const stats = await seller.stats();
    assert.deepEqual({ calls: stats.data!.calls, endpoints: stats.data!.by_endpoint.map((e) => e.id) }, { calls: 0, endpoints: [id] });
    const errors = await seller.errors(Math.floor(Date.now() / 1000) - 3600);
    assert.ok(Array.isArray(errors.data));
    const deleted = await seller.delete(id);
    assert.equal(deleted.data!.id, id);
    // A second delete signed in the same second would be the same signature (refused as a replay).
    const later = walletActions(api, signer, { now: () => Math.floor(Date.now() / 1000) + 1 });
    assert.equal((await later.delete(id)).error?.error, 'endpoint_not_found');
    const resumed = await seller.resume();
    assert.deepEqual(resumed.data!.resumed_endpoint_ids, []);
    for (const [operationId, r] of [['registerSeller', registered], ['addSellerEndpoint', published], ['listSellerEndpoints', listed], ['updateSellerEndpoint', updated], ['getSellerStats', stats], ['getSellerErrors', errors], ['deleteSellerEndpoint', deleted], ['resumeSeller', resumed]] as const) {
      await assertMatchesContract(operationId, r.response.status, r.data);
    }
  }
});

// Key and account calls through the SDK get the contract's answers, typed.
test('key and account calls: typed answers of the contract', async () => {
  const { api } = createPaycallClient({ baseUrl: t.baseUrl });
  const wallet = walletActions(api, evmActionSigner(generatePrivateKey()));
  const issued = await wallet.issueKey('sdk test', ['read', 'balance:read']);
  const account = await wallet.account();
  for (const [operationId, r, ok] of [['issueApiKey', issued, 201], ['getAccount', account, 200]] as const) {
    assert.equal(r.response.status, ok, JSON.stringify(r.error));
    await assertMatchesContract(operationId, r.response.status, r.data);
  }
  assert.deepEqual(issued.data!.scopes, ['read', 'balance:read']);
  assert.equal(account.data?.earned_atomic, '0');
  assert.equal((await wallet.revokeKey(issued.data!.id)).response.status, 200);
});

test('a paid call on every rail: authorization (base), transfer (polygon), co-signed transaction (solana)', async () => {
  const accounts = devnet.info.accounts;
  const payers = [
    evmAuthorizationPayer({ privateKey: accounts[0].evmPrivateKey, network: 'base' }),
    evmTransferPayer({ privateKey: accounts[1].evmPrivateKey, network: 'polygon', rpcUrl: devnet.info.chains.polygon.rpcUrl }),
    solanaTransactionPayer({ secretKey: accounts[2].solanaSecretKey, rpcUrl: devnet.info.chains.solana.rpcUrl }),
  ];
  for (const [i, payer] of payers.entries()) {
    const events: PaymentEvent['kind'][] = [];
    const client = createPaycallClient({ baseUrl: t.baseUrl, payer, maxAmount: 10_000n, onEvent: (e) => events.push(e.kind) });
    const res = await client.call('/v1/pdf-text', await makePdf(2, `sdk-${i}`), 'application/pdf');
    const body = (await res.json()) as { text: string; pages: number };
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.match(body.text, new RegExp(`sdk-${i} page 2`));
    assert.deepEqual(events.slice(0, 3), ['quote', 'paying', 'proof-sent']);
    assert.ok(res.headers.get('x-payment-response'));
  }
});

test('the spend cap and the confirmation hook stop a payment before any money moves', async () => {
  const key = devnet.info.accounts[3].evmPrivateKey;
  const c = devnet.info.chains.base;
  const owner = privateKeyToAccount(key as `0x${string}`).address;
  const balance = () => evmTokenBalance({ rpcUrl: c.rpcUrl, chainId: c.chainId, token: c.usdc, owner });
  const before = await balance();
  const payer = evmTransferPayer({ privateKey: key, network: 'base', rpcUrl: c.rpcUrl });
  const capped = createPaycallClient({ baseUrl: t.baseUrl, payer, maxAmount: 9_999n });
  await assert.rejects(capped.call('/v1/pdf-text', await makePdf(2, 'sdk-cap'), 'application/pdf'), (e: unknown) => e instanceof SpendCapError && e.amount === 10_000n);
  const declined = createPaycallClient({ baseUrl: t.baseUrl, payer, confirm: () => false });
  await assert.rejects(declined.call('/v1/pdf-text', await makePdf(1, 'sdk-declined'), 'application/pdf'), PaymentDeclinedError);
  assert.equal(await balance(), before);
});
