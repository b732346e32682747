/**
 * A JSON-RPC proxy in front of a devnet chain, for the one thing a local chain cannot show
 * by itself: what a mainnet RPC node does differently (estimating gas against `latest`, state
 * changing between a transaction's preflight and its execution). `onCall` may act before a
 * call is forwarded and return replacement params; everything else passes through unchanged.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type RpcHook = (method: string, params: unknown[]) => Promise<unknown[] | void> | unknown[] | void;

export interface RpcProxy {
  url: string;
  calls: { method: string; params: unknown[] }[];
  close(): Promise<void>;
}

interface RpcRequest {
  jsonrpc: string;
  id: unknown;
  method: string;
  params?: unknown[];
}

export async function startRpcProxy(target: string, onCall: RpcHook): Promise<RpcProxy> {
  const calls: RpcProxy['calls'] = [];
  const forward = async (body: RpcRequest | RpcRequest[]) => {
    const res = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return res.text();
  };
  const rewrite = async (r: RpcRequest): Promise<RpcRequest> => {
    const params = r.params ?? [];
    calls.push({ method: r.method, params });
    const replaced = await onCall(r.method, params);
    return replaced ? { ...r, params: replaced } : r;
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RpcRequest | RpcRequest[];
        const rewritten = Array.isArray(parsed) ? await Promise.all(parsed.map(rewrite)) : await rewrite(parsed);
        const text = await forward(rewritten);
        res.writeHead(200, { 'content-type': 'application/json' }).end(text);
      } catch (e) {
        res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: String(e) } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
