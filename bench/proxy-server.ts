/**
 * The forwarding of an already verified call, as a paid seller call does it (spool the body,
 * sign, forward through the production upstream dispatcher, stream the answer back), served
 * by a node:http server in a process of its own for bench/proxy-oop.ts (the answer goes out
 * through the server's own streamAnswer). Every request is
 * forwarded to <upstream origin><same path>. Prints `port <n>`.
 *
 * BENCH_CODE_ROOT=<a checkout>: forwards with that checkout's src/proxy (bench/proxy-oop.ts's
 * BENCH_BASE_ROOT, before / after in one run).
 *
 *   node --import tsx bench/proxy-server.ts <upstream origin>
 */
import { createServer } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import { join, resolve } from 'node:path';
import { streamAnswer } from '../src/http/server.ts';

const CODE = resolve(process.env.BENCH_CODE_ROOT ?? join(import.meta.dirname, '..'));
const { createForwardSigner } = (await import(join(CODE, 'src/proxy/forward-signature.ts'))) as typeof import('../src/proxy/forward-signature.ts');
const { forwardCall } = (await import(join(CODE, 'src/proxy/forward.ts'))) as typeof import('../src/proxy/forward.ts');
const { spoolBody } = (await import(join(CODE, 'src/proxy/spool-body.ts'))) as typeof import('../src/proxy/spool-body.ts');
const { createUpstreamClient } = (await import(join(CODE, 'src/proxy/upstream-client.ts'))) as typeof import('../src/proxy/upstream-client.ts');

const upstream = process.argv[2];
const client = createUpstreamClient({ allowLocal: true, caFile: null });
const deps = { dispatcher: client.dispatcher, signer: createForwardSigner(generateKeyPairSync('ed25519').privateKey, 'bench'), timeoutMs: 30_000, retryWindowMs: 60_000, retryBaseMs: 500 };
const payment = { payer: '0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9', tx: `0x${'ab'.repeat(32)}`, network: 'base' };

const server = createServer(async (req, res) => {
  let body: Awaited<ReturnType<typeof spoolBody>> | undefined;
  try {
    body = await spoolBody(req, 100 * 1024 * 1024);
    const answer = await forwardCall(deps, { mode: 'proxy', upstreamUrl: `${upstream}${req.url}`, method: req.method ?? 'POST', headers: req.headers, body, payment, clientIp: req.socket.remoteAddress ?? '' });
    res.writeHead(answer.status, answer.headers);
    // As src/http/server.ts sends a streamed answer.
    await new Promise<void>((resolve) => {
      res.once('close', resolve);
      streamAnswer(answer.body, res, () => undefined);
    });
  } catch (err) {
    if (!res.headersSent) res.writeHead(502).end(String(err));
    else res.destroy();
  } finally {
    await body?.discard();
  }
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`port ${(server.address() as { port: number }).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
