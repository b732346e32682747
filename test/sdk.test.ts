/**
 * The generated SDK (openapi-fetch over openapi.yaml's types) against the real service on the
 * devnet: typed catalog calls, and paid calls on every rail with the spend cap and the
 * confirmation hook guarding the money. A contract change that breaks generated clients
 * breaks this suite (and `tsc`).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestDevnet } from './helpers/devnet.ts';
import { makePdf, startPaidTestEnv, type PaidTestEnv } from './helpers/paid.ts';
import { createPaycallClient, evmAuthorizationPayer, evmTransferPayer, PaymentDeclinedError, solanaTransactionPayer, SpendCapError, type PaymentEvent } from '../sdk/index.ts';
import { evmTokenBalance } from '../devnet/buyer.ts';
import { privateKeyToAccount } from 'viem/accounts';

let env: PaidTestEnv;
let devnet: TestDevnet;
let t: PaidTestEnv['t'];

before(async () => {
  env = await startPaidTestEnv('sdk', { TOOL_WORKERS: '1' });
  ({ devnet, t } = env);
});
after(() => env?.close());

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
