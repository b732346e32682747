/**
 * The forwarding of an already verified call (spool the body, sign, forward, stream the answer
 * back, as a paid seller call does) against calling the same local upstream directly, in the
 * same run: requests per second and p50/p99 latency for small JSON answers and for 1 MB
 * answers, with the ratio. Then the resident memory added by one 50 MB upload and one 50 MB
 * answer through the proxy (the goal: under 64 MB).
 *
 *   npx tsx bench/proxy.ts   (or npm run bench -- proxy)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { createForwardSigner } from '../src/proxy/forward-signature.ts';
import { forwardCall } from '../src/proxy/forward.ts';
import { spoolBody } from '../src/proxy/spool-body.ts';
import { oneMb, small, upstreamHandler } from './proxy-upstream.ts';

const MB = 1024 * 1024;
async function startUpstream() {
  const server = createServer(upstreamHandler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const pct = (xs: number[], p: number) => xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

async function measure(label: string, n: number, concurrency: number, one: () => Promise<void>) {
  const lat: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < n) {
        const t0 = performance.now();
        await one();
        lat.push(performance.now() - t0);
      }
    }),
  );
  const secs = (performance.now() - started) / 1000;
  const rps = n / secs;
  console.log(`${label.padEnd(34)} ${rps.toFixed(0).padStart(6)} req/s   p50 ${pct(lat, 50).toFixed(2)} ms   p99 ${pct(lat, 99).toFixed(2)} ms`);
  return rps;
}

export async function main() {
  const { server, url } = await startUpstream();
  const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
  const signer = createForwardSigner(generateKeyPairSync('ed25519').privateKey, 'bench');
  const deps = { dispatcher, signer, timeoutMs: 30_000, retryWindowMs: 60_000, retryBaseMs: 500 };
  const payment = { payer: '0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9', tx: `0x${'ab'.repeat(32)}`, network: 'base' };
  const drain = async (r: Readable) => {
    for await (const _ of r);
  };
  const direct = (path: string) => async () => {
    const res = await request(`${url}${path}`, { dispatcher, method: 'POST', body: small, headers: { 'content-type': 'application/json' } });
    await drain(res.body);
  };
  const proxied = (path: string) => async () => {
    const body = await spoolBody(Readable.from([small]), 50 * MB);
    try {
      const answer = await forwardCall(deps, { mode: 'proxy', upstreamUrl: `${url}${path}`, method: 'POST', headers: { 'content-type': 'application/json' }, body, payment, clientIp: '127.0.0.1' });
      await drain(answer.body);
    } finally {
      await body.discard();
    }
  };
  for (const [name, path, n] of [['small JSON', '/small', 3000], ['1 MB answer', '/1mb', 400]] as const) {
    await measure(`warm-up ${name}`, 200, 8, direct(path));
    const d = await measure(`direct upstream, ${name}`, n, 8, direct(path));
    const p = await measure(`through the proxy, ${name}`, n, 8, proxied(path));
    console.log(`ratio (proxy / direct), ${name}: ${(p / d).toFixed(2)}`);
  }

  // Memory: one 50 MB upload (spooled to disk) and one 50 MB answer (streamed through).
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const upload = await spoolBody(Readable.from((function* () {
    for (let i = 0; i < 50; i++) yield oneMb;
  })()), 51 * MB);
  const up = await forwardCall(deps, { mode: 'proxy', upstreamUrl: `${url}/small`, method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: upload, payment, clientIp: '127.0.0.1' });
  await drain(up.body);
  await upload.discard();
  const answerBody = await spoolBody(Readable.from([small]), MB);
  const down = await forwardCall(deps, { mode: 'proxy', upstreamUrl: `${url}/big50`, method: 'POST', headers: { 'content-type': 'application/json' }, body: answerBody, payment, clientIp: '127.0.0.1' });
  await drain(down.body);
  await answerBody.discard();
  clearInterval(sampler);
  console.log(`resident memory: before ${(rssBefore / MB).toFixed(0)} MB, peak during a 50 MB upload and a 50 MB answer ${(peak / MB).toFixed(0)} MB: +${((peak - rssBefore) / MB).toFixed(1)} MB (goal: under 64 MB)`);

  await dispatcher.close();
  server.closeAllConnections();
  server.close();
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
