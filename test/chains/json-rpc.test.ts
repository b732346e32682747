/**
 * The lean JSON-RPC client of the paid path (src/chains/json-rpc.ts) against real local nodes
 * that misbehave: it retries what viem retries and nothing else, bounds every attempt in time and
 * every answer in size, and names its failures as viem does (so the service answers 503).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createJsonRpc, MAX_ANSWER_BYTES } from '../../src/chains/json-rpc.ts';

/** A node whose answers `answer(n, req, res)` writes for its n-th request (from 1). */
async function node(answer: (n: number, req: IncomingMessage, res: ServerResponse) => void) {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(++n, req, res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: () => n,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}
const ok = (res: ServerResponse, result: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: 1, result }));
const rpcError = (res: ServerResponse, code: number) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code, message: `code ${code}` } }));

test('a 503, then an answer: retried and answered; a rate-limit code is retried, a refusal for good is not', async () => {
  const flaky = await node((n, _q, res) => (n === 1 ? res.writeHead(503).end() : ok(res, '0x1')));
  const limited = await node((_n, _q, res) => rpcError(res, -32005));
  const refused = await node((_n, _q, res) => rpcError(res, -32602));
  try {
    assert.equal(await createJsonRpc(flaky.url, { timeoutMs: 2000, retryCount: 2, retryDelayMs: 5 })('eth_blockNumber', []), '0x1');
    assert.equal(flaky.calls(), 2);
    await assert.rejects(createJsonRpc(limited.url, { timeoutMs: 2000, retryCount: 2, retryDelayMs: 5 })('eth_getTransactionReceipt', ['0x00']), { name: 'RpcRequestError', code: -32005 });
    assert.equal(limited.calls(), 3, 'the first attempt and two retries');
    await assert.rejects(createJsonRpc(refused.url, { timeoutMs: 2000, retryCount: 2, retryDelayMs: 5 })('eth_getTransactionReceipt', ['bad']), { name: 'RpcRequestError', code: -32602 });
    assert.equal(refused.calls(), 1, 'not retried');
  } finally {
    await Promise.all([flaky.close(), limited.close(), refused.close()]);
  }
});

test('a node that never answers, or answers without end, is a TimeoutError per attempt; a closed port is an HttpRequestError', async () => {
  const silent = await node(() => undefined);
  const dripping = await node((_n, _q, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }); // chunked, no length
    res.write('{"jsonrpc":"2.0","id":1,"result":"');
    const t = setInterval(() => res.write('0'), 20);
    res.on('close', () => clearInterval(t));
  });
  try {
    const started = performance.now();
    await assert.rejects(createJsonRpc(silent.url, { timeoutMs: 200, retryCount: 1, retryDelayMs: 5 })('eth_blockNumber', []), { name: 'TimeoutError' });
    assert.equal(silent.calls(), 2);
    assert.ok(performance.now() - started < 5_000, 'bounded, not waiting for the node');
    await assert.rejects(createJsonRpc(dripping.url, { timeoutMs: 200, retryCount: 0 })('eth_blockNumber', []), { name: 'TimeoutError' });
  } finally {
    await Promise.all([silent.close(), dripping.close()]);
  }
  const gone = await node(() => undefined);
  const url = gone.url;
  await gone.close();
  await assert.rejects(createJsonRpc(url, { timeoutMs: 2000, retryCount: 0 })('eth_blockNumber', []), (e: Error & { code?: string }) => e.name === 'HttpRequestError' && e.code === 'ECONNREFUSED');
});

test('an answer over the size bound is cut off and not retried; a non-JSON answer is refused; a huge Retry-After is not waited out', async () => {
  const flood = await node((_n, _q, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = 'x'.repeat(1024 * 1024);
    let sent = 0;
    const more = () => {
      while (sent < MAX_ANSWER_BYTES * 4 && res.write(chunk)) sent += chunk.length;
      if (sent < MAX_ANSWER_BYTES * 4) res.once('drain', more);
    };
    res.write('{"result":"');
    more();
  });
  const garbage = await node((_n, _q, res) => res.writeHead(200).end('<html>not json</html>'));
  const slowDown = await node((n, _q, res) => (n === 1 ? res.writeHead(429, { 'retry-after': '100000' }).end() : ok(res, '0x2')));
  try {
    await assert.rejects(createJsonRpc(flood.url, { timeoutMs: 20_000, retryCount: 2, retryDelayMs: 5 })('eth_getBlockByNumber', ['latest', false]), { name: 'HttpRequestError', message: /over \d+ bytes/ });
    assert.equal(flood.calls(), 1, 'a node that sent too much is not asked again');
    await assert.rejects(createJsonRpc(garbage.url, { timeoutMs: 2000, retryCount: 0 })('eth_blockNumber', []), { name: 'HttpRequestError', message: /not JSON/ });
    const started = performance.now();
    assert.equal(await createJsonRpc(slowDown.url, { timeoutMs: 2000, retryCount: 1 })('eth_blockNumber', []), '0x2');
    assert.ok(performance.now() - started < 10_000, 'Retry-After: 100000 s is capped');
  } finally {
    await Promise.all([flood.close(), garbage.close(), slowDown.close()]);
  }
});
