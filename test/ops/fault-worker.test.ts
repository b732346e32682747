/**
 * Fault: the worker thread running a paid tool job is killed mid-job. The buyer gets a clean
 * 500 (with the payment response header, so the payment is not lost), the pool replaces the
 * worker, and the same proof retried gets the answer: one ledger row, the tool run again once.
 * The worker is killed from outside with Worker#terminate, found by watching which worker
 * the pool hands the job to.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { evmTransferUsdc } from '../../devnet/buyer.ts';
import { callTool, makePdf, startPaidTestEnv, xPayment, type PaidTestEnv } from '../helpers/paid.ts';

// Which worker got the last message: the job the pool just dispatched.
let lastWorker: Worker | null = null;
const postMessage = Worker.prototype.postMessage;
Worker.prototype.postMessage = function (this: Worker, ...args: Parameters<Worker['postMessage']>) {
  lastWorker = this;
  return postMessage.apply(this, args);
};

let env: PaidTestEnv;
before(async () => {
  env = await startPaidTestEnv('ops_fault_worker', { TOOL_WORKERS: '1' });
});
after(async () => {
  Worker.prototype.postMessage = postMessage;
  await env?.close();
});

test('a worker killed mid-job: clean 500 keeping the payment, worker replaced, the same proof then gets the answer once', { timeout: 180_000 }, async () => {
  const base = env.devnet.info.chains.base;
  const pdf = await makePdf(150, 'worker-killed');
  const quote = await callTool(env.t.baseUrl, '/v1/pdf-text', pdf);
  assert.equal(quote.status, 402);
  const amount = BigInt(quote.body.accepts.find((a: { network: string }) => a.network === 'base').maxAmountRequired);
  const tx = await evmTransferUsdc({ rpcUrl: base.rpcUrl, chainId: base.chainId, usdc: base.usdc, privateKey: env.devnet.info.accounts[3].evmPrivateKey, to: base.payTo, amount });
  const proof = { 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) };

  const started = env.rec.count('tool job started');
  const pending = callTool(env.t.baseUrl, '/v1/pdf-text', pdf, proof);
  while (env.rec.count('tool job started') === started) await new Promise((r) => setTimeout(r, 5));
  assert.ok(lastWorker, 'the pool handed the job to a worker');
  await lastWorker!.terminate();

  const failed = await pending;
  if (failed.status === 200) assert.fail('the job finished before the worker was killed; use a larger document');
  assert.equal(failed.status, 500, JSON.stringify(failed.body));
  assert.equal(failed.body.error, 'internal_error');
  assert.ok(failed.headers.get('x-payment-response'), 'the answer says the payment went through');
  assert.equal(env.rec.count('tool worker died during a job'), 1);

  const retried = await callTool(env.t.baseUrl, '/v1/pdf-text', pdf, proof);
  assert.equal(retried.status, 200, JSON.stringify(retried.body));
  assert.match(retried.body.text, /worker-killed page 150/);
  const replay = await callTool(env.t.baseUrl, '/v1/pdf-text', pdf, proof);
  assert.equal(replay.headers.get('x-idempotent-replay'), 'true');
  assert.equal((await env.sql.query('select count(*)::int as n from payment where tx = $1', [tx])).rows[0].n, 1);
  assert.equal(env.rec.count('tool finished'), 1, 'the tool ran to the end once');
});
