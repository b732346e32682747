/**
 * Fault: a chain's RPC goes down (connections refused) while the service runs. Quotes still
 * answer; a payment on that chain answers payment_unconfirmed (or 503) with a clear message,
 * and its proof is not used up; /v1/_health says which chain is down (degraded, still 200) and
 * /metrics reports it; other chains keep working. When the RPC is back, the same proof buys
 * the answer: nothing paid for is lost.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { evmTransferUsdc } from '../../devnet/buyer.ts';
import { callTool, makePdf, startPaidTestEnv, xPayment, type PaidTestEnv } from '../helpers/paid.ts';

/** A TCP forwarder in front of an RPC that can be switched off (listener closed: connection refused) and on again on the same port. */
async function switchableProxy(target: URL) {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = connect(Number(target.port), target.hostname);
        sockets.add(client).add(upstream);
        client.pipe(upstream).pipe(client);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', drop).on('close', drop);
        upstream.on('error', drop).on('close', drop);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  await listen();
  return {
    url: () => `http://127.0.0.1:${port}`,
    down: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        sockets.clear();
        server!.close(() => resolve());
      }),
    up: listen,
  };
}

let env: PaidTestEnv;
let proxy: Awaited<ReturnType<typeof switchableProxy>>;
before(async () => {
  env = await startPaidTestEnv('ops_fault_rpc', { TOOL_WORKERS: '1' }, async (devnet) => {
    proxy = await switchableProxy(new URL(devnet.chains.base.rpcUrl));
    return { ...devnet.chains, base: { ...devnet.chains.base, rpcUrl: proxy.url() } };
  });
});
after(async () => {
  await env?.close();
  await proxy?.down().catch(() => undefined);
});

const state = {} as { pdf: Buffer; txHash: string; amount: bigint; proof: Record<string, string> };

test('Base RPC down: quotes still answer', async () => {
  const base = env.devnet.info.chains.base;
  state.pdf = await makePdf(1, 'rpc-down');
  const quote = await callTool(env.t.baseUrl, '/v1/pdf-text', state.pdf);
  assert.equal(quote.status, 402);
  state.amount = BigInt(quote.body.accepts.find((a: { network: string }) => a.network === 'base').maxAmountRequired);
  // The buyer pays through the chain itself; only the service's RPC is cut.
  state.txHash = await evmTransferUsdc({ rpcUrl: base.rpcUrl, chainId: base.chainId, usdc: base.usdc, privateKey: env.devnet.info.accounts[1].evmPrivateKey, to: base.payTo, amount: state.amount });
  state.proof = { 'x-payment': xPayment('base', 'exact', { tx_hash: state.txHash }) };

  await proxy.down();

  const again = await callTool(env.t.baseUrl, '/v1/pdf-text', await makePdf(1, 'rpc-down-quote'));
  assert.equal(again.status, 402);
  assert.equal(again.body.error, 'X-PAYMENT header is required');
});

test(
  'Base RPC down: a payment answers payment_unconfirmed or 503 with a clear message, not 500',
  async () => {
    const unconfirmed = await callTool(env.t.baseUrl, '/v1/pdf-text', state.pdf, state.proof);
    assert.ok(
      (unconfirmed.status === 402 && unconfirmed.body.error === 'payment_unconfirmed') || unconfirmed.status === 503,
      `${unconfirmed.status} ${JSON.stringify(unconfirmed.body)}`,
    );
    assert.ok(unconfirmed.body.message, 'the answer says what happened');
  },
);

test('Base RPC down: /v1/_health, /health/details and /metrics name the chain; the service stays in the balancer', async () => {
  const health = await fetch(`${env.t.baseUrl}/v1/_health`);
  assert.equal(health.status, 200, 'a chain down degrades the service, it does not take it out of the balancer');
  const h = (await health.json()) as { status: string; checks: { rpc: Record<string, { ok: boolean; error?: string }>; database: { ok: boolean } } };
  assert.equal(h.status, 'degraded');
  assert.equal(h.checks.rpc.base.ok, false);
  assert.equal(h.checks.rpc.base.error, undefined, 'why is the operator’s: an RPC error can carry its URL');
  const details = (await (await fetch(`${env.t.metricsUrl}/health/details`)).json()) as typeof h;
  assert.ok(details.checks.rpc.base.error);
  assert.equal(h.checks.rpc.polygon.ok, true);
  assert.equal(h.checks.rpc.solana.ok, true);
  assert.equal(h.checks.database.ok, true);

  const metrics = await (await fetch(`${env.t.metricsUrl}/metrics`)).text();
  assert.match(metrics, /^paycall_rpc_up\{chain="base"\} 0$/m);
  assert.match(metrics, /^paycall_rpc_up\{chain="polygon"\} 1$/m);
  assert.match(metrics, /^paycall_rpc_up\{chain="solana"\} 1$/m);
});

test('Base RPC back: the same proof buys the answer (the outage used nothing up)', async () => {
  await proxy.up();
  const paid = await callTool(env.t.baseUrl, '/v1/pdf-text', state.pdf, state.proof);
  assert.equal(paid.status, 200, JSON.stringify(paid.body));
  assert.match(paid.body.text, /rpc-down page 1/);
  const [row] = (await env.sql.query('select amount from payment where tx = $1', [state.txHash])).rows;
  assert.equal(row.amount, state.amount.toString());
});
