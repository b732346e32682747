/**
 * The operator metrics of a real paid call on the devnet: money in per chain and endpoint (the
 * amount the chain shows, counted once, not again on a replay), paid calls, verification
 * latency by network, rail and outcome; and the scrape-time gauges read from the real chains:
 * every RPC up, the relayer's, fee payer's and treasuries' balances.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { evmTransferUsdc } from '../../devnet/buyer.ts';
import { callTool, makePdf, startPaidTestEnv, xPayment, type PaidTestEnv } from '../helpers/paid.ts';

let env: PaidTestEnv;
before(async () => {
  env = await startPaidTestEnv('ops_paymetrics', { TOOL_WORKERS: '1' });
});
after(() => env?.close());

const scrape = async () => (await fetch(`${env.t.metricsUrl}/metrics`)).text();
/** The value of one series, or undefined when /metrics does not have it. */
const value = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

test('a paid call counts money in (chain amount, once), a paid call, and its verification time by network, rail and outcome', async () => {
  const pdf = await makePdf(1, 'ops-metrics');
  const quote = await callTool(env.t.baseUrl, '/v1/pdf-text', pdf);
  assert.equal(quote.status, 402);
  const base = env.devnet.info.chains.base;
  const amount = BigInt(quote.body.accepts.find((a: { network: string }) => a.network === 'base').maxAmountRequired);
  const txHash = await evmTransferUsdc({ rpcUrl: base.rpcUrl, chainId: base.chainId, usdc: base.usdc, privateKey: env.devnet.info.accounts[0].evmPrivateKey, to: base.payTo, amount });
  const proof = { 'x-payment': xPayment('base', 'exact', { tx_hash: txHash }) };
  const paid = await callTool(env.t.baseUrl, '/v1/pdf-text', pdf, proof);
  assert.equal(paid.status, 200, JSON.stringify(paid.body));
  const replay = await callTool(env.t.baseUrl, '/v1/pdf-text', pdf, proof);
  assert.equal(replay.headers.get('x-idempotent-replay'), 'true');
  // A proof for a transaction that does not exist: refused.
  const refused = await callTool(env.t.baseUrl, '/v1/pdf-text', pdf, { 'x-payment': xPayment('base', 'exact', { tx_hash: `0x${'12'.repeat(32)}` }) });
  assert.equal(refused.status, 402);

  const text = await scrape();
  assert.equal(value(text, 'paycall_money_in_atomic_total{network="base",endpoint="pdf-text"}'), Number(amount));
  assert.equal(value(text, 'paycall_paid_calls_total{network="base",endpoint="pdf-text"}'), 1);
  assert.equal(value(text, 'paycall_quotes_total{endpoint="pdf-text"}'), 1);
  const count = (outcome: string) => value(text, `paycall_payment_verification_duration_seconds_count{network="base",rail="evm-tx",outcome="${outcome}"}`);
  assert.equal(count('accepted'), 1);
  assert.equal(count('replay'), 1);
  assert.equal(count('refused'), 1);
  assert.ok(value(text, 'paycall_payment_verification_duration_seconds_sum{network="base",rail="evm-tx",outcome="accepted"}')! > 0);
});

test('scrape-time gauges read the real chains: every RPC up, the fee-paying wallets and the treasuries have balances', async () => {
  const text = await scrape();
  for (const chain of ['base', 'polygon', 'solana']) assert.equal(value(text, `paycall_rpc_up{chain="${chain}"}`), 1, chain);
  assert.equal(value(text, 'paycall_database_up'), 1);
  const balance = (chain: string, role: string, asset: string) => value(text, `paycall_wallet_balance{chain="${chain}",role="${role}",asset="${asset}"}`);
  for (const chain of ['base', 'polygon']) {
    assert.ok(balance(chain, 'relayer', 'native')! > 0, `${chain} relayer gas`);
    assert.ok(balance(chain, 'treasury', 'native')! >= 0, `${chain} treasury gas`);
    assert.ok(balance(chain, 'treasury', 'usdc')! >= 0, `${chain} treasury USDC`);
  }
  assert.ok(balance('solana', 'fee_payer', 'native')! > 0, 'solana fee payer SOL');
  assert.notEqual(balance('solana', 'treasury', 'usdc'), undefined);
});
