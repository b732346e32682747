/**
 * A `pay` key on a paid call, on the devnet: it names the buyer but never pays. Without proof
 * the key still gets the 402 quote; a bad key or one without `pay` is refused before any quote;
 * one paid call records the key's wallet in the ledger beside the paying address, and the
 * key wallet's account counts the purchase.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { privateKeyToAccount } from 'viem/accounts';
import { callTool, makePdf, startPaidTestEnv, xPayment, type PaidTestEnv } from '../helpers/paid.ts';
import { evmTransferUsdc } from '../../devnet/buyer.ts';
import { call, solanaSigner } from '../helpers/sellers.ts';
import { bearer, newKey, TEST_API_KEY_SECRET } from '../helpers/keys.ts';

let env: PaidTestEnv;
// The key's wallet is a Solana wallet; the payment comes from an EVM devnet account: two identities.
const identity = solanaSigner();

before(async () => {
  env = await startPaidTestEnv('accounts_paid', { API_KEY_SECRET: TEST_API_KEY_SECRET });
});
after(() => env?.close());

test('a pay key identifies the buyer: quote without proof, refusals before any quote, buyer_wallet in the ledger', async () => {
  const { t, sql, devnet } = env;
  const pdf = await makePdf(1, 'pay-key');
  const { key: payKey } = await newKey(t.baseUrl, identity, ['pay', 'balance:read']);
  const { key: readKey } = await newKey(t.baseUrl, identity, ['read']);

  const quoted = await callTool(t.baseUrl, '/v1/pdf-text', pdf, bearer(payKey));
  assert.equal(quoted.status, 402, 'a key is not a payment');
  assert.equal(quoted.body.error, 'X-PAYMENT header is required');

  const unknown = await callTool(t.baseUrl, '/v1/pdf-text', pdf, bearer(`pc_live_${'A'.repeat(43)}`));
  assert.equal(unknown.status, 401);
  assert.equal(unknown.body.error, 'invalid_api_key');
  const noPay = await callTool(t.baseUrl, '/v1/pdf-text', pdf, bearer(readKey));
  assert.equal(noPay.status, 403);
  assert.equal(noPay.body.error, 'insufficient_scope');
  const sellerCall = await fetch(`${t.baseUrl}/v1/some-shop/some-path`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(readKey) }, body: '{}' });
  assert.equal(sellerCall.status, 403, 'seller endpoints too');

  const base = devnet.info.chains.base;
  const payer = privateKeyToAccount(devnet.info.accounts[0].evmPrivateKey as `0x${string}`).address;
  const tx = await evmTransferUsdc({ rpcUrl: base.rpcUrl, chainId: base.chainId, usdc: base.usdc, privateKey: devnet.info.accounts[0].evmPrivateKey, to: base.payTo, amount: 5_000n });
  // A bad key beside a good payment: refused, and the payment is not used up.
  const refused = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { ...bearer(readKey), 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) });
  assert.equal(refused.status, 403);
  assert.equal((await sql.query('select count(*)::int as n from payment')).rows[0].n, 0);

  const paid = await callTool(t.baseUrl, '/v1/pdf-text', pdf, { ...bearer(payKey), 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) });
  assert.equal(paid.status, 200, JSON.stringify(paid.body));
  const { rows } = await sql.query('select payer, buyer_wallet, amount::text from payment where lower(tx) = lower($1)', [tx]);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].payer.toLowerCase(), payer.toLowerCase());
  assert.equal(rows[0].buyer_wallet, identity.wallet);
  assert.equal(rows[0].amount, '5000');

  const account = await call(t.baseUrl, 'getAccount', 'GET', '/v1/account', { headers: bearer(payKey) });
  assert.equal(account.status, 200);
  assert.equal(account.body.spent_atomic, '5000');
});
