/**
 * A quote is the offer (issue 20, item 4), attacked through a seller endpoint on the devnet with
 * a real local upstream: the seller changes its price (a signed PATCH, as any seller can)
 * between the buyer's quote and the buyer's transfer.
 *  - Raised: the buyer pays what it was quoted and is served; the ledger records the quoted
 *    amount. (Before: 402 amount_mismatch and the buyer's USDC stranded in payTo.)
 *  - Lowered: a buyer cannot pay the new, lower price before anyone was quoted it (no quote
 *    live at the payment asked so little); once quoted, the lower price pays.
 *  - A new quote after a change carries the new price, and only quotes live at the payment count.
 * Both the {tx_hash} rail (a transfer made first) and the authorization rail (X-Session-Token).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { TestDevnet } from '../helpers/devnet.ts';
import { decodePaymentResponse, sessionToken, startPaidTestEnv, xPayment, type PaidTestEnv } from '../helpers/paid.ts';
import { endpointInput, eventually, evmSigner, publish, register } from '../helpers/sellers.ts';
import { createPaycallClient } from '../../sdk/paycall-client.ts';
import { walletActions } from '../../sdk/wallet-actions.ts';
import { evmTransferUsdc, signEip3009Authorization } from '../../devnet/buyer.ts';

let env: PaidTestEnv;
let devnet: TestDevnet;
let baseUrl: string;
let sql: pg.Client;
let upstream: Server;
let upstreamUrl: string;
let served = 0;
const seller = evmSigner();
const endpointIds = new Map<string, number>();

before(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.headers['x-paycall-tx']) served++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  env = await startPaidTestEnv('quoteoffer', { TOOL_WORKERS: '1' });
  ({ devnet, sql } = env);
  baseUrl = env.t.baseUrl;
  assert.equal((await register(baseUrl, seller, 'shifty')).status, 201);
  for (const suffix of ['raise', 'lower', 'raise-auth', 'lower-auth']) {
    const r = await publish(baseUrl, seller, endpointInput(upstreamUrl, suffix, { atomic_price: 20_000 }));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    endpointIds.set(suffix, (r.body as { id: number }).id);
  }
  await eventually('endpoints active', async () => {
    const meta = (await (await fetch(`${baseUrl}/v1/_meta`)).json()) as { endpoints: { path: string }[] };
    return [...endpointIds.keys()].every((s) => meta.endpoints.some((e) => e.path === `/v1/shifty/${s}`));
  });
});
after(async () => {
  await env?.close();
  upstream?.closeAllConnections();
  await new Promise((r) => upstream?.close(r));
});

const post = (suffix: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${baseUrl}/v1/shifty/${suffix}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

/** Quotes the request; answers the amount the 402 asked. */
const quote = async (suffix: string, body: string): Promise<bigint> => {
  const r = await post(suffix, body);
  assert.equal(r.status, 402);
  const q = (await r.json()) as { accepts: { maxAmountRequired: string }[] };
  return BigInt(q.accepts[0].maxAmountRequired);
};

/** The seller's own signed price change, as any seller can make it at any moment. */
const setPrice = async (suffix: string, price: number) => {
  const r = await walletActions(createPaycallClient({ baseUrl }).api, seller).update(endpointIds.get(suffix)!, { atomic_price: price });
  assert.equal(r.response.status, 200, JSON.stringify(r.error));
  assert.equal(String((r.data as { atomic_price: string }).atomic_price), String(price));
};

const base = () => devnet.info.chains.base;
const transfer = (amount: bigint, buyer = 0) => evmTransferUsdc({ rpcUrl: base().rpcUrl, chainId: base().chainId, usdc: base().usdc, privateKey: devnet.info.accounts[buyer].evmPrivateKey, to: base().payTo, amount });
const authorization = async (amount: bigint, buyer = 0) =>
  sessionToken('base', await signEip3009Authorization({ chainId: base().chainId, usdc: base().usdc, privateKey: devnet.info.accounts[buyer].evmPrivateKey, to: base().payTo, value: amount }));
const ledger = async (tx: string) => (await sql.query('select amount, quoted_amount, net, take_bps from payment where lower(tx) = lower($1)', [tx])).rows;

test('raised price between quote and transfer: the honest transfer is served at the quoted price, the ledger shows the quoted amount', async () => {
  const body = '{"order":"raise-1"}';
  assert.equal(await quote('raise', body), 20_000n);
  await setPrice('raise', 50_000);
  // A new quote (of another request, or of the same one) carries the new price.
  assert.equal(await quote('raise', '{"order":"raise-other"}'), 50_000n);
  assert.equal(await quote('raise', body), 50_000n);

  const tx = await transfer(20_000n);
  const before = served;
  const paid = await post('raise', body, { 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) });
  const answer = await paid.text();
  assert.equal(paid.status, 200, answer);
  assert.equal(served, before + 1, 'the call was forwarded');
  assert.equal(decodePaymentResponse(paid.headers.get('x-payment-response')).transaction.toLowerCase(), tx.toLowerCase());
  // 4 % proxy take on what was paid: the seller earns on the quoted amount.
  assert.deepEqual(await ledger(tx), [{ amount: '20000', quoted_amount: '20000', net: '19200', take_bps: 400 }]);

  // The old offer does not reach requests quoted only after the change.
  const other = await post('raise', '{"order":"raise-other"}', { 'x-payment': xPayment('base', 'exact', { tx_hash: await transfer(20_000n) }) });
  const refused = (await other.json()) as { error: string; accepts: { maxAmountRequired: string }[] };
  assert.equal(other.status, 402);
  assert.equal(refused.error, 'amount_mismatch');
  assert.equal(refused.accepts[0].maxAmountRequired, '50000');
});

test('lowered price between quote and transfer: paying the new price that nobody was quoted is refused; once quoted, it pays', async () => {
  const body = '{"order":"lower-1"}';
  assert.equal(await quote('lower', body), 20_000n);
  await setPrice('lower', 5_000);

  // The only quote live at this transfer asked 20000: 5000 is less than any price quoted.
  const cheap = await transfer(5_000n);
  const refused = await post('lower', body, { 'x-payment': xPayment('base', 'exact', { tx_hash: cheap }) });
  const refusal = (await refused.json()) as { error: string; message: string };
  assert.equal(refused.status, 402);
  assert.equal(refusal.error, 'amount_mismatch', refusal.message);
  assert.match(refusal.message, /requires 20000/);
  assert.deepEqual(await ledger(cheap), []);
  assert.equal((await sql.query('select count(*)::int as n from consumed_receipt where receipt_key = $1', [`base:tx:${cheap.toLowerCase()}`])).rows[0].n, 0, 'not consumed');

  // A buyer who asks again is quoted the lower price and pays it.
  const other = '{"order":"lower-2"}';
  assert.equal(await quote('lower', other), 5_000n);
  const tx = await transfer(5_000n);
  const ok = await post('lower', other, { 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) });
  assert.equal(ok.status, 200, await ok.text());
  assert.deepEqual(await ledger(tx), [{ amount: '5000', quoted_amount: '5000', net: '4800', take_bps: 400 }]);

  // While the old 20000 quote and the new 5000 one are both live, paying the old one is no
  // under-payment either: it is recorded against the 20000 offer it covers.
  assert.equal(await quote('lower', body), 5_000n);
  const full = await transfer(20_000n);
  const both = await post('lower', body, { 'x-payment': xPayment('base', 'exact', { tx_hash: full }) });
  assert.equal(both.status, 200, await both.text());
  assert.deepEqual(await ledger(full), [{ amount: '20000', quoted_amount: '20000', net: '19200', take_bps: 400 }]);
});

test('the authorization rail: an authorization for the quoted amount pays after a raise; one for a lowered price nobody was quoted does not', async () => {
  const body = '{"order":"auth-raise"}';
  assert.equal(await quote('raise-auth', body), 20_000n);
  await setPrice('raise-auth', 70_000);
  const raised = await post('raise-auth', body, { 'x-session-token': await authorization(20_000n, 1) });
  assert.equal(raised.status, 200, await raised.text());
  const tx = decodePaymentResponse(raised.headers.get('x-payment-response')).transaction;
  assert.deepEqual(await ledger(tx), [{ amount: '20000', quoted_amount: '20000', net: '19200', take_bps: 400 }]);

  const lowBody = '{"order":"auth-lower"}';
  assert.equal(await quote('lower-auth', lowBody), 20_000n);
  await setPrice('lower-auth', 1_000);
  const low = await post('lower-auth', lowBody, { 'x-session-token': await authorization(1_000n, 1) });
  const refusal = (await low.json()) as { error: string; message: string };
  assert.equal(low.status, 402);
  assert.equal(refusal.error, 'amount_mismatch', refusal.message);
  assert.equal((await sql.query(`select count(*)::int as n from consumed_receipt where receipt_key like 'base:auth:%' and payment_id is null`)).rows[0].n, 0, 'nothing reserved');
});
