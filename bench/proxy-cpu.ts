/**
 * The proxy's own CPU per forwarded call, the figure a busy machine disturbs least (requests
 * per second on the shared 2-core machine scatter by a factor of 3 between rounds): the same
 * calls as bench/proxy.ts (spool, sign, forward through the production upstream dispatcher,
 * drain), one at a time, against calling the upstream directly, with process CPU time (user +
 * system, process.cpuUsage) per call. The upstream runs in a process of its own
 * (bench/proxy-upstream.ts), so only the client side is counted. Medians of alternating rounds.
 * BENCH_CODE_ROOT=<a checkout> measures that code's src/proxy (before / after on one machine).
 *
 *   npx tsx bench/proxy-cpu.ts     BENCH_CALLS=2000 BENCH_ROUNDS=5
 */
import { generateKeyPairSync } from 'node:crypto';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { start, stopAll } from './oop.ts';

const ROOT = resolve(import.meta.dirname, '..');
const CODE = resolve(process.env.BENCH_CODE_ROOT ?? ROOT);
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const { createForwardSigner } = (await import(join(CODE, 'src/proxy/forward-signature.ts'))) as typeof import('../src/proxy/forward-signature.ts');
const { forwardCall } = (await import(join(CODE, 'src/proxy/forward.ts'))) as typeof import('../src/proxy/forward.ts');
const { spoolBody } = (await import(join(CODE, 'src/proxy/spool-body.ts'))) as typeof import('../src/proxy/spool-body.ts');
const { createUpstreamClient } = (await import(join(CODE, 'src/proxy/upstream-client.ts'))) as typeof import('../src/proxy/upstream-client.ts');

const up = start(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/proxy-upstream.ts')], { cwd: ROOT, env: {} });
const upstream = `http://127.0.0.1:${(await up.waitFor(/port (\d+)/))[1]}`;
const client = createUpstreamClient({ allowLocal: true, caFile: null });
const deps = { dispatcher: client.dispatcher, signer: createForwardSigner(generateKeyPairSync('ed25519').privateKey, 'bench'), timeoutMs: 30_000, retryWindowMs: 60_000, retryBaseMs: 500 };
const payment = { payer: '0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9', tx: `0x${'ab'.repeat(32)}`, network: 'base' };
const small = Buffer.from(JSON.stringify({ order: 'bench', items: [1, 2, 3] }));
const headers = { 'content-type': 'application/json', host: 'paycall.test', 'user-agent': 'bench' };

const direct = async () => {
  const res = await request(`${upstream}/small`, { dispatcher: client.dispatcher, method: 'POST', body: small, headers: { 'content-type': 'application/json' } });
  await res.body.dump();
};
const proxied = async () => {
  const body = await spoolBody(Readable.from([small]), 1024 * 1024);
  try {
    const answer = await forwardCall(deps, { mode: 'proxy', upstreamUrl: `${upstream}/small`, method: 'POST', headers, body, payment, clientIp: '127.0.0.1' });
    for await (const _ of answer.body);
  } finally {
    await body.discard();
  }
};
const cpuPerCall = async (one: () => Promise<void>) => {
  const before = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) await one();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / CALLS;
};
for (let i = 0; i < 300; i++) await proxied();
const runs = { direct: [] as number[], proxied: [] as number[] };
const load0 = loadavg()[0];
for (let r = 0; r < ROUNDS; r++) {
  runs.direct.push(await cpuPerCall(direct));
  runs.proxied.push(await cpuPerCall(proxied));
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`proxy CPU per call (${CODE === ROOT ? 'this code' : CODE}), ${ROUNDS} alternating rounds of ${CALLS} sequential small-JSON calls, load average ${load0.toFixed(1)} -> ${loadavg()[0].toFixed(1)}`);
console.log(`  direct (client side of a call): ${med(runs.direct).toFixed(0)} µs   rounds ${runs.direct.map((x) => x.toFixed(0)).join(' / ')}`);
console.log(`  proxied (spool, sign, forward, drain): ${med(runs.proxied).toFixed(0)} µs   rounds ${runs.proxied.map((x) => x.toFixed(0)).join(' / ')}`);
console.log(`  the proxy's own work per call: ${(med(runs.proxied) - med(runs.direct)).toFixed(0)} µs`);
await client.close();
await stopAll();
