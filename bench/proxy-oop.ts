/**
 * The proxy's own cost out of process (issue 25 item 6): the upstream (bench/proxy-upstream.ts),
 * the forwarding server (bench/proxy-server.ts: spool, sign, forward, stream back, as a paid
 * seller call does) and the load generator (Debian's `wrk`, one thread, 32 connections) each in
 * a process of its own. Calling the upstream directly and through the proxy alternate in
 * BENCH_ROUNDS rounds (median shown), for a small JSON answer and for a 1 MB answer, with the
 * ratio proxy / direct and the CPU time per request of each process. Then the proxy's resident
 * memory while one 50 MB upload and one 50 MB answer pass through it (goal: flat, under 64 MB).
 * bench/proxy.ts keeps the in-process version.
 *
 *   npx tsx bench/proxy-oop.ts      BENCH_SECONDS=5 BENCH_ROUNDS=3 BENCH_CONNECTIONS=32
 *   BENCH_CPU_PROF=<dir>: the proxy process writes its CPU profile there (bench/profile-summary.ts).
 *   BENCH_BASE_ROOT=<a checkout>: a second forwarding server runs that checkout's src/proxy, measured
 *   in the same rounds (before / after on one machine state).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { CONNECTIONS, fixedBodyScript, procs, served, start, stopAll, wrk, type WrkResult } from './oop.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROOT = resolve(import.meta.dirname, '..');
const MB = 1024 * 1024;

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

export async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'paycall-proxy-oop-'));
  process.once('SIGINT', () => (procs.forEach((c) => c.kill('SIGTERM')), process.exit(130)));
  try {
    const up = start(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/proxy-upstream.ts')], { cwd: ROOT, env: {} });
    const upstream = served(`http://127.0.0.1:${(await up.waitFor(/port (\d+)/))[1]}`, up);
    const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${resolve(process.env.BENCH_CPU_PROF)}`] : [];
    const px = start(process.execPath, [...prof, '--import', 'tsx', join(ROOT, 'bench/proxy-server.ts'), upstream], { cwd: ROOT, env: {} });
    const proxy = served(`http://127.0.0.1:${(await px.waitFor(/port (\d+)/))[1]}`, px);
    const BASE = process.env.BENCH_BASE_ROOT ? resolve(process.env.BENCH_BASE_ROOT) : null;
    const bx = BASE ? start(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/proxy-server.ts'), upstream], { cwd: ROOT, env: { BENCH_CODE_ROOT: BASE } }) : null;
    const baseProxy = bx ? served(`http://127.0.0.1:${(await bx.waitFor(/port (\d+)/))[1]}`, bx) : null;

    const bodyFile = join(dir, 'small.json');
    await writeFile(bodyFile, JSON.stringify({ order: 'bench', items: [1, 2, 3] }));
    const script = join(dir, 'post.lua');
    await writeFile(script, fixedBodyScript(bodyFile, 'application/json'));
    const targets = [
      { label: 'direct upstream, small JSON', url: `${upstream}/small` },
      { label: 'through the proxy, small JSON', url: `${proxy}/small` },
      ...(baseProxy ? [{ label: 'through the base proxy, small JSON', url: `${baseProxy}/small` }] : []),
      { label: 'direct upstream, 1 MB answer', url: `${upstream}/1mb` },
      { label: 'through the proxy, 1 MB answer', url: `${proxy}/1mb` },
      ...(baseProxy ? [{ label: 'through the base proxy, 1 MB answer', url: `${baseProxy}/1mb` }] : []),
    ];
    console.log(`proxy bench, out of process: wrk -t1 -c${CONNECTIONS}, ${ROUNDS} alternating rounds of ${SECONDS} s (median shown), load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    for (const t of targets) await wrk(t.url, script, 1, ['200']);
    const runs = new Map<string, WrkResult[]>(targets.map((t) => [t.label, []]));
    for (let round = 0; round < ROUNDS; round++) for (const t of targets) runs.get(t.label)!.push(await wrk(t.url, script, SECONDS, ['200']));
    const mid = <T>(xs: T[], key: (x: T) => number) => [...xs].sort((a, b) => key(a) - key(b))[Math.floor(xs.length / 2)];
    const result = new Map([...runs].map(([k, v]) => [k, { ...mid(v, (r) => r.rps), cpuUs: mid(v, (r) => r.cpuUs).cpuUs }]));
    for (const [label, r] of result) {
      console.log(`${label.padEnd(36)} ${String(r.rps).padStart(7)} req/s   ${String(r.cpuUs).padStart(5)} µs CPU/req (${label.startsWith('direct') ? 'upstream' : label.includes('base') ? 'base proxy' : 'proxy'})   p50 ${r.p50ms} ms   p99 ${r.p99ms} ms${r.unexpected ? `   (${r.unexpected} unexpected statuses!)` : ''}   rounds: ${runs.get(label)!.map((x) => x.rps).join(' / ')}`);
    }
    console.log(`load average after the rounds: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    const rps = (l: string) => result.get(l)!.rps;
    console.log(`ratio (proxy / direct), small JSON:  ${(rps('through the proxy, small JSON') / rps('direct upstream, small JSON')).toFixed(2)}   (goal >= 0.8)`);
    console.log(`ratio (proxy / direct), 1 MB answer: ${(rps('through the proxy, 1 MB answer') / rps('direct upstream, 1 MB answer')).toFixed(2)}   (goal >= 0.95)`);
    if (baseProxy) {
      console.log(`base (${BASE}): ratio small JSON ${(rps('through the base proxy, small JSON') / rps('direct upstream, small JSON')).toFixed(2)}, 1 MB answer ${(rps('through the base proxy, 1 MB answer') / rps('direct upstream, 1 MB answer')).toFixed(2)}`);
    }

    // Memory: one 50 MB upload (spooled to disk) and one 50 MB answer (streamed through), RSS of the proxy process.
    const pid = px.child.pid!;
    const before = rssMb(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 10);
    const upload = Readable.from((function* () {
      for (let i = 0; i < 50; i++) yield Buffer.alloc(MB, 7);
    })());
    const upRes = await fetch(`${proxy}/small`, { method: 'POST', body: Readable.toWeb(upload) as ReadableStream, duplex: 'half', headers: { 'content-type': 'application/octet-stream' } } as RequestInit);
    const received = upRes.headers.get('x-received');
    await upRes.arrayBuffer();
    const down = await fetch(`${proxy}/big50`, { method: 'POST', body: '{}' });
    let got = 0;
    for await (const c of down.body as unknown as AsyncIterable<Uint8Array>) got += c.length;
    clearInterval(sampler);
    console.log(`proxy resident memory: ${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB during a 50 MB upload (upstream received ${received} bytes) and a 50 MB answer (${got} bytes): +${(peak - before).toFixed(1)} MB (goal: under 64 MB)`);
  } finally {
    await stopAll();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
