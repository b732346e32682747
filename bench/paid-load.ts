/**
 * Paid calls under load, on the devnet: N distinct one-page documents are quoted (402), each
 * is paid by its own USDC transfer on Base, then the paid retries run at concurrency 8 (the
 * first N) and at concurrency 1 (another N / 4). Prints paid calls per second and latency
 * p50/p95/p99 beside the 402 path's latency in the same run, and splits a paid call's time at
 * concurrency 1 into the bench's own HTTP client (with loopback: the call's latency minus the
 * time the service spent on the request, from its own request-duration histogram), RPC round
 * trips (measured at a timing proxy in front of the chain, the proxy's own handling included:
 * it stands in for the provider), the tool's run (pdf-text on one page, from the service's
 * tool-duration histogram) and what remains: the service's own overhead per paid call.
 * On PostgreSQL it also counts the statements each call sends (every pg client query, read
 * from a wrapper around pg's Client in this process): round trips, writes and transactions per
 * unpaid 402 and per paid call, at concurrency 1, and what one durable commit (a WAL flush)
 * costs on that database, beside one that does not wait for it.
 * Then, with DATABASE_URL and haproxy, paid calls per second in total and per instance for
 * 1, 2 and 3 instances behind the balancer, each instance a process of its own (bench/scale-out.ts).
 *   npx tsx bench/paid-load.ts            (PGlite)   DATABASE_URL=... npx tsx bench/paid-load.ts
 *   BENCH_DOCS=120 (default)  BENCH_INSTANCES=1,2,3 (default; empty: skip the scale-out part)
 *   BENCH_CPU_PROFILE=/tmp/paid.cpuprofile: a CPU profile of the concurrency-1 phase (bench/profile-summary.ts)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createApp } from '../src/app.ts';
import { createLogger } from '../src/log.ts';
import { startDevnet } from '../devnet/start-devnet.ts';
import { evmTransferUsdc } from '../sdk/wallet.ts';
import { makePdf, xPayment } from '../test/helpers/paid.ts';
import pg from 'pg';
import { loadavg } from 'node:os';
import { main as scaleOut } from './scale-out.ts';
import { createTestDatabase } from '../test/helpers/db.ts';

/** Every statement a pg client of this process sends, with when it was sent. */
const statements: { at: number; text: string }[] = [];
const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const q = args[0] as string | { text?: string };
  statements.push({ at: performance.now(), text: typeof q === 'string' ? q : (q?.text ?? '') });
  return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

/** Statements sent within [from, to]: all, writes (insert / update / delete, also inside a CTE), transactions begun. */
function countStatements(from: number, to: number, sample = false) {
  const inside = statements.filter((s) => s.at >= from && s.at <= to).map((s) => s.text.trim().toLowerCase());
  if (sample && process.env.BENCH_SQL_SAMPLE && inside.length > 1) {
    // BENCH_SQL_SAMPLE=1: the statements themselves, shortened (what each round trip is for).
    console.log(`statements of one paid call:\n${inside.map((t) => `  ${t.replace(/\s+/g, ' ').slice(0, 140)}`).join('\n')}`);
    delete process.env.BENCH_SQL_SAMPLE;
  }
  return {
    all: inside.length,
    writes: inside.filter((t) => /^(insert|update|delete)\b/.test(t) || (/^with\b/.test(t) && /\b(insert|update|delete)\b/.test(t))).length,
    transactions: inside.filter((t) => /^(begin|start transaction)\b/.test(t)).length,
  };
}

const DOCS = Number(process.env.BENCH_DOCS ?? 120);

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);
const ms = (v: number) => `${v.toFixed(1)} ms`;
const summary = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  return `p50 ${ms(percentile(s, 50))}  p95 ${ms(percentile(s, 95))}  p99 ${ms(percentile(s, 99))}`;
};

/** A JSON-RPC pass-through that records when each call was in flight. */
async function startTimingProxy(target: string) {
  const spans: [number, number][] = [];
  const server = createServer((req, res) => {
    // From the request's arrival to the answer handed to the socket: the proxy's own handling
    // counts as RPC (it stands in for the provider), the service's JSON-RPC client does not.
    const arrived = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) });
        const text = await upstream.text();
        res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
        spans.push([arrived, performance.now()]);
      } catch (e) {
        res.writeHead(502).end(String(e));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Milliseconds within [from, to] during which at least one RPC call was in flight. */
function rpcTimeWithin(spans: [number, number][], from: number, to: number): number {
  const inside = spans.map(([a, b]) => [Math.max(a, from), Math.min(b, to)] as const).filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  let total = 0;
  let end = -Infinity;
  for (const [a, b] of inside) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total;
}

/**
 * BENCH_CPU_PROFILE=<file>: a V8 CPU profile (100 µs sampling) of this process during the
 * concurrency-1 phase only, without start-up, quoting, paying and the concurrency-8 phase
 * (read it with bench/profile-summary.ts). The service, the bench's client and its timing proxy
 * share this process: their functions are told apart by file.
 */
async function startProfile() {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) => new Promise<unknown>((resolve, reject) => session.post(method, params ?? {}, (err, r) => (err ? reject(err) : resolve(r))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 100 });
  await post('Profiler.start');
  return {
    async stop(file: string) {
      const { profile } = (await post('Profiler.stop')) as { profile: object };
      await writeFile(file, JSON.stringify(profile));
      session.disconnect();
      console.log(`CPU profile of the concurrency-1 phase: ${file}`);
    },
  };
}

async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

export async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'paycall-paid-load-'));
  const devnet = await startDevnet({ dataDir: join(dir, 'devnet'), log: createLogger('silent') });
  const proxy = await startTimingProxy(devnet.chains.base.rpcUrl);
  // The service logs at info as it does in production (every line formatted), into nothing.
  const log = createLogger('info', {}, () => undefined);
  // A database of its own: the devnet starts afresh each run, so its transaction hashes repeat,
  // and receipts a previous run consumed would answer this run's payments 409.
  const db = process.env.DATABASE_URL ? await createTestDatabase('paidload') : null;
  const env = { PORT: '0', METRICS_PORT: '0', LOG_LEVEL: 'info', RATE_LIMITS: 'off', PAYCALL_START_DEVNET: '0', PGLITE_DIR: join(dir, 'pglite'), PAYCALL_DATA_DIR: dir, DATABASE_URL: db?.url ?? '' };
  const config = { ...loadConfig(env), chains: { ...devnet.chains, base: { ...devnet.chains.base, rpcUrl: proxy.url } } };
  const app = await createApp(config, log);
  const { port } = await app.listen();
  /** Milliseconds the service has spent on requests and on tool runs so far (its histograms' sums). */
  const sumMs = async (h: { get(): Promise<{ values: { metricName?: string; value: number }[] }> }) =>
    (await h.get()).values.filter((v) => v.metricName?.endsWith('_sum')).reduce((a, v) => a + v.value * 1000, 0);
  const serviceTimes = async () => ({ server: await sumMs(app.metrics.httpDuration), tool: await sumMs(app.metrics.toolDuration) });
  const url = `http://127.0.0.1:${port}/v1/pdf-text`;
  const buyer = devnet.info.accounts[0].evmPrivateKey;
  const { chainId, usdc, payTo } = devnet.chains.base;

  type Doc = { pdf: Buffer; amount: bigint; tx?: string };
  const docs: Doc[] = [];
  for (let i = 0; i < DOCS + Math.ceil(DOCS / 4); i++) docs.push({ pdf: await makePdf(1, `paid load document ${i}`), amount: 0n });
  const post = (doc: Doc, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/pdf', ...headers }, body: new Uint8Array(doc.pdf) });

  console.log(`paid-load bench: ${docs.length} one-page documents on Base (devnet), database ${config.databaseUrl ? 'PostgreSQL' : 'PGlite'}`);
  const quoteLatency: number[] = [];
  const quoteStatements: ReturnType<typeof countStatements>[] = [];
  for (const doc of docs) {
    const started = performance.now();
    const res = await post(doc);
    quoteLatency.push(performance.now() - started);
    // The quote write is group-committed: its statements may leave just after the 402 does.
    await new Promise((r) => setTimeout(r, 5));
    quoteStatements.push(countStatements(started, performance.now()));
    if (res.status !== 402) throw new Error(`expected a 402 quote, got ${res.status}`);
    doc.amount = BigInt(((await res.json()) as { accepts: { maxAmountRequired: string }[] }).accepts[0].maxAmountRequired);
  }
  const paying = performance.now();
  for (const doc of docs) doc.tx = await evmTransferUsdc({ rpcUrl: devnet.chains.base.rpcUrl, chainId, usdc, privateKey: buyer, to: payTo, amount: doc.amount });
  console.log(`quoted and paid ${docs.length} documents (${((performance.now() - paying) / 1000).toFixed(1)} s of transfers, one block each)`);

  const statuses = new Map<number, number>();
  const run = async (set: Doc[], concurrency: number) => {
    const latency: number[] = [];
    const split: { rpc: number; tool: number; rest: number; client: number; overhead: number }[] = [];
    const sql: ReturnType<typeof countStatements>[] = [];
    const rpcCalls: number[] = [];
    const started = performance.now();
    await pool(set, concurrency, async (doc) => {
      const id = `paid-${doc.tx!.slice(2, 18)}`;
      // At concurrency 1 the service's histograms change only by this call: their sums before
      // and after give its time in the service and its tool's run, to the microsecond.
      const before = concurrency === 1 ? await serviceTimes() : null;
      const t0 = performance.now();
      const res = await post(doc, { 'x-payment': xPayment('base', 'exact', { tx_hash: doc.tx! }), 'x-request-id': id });
      await res.arrayBuffer();
      const t1 = performance.now();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      latency.push(t1 - t0);
      const rpc = rpcTimeWithin(proxy.spans, t0, t1);
      if (before) {
        const after = await serviceTimes();
        const [server, tool] = [after.server - before.server, after.tool - before.tool];
        split.push({ rpc, tool, rest: t1 - t0 - rpc - tool, client: t1 - t0 - server, overhead: server - rpc - tool });
      }
      // A paid call's work may finish just after its answer (the answer store): a breath before counting.
      if (concurrency === 1) {
        await new Promise((r) => setTimeout(r, 20));
        sql.push(countStatements(t0, performance.now(), true));
        rpcCalls.push(proxy.spans.filter(([a]) => a >= t0 && a <= t1).length);
      }
    });
    const seconds = (performance.now() - started) / 1000;
    return { latency, split, sql, rpcCalls, rps: set.length / seconds };
  };
  const c8 = await run(docs.slice(0, DOCS), 8);
  const profiling = process.env.BENCH_CPU_PROFILE ? await startProfile() : null;
  const c1 = await run(docs.slice(DOCS), 1);
  if (profiling) await profiling.stop(process.env.BENCH_CPU_PROFILE!);

  const med = (k: 'rpc' | 'tool' | 'rest' | 'client' | 'overhead') => ms(percentile(c1.split.map((s) => s[k]).sort((a, b) => a - b), 50));
  console.log(`unpaid 402 (quote), sequential        ${summary(quoteLatency)}`);
  console.log(`paid calls, concurrency 8  ${c8.rps.toFixed(1).padStart(7)} calls/s   ${summary(c8.latency)}`);
  console.log(`paid calls, concurrency 1  ${c1.rps.toFixed(1).padStart(7)} calls/s   ${summary(c1.latency)}`);
  console.log(`paid call at concurrency 1, p50 of each part: the bench's client and loopback ${med('client')}, RPC round trips ${med('rpc')} (${percentile([...c1.rpcCalls].sort((a, b) => a - b), 50)} JSON-RPC calls), pdf-text run ${med('tool')}, service overhead ${med('overhead')} (goal < 5 ms); latency minus RPC and tool, the figure reported before, which counts the client too: ${med('rest')}`);
  if (config.databaseUrl) {
    const p50 = (xs: ReturnType<typeof countStatements>[], k: 'all' | 'writes' | 'transactions') => percentile(xs.map((x) => x[k]).sort((a, b) => a - b), 50);
    const max = (xs: ReturnType<typeof countStatements>[], k: 'all' | 'writes' | 'transactions') => Math.max(...xs.map((x) => x[k]));
    console.log(`database statements per unpaid 402 (p50 / max): ${p50(quoteStatements, 'all')} / ${max(quoteStatements, 'all')} round trips, ${p50(quoteStatements, 'writes')} / ${max(quoteStatements, 'writes')} writes (sequential: no group commit to share)`);
    console.log(`database statements per paid call (p50 / max): ${p50(c1.sql, 'all')} / ${max(c1.sql, 'all')} round trips, ${p50(c1.sql, 'writes')} / ${max(c1.sql, 'writes')} writes, ${p50(c1.sql, 'transactions')} / ${max(c1.sql, 'transactions')} transactions`);
  }
  if (db) {
    // What one durable commit costs on this database's disk (a WAL flush): a paid call waits
    // for two (the receipt consumed with its ledger row, then its stored answer), and on a
    // shared or slow disk they are most of the "service overhead" above.
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    await c.query('create table bench_commit (id serial primary key, body text)');
    const commit = async (mode: 'on' | 'off') => {
      await c.query(`set synchronous_commit = ${mode}`);
      const times: number[] = [];
      for (let i = 0; i < 100; i++) {
        const t = performance.now();
        await c.query(`insert into bench_commit (body) values (repeat('x', 3000))`);
        times.push(performance.now() - t);
      }
      return summary(times);
    };
    console.log(`one insert of 3 KB, its own transaction: durable commit (synchronous_commit on, as a paid call's two writes) ${await commit('on')}; without waiting for the WAL flush (off, as quotes) ${await commit('off')}`);
    await c.end();
  }
  console.log(`load average: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`answers: ${[...statuses].map(([s, n]) => `${n} x ${s}`).join(', ')}${statuses.size === 1 && statuses.has(200) ? ' (every honest payment answered 200)' : '  <-- not every payment was answered 200!'}`);

  await app.close();
  await proxy.close();
  await devnet.stop();
  await db?.drop();
  await rm(dir, { recursive: true, force: true });

  const counts = process.env.BENCH_INSTANCES ?? '1,2,3';
  if (counts && config.databaseUrl) {
    process.env.BENCH_INSTANCES = counts;
    await scaleOut();
  } else if (counts) console.log('paid calls per instance behind the balancer: skipped (needs DATABASE_URL: instances share one PostgreSQL)');
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
