/**
 * The forwarding of an already verified call (spool the body, sign, forward, stream the answer
 * back, as a paid seller call does) against calling the same local upstream directly, in the
 * same run: requests per second and p50/p99 latency for small JSON answers and for 1 MB
 * answers, with the ratio. Then the resident memory added by one 50 MB upload and one 50 MB
 * answer through the proxy (the goal: under 64 MB), and by one 150 MB upload (flat: no more).
 *
 * Both sides are measured the same way: the same client (the production upstream dispatcher,
 * createUpstreamClient, keep-alive), the same concurrency (8), the same request body, each
 * warmed up, in BENCH_ROUNDS rounds whose order rotates (a busy shared machine drifts within a
 * run; one round each, direct first, measured a cold proxy path against a warm direct one).
 * Shown: the median of each and the ratio of the medians, with every round's figure, and the
 * process's CPU time per call (user + system, all threads: upstream, client, GC, and any work
 * handed to libuv's pool), the figure a busy machine disturbs least.
 * BENCH_BASE_ROOT=<a checkout> also measures that checkout's src/proxy in the same rounds
 * (before / after in one run, on one machine state).
 *
 *   npx tsx bench/proxy.ts   (or npm run bench -- proxy)   BENCH_ROUNDS=5 BENCH_BASE_ROOT=/tmp/base
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { createForwardSigner } from '../src/proxy/forward-signature.ts';
import { forwardCall } from '../src/proxy/forward.ts';
import { spoolBody } from '../src/proxy/spool-body.ts';
import { createUpstreamClient } from '../src/proxy/upstream-client.ts';
import { oneMb, small, upstreamHandler } from './proxy-upstream.ts';

const MB = 1024 * 1024;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BASE = process.env.BENCH_BASE_ROOT ? resolve(process.env.BENCH_BASE_ROOT) : null;
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

async function startUpstream() {
  const server = createServer(upstreamHandler);
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

const pct = (xs: number[], p: number) => xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(n: number, concurrency: number, one: () => Promise<void>) {
  const lat: number[] = [];
  let next = 0;
  const started = performance.now();
  const cpu0 = process.cpuUsage();
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
  const cpu = process.cpuUsage(cpu0);
  return { rps: n / secs, cpuUs: (cpu.user + cpu.system) / n, p50: pct(lat, 50), p99: pct(lat, 99) };
}

type ProxyCode = { forwardCall: typeof forwardCall; spoolBody: typeof spoolBody; createForwardSigner: typeof createForwardSigner };
async function codeAt(root: string): Promise<ProxyCode> {
  const { forwardCall } = (await import(join(root, 'src/proxy/forward.ts'))) as typeof import('../src/proxy/forward.ts');
  const { spoolBody } = (await import(join(root, 'src/proxy/spool-body.ts'))) as typeof import('../src/proxy/spool-body.ts');
  const { createForwardSigner } = (await import(join(root, 'src/proxy/forward-signature.ts'))) as typeof import('../src/proxy/forward-signature.ts');
  return { forwardCall, spoolBody, createForwardSigner };
}

export async function main() {
  const upstream = await startUpstream();
  const { url } = upstream;
  // The production client for sellers' upstreams (SSRF-guarded connector, keep-alive), for both sides.
  const client = createUpstreamClient({ allowLocal: true, caFile: null });
  const { dispatcher } = client;
  const key = generateKeyPairSync('ed25519').privateKey;
  const payment = { payer: '0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9', tx: `0x${'ab'.repeat(32)}`, network: 'base' };
  const drain = async (r: Readable) => {
    for await (const _ of r);
  };
  const direct = (path: string) => async () => {
    const res = await request(`${url}${path}`, { dispatcher, method: 'POST', body: small, headers: { 'content-type': 'application/json' } });
    await drain(res.body);
  };
  const proxiedWith = (code: ProxyCode) => {
    const deps = { dispatcher, signer: code.createForwardSigner(key, 'bench'), timeoutMs: 30_000, retryWindowMs: 60_000, retryBaseMs: 500 };
    return (path: string) => async () => {
      const body = await code.spoolBody(Readable.from([small]), 50 * MB);
      try {
        const answer = await code.forwardCall(deps, { mode: 'proxy', upstreamUrl: `${url}${path}`, method: 'POST', headers: { 'content-type': 'application/json' }, body, payment, clientIp: '127.0.0.1' });
        await drain(answer.body);
      } finally {
        await body.discard();
      }
    };
  };
  const variants: [string, (path: string) => () => Promise<void>][] = [
    ['direct upstream', direct],
    ['through the proxy', proxiedWith({ forwardCall, spoolBody, createForwardSigner })],
  ];
  if (BASE) variants.push([`through the proxy, ${BASE}`, proxiedWith(await codeAt(BASE))]);

  console.log(`proxy bench, in process: concurrency 8, ${ROUNDS} rounds in rotating order (median shown), load average ${load()}`);
  for (const [name, path, n] of [['small JSON', '/small', 3000], ['1 MB answer', '/1mb', 400]] as const) {
    for (const [, make] of variants) await measure(Math.min(n, 400), 8, make(path));
    const connectionsBefore = upstream.connections();
    const runs = variants.map(() => [] as Awaited<ReturnType<typeof measure>>[]);
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < variants.length; k++) {
        const i = (k + round) % variants.length;
        runs[i].push(await measure(n, 8, variants[i][1](path)));
      }
    }
    const rps = runs.map((r) => median(r.map((x) => x.rps)));
    variants.forEach(([label], i) => {
      const r = runs[i];
      console.log(`${`${label}, ${name}`.padEnd(40)} ${rps[i].toFixed(0).padStart(6)} req/s   ${median(r.map((x) => x.cpuUs)).toFixed(0).padStart(4)} µs CPU/call   p50 ${median(r.map((x) => x.p50)).toFixed(2)} ms   p99 ${median(r.map((x) => x.p99)).toFixed(2)} ms   rounds: ${r.map((x) => x.rps.toFixed(0)).join(' / ')}`);
    });
    const goal = name === 'small JSON' ? 0.8 : 0.95;
    console.log(`ratio (proxy / direct), ${name}: ${(rps[1] / rps[0]).toFixed(2)}   (goal >= ${goal}; per round ${runs[1].map((r, k) => (r.rps / runs[0][k].rps).toFixed(2)).join(' / ')})`);
    if (BASE) console.log(`ratio (${BASE} proxy / direct), ${name}: ${(rps[2] / rps[0]).toFixed(2)}   (per round ${runs[2].map((r, k) => (r.rps / runs[0][k].rps).toFixed(2)).join(' / ')})`);
    // Keep-alive: the measured calls reuse the warm-up's connections (a new one per call would show here).
    console.log(`upstream connections opened during the ${name} rounds: ${upstream.connections() - connectionsBefore} (${ROUNDS * n * variants.length} calls)`);
  }
  console.log(`load average after the rounds: ${load()}`);

  // Memory: one 50 MB upload (spooled to disk) and one 50 MB answer (streamed through); then a
  // 150 MB upload, which must not add more: what a body costs in memory must not grow with its
  // size. (The growth itself is garbage waiting for a collection: the 64 KB chunks live outside
  // V8's heap, which collects them about every 64 MB of such allocations; a fresh process, whose
  // heap has not grown yet, shows more of it than this one after the rounds above.)
  const deps = { dispatcher, signer: createForwardSigner(key, 'bench'), timeoutMs: 30_000, retryWindowMs: 60_000, retryBaseMs: 500 };
  const uploadOf = async (mb: number) => {
    const upload = await spoolBody(Readable.from((function* () {
      for (let i = 0; i < mb; i++) yield oneMb;
    })()), (mb + 1) * MB);
    const up = await forwardCall(deps, { mode: 'proxy', upstreamUrl: `${url}/small`, method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: upload, payment, clientIp: '127.0.0.1' });
    const received = up.headers['x-received'];
    await drain(up.body);
    await upload.discard();
    return received;
  };
  const peakDuring = async (work: () => Promise<unknown>) => {
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const result = await work();
    clearInterval(sampler);
    return { before, peak, result };
  };
  const both = await peakDuring(async () => {
    const received = await uploadOf(50);
    const answerBody = await spoolBody(Readable.from([small]), MB);
    const down = await forwardCall(deps, { mode: 'proxy', upstreamUrl: `${url}/big50`, method: 'POST', headers: { 'content-type': 'application/json' }, body: answerBody, payment, clientIp: '127.0.0.1' });
    await drain(down.body);
    await answerBody.discard();
    return received;
  });
  console.log(`resident memory: before ${(both.before / MB).toFixed(0)} MB, peak during a 50 MB upload (upstream received ${both.result} bytes) and a 50 MB answer ${(both.peak / MB).toFixed(0)} MB: +${((both.peak - both.before) / MB).toFixed(1)} MB (goal: under 64 MB)`);
  const big = await peakDuring(() => uploadOf(150));
  console.log(`resident memory during a 150 MB upload (upstream received ${big.result} bytes): +${((big.peak - big.before) / MB).toFixed(1)} MB (goal: under 64 MB too, whatever the size)`);

  await client.close();
  upstream.server.closeAllConnections();
  upstream.server.close();
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
