/**
 * Paid throughput with 1, 2 and 3 service instances on one PostgreSQL database, behind
 * Debian's haproxy, on the devnet. Each instance is a process of its own (src/main.ts), the
 * balancer another, and this process is the load generator (and hosts the devnet). For each
 * instance count: N distinct one-page documents are quoted through the balancer and paid by
 * their own USDC transfer on Base, then the paid retries run through the balancer at
 * concurrency 8. Prints paid calls per second in total and per instance, latency, and the
 * ratio against one instance measured in the same run.
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/scale-out.ts
 *   BENCH_DOCS=60 (default) BENCH_INSTANCES=1,2,3 (default)
 * On a machine with fewer cores than instances the figures show the cores, not the design:
 * the line "cores" says how many this run had.
 */
import { cpus } from 'node:os';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevnet } from '../devnet/start-devnet.ts';
import { createLogger } from '../src/log.ts';
import { evmTransferUsdc } from '../sdk/wallet.ts';
import { makePdf, xPayment } from '../test/helpers/paid.ts';
import { createTestDatabase } from '../test/helpers/db.ts';
import { startServiceProcess } from '../test/helpers/app.ts';
import { haproxyBinary, startBalancer } from '../test/helpers/balancer.ts';

const DOCS = Number(process.env.BENCH_DOCS ?? 60);
const COUNTS = (process.env.BENCH_INSTANCES ?? '1,2,3').split(',').map(Number);

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);

async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

export async function main() {
  if (!haproxyBinary()) {
    console.log('scale-out bench skipped: haproxy is not installed (apt-get install haproxy)');
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), 'paycall-scale-bench-'));
  const devnetDir = join(dir, 'devnet');
  const devnet = await startDevnet({ dataDir: devnetDir, log: createLogger('silent') });
  const buyer = devnet.info.accounts[0].evmPrivateKey;
  const { rpcUrl, chainId, usdc, payTo } = devnet.chains.base;
  console.log(`scale-out bench: ${DOCS} paid one-page pdf-text calls per round, concurrency 8, instances ${COUNTS.join(' / ')}, cores ${cpus().length}, PostgreSQL`);
  const results: { n: number; rps: number; p50: number; p95: number; perInstance: number[] }[] = [];
  for (const n of COUNTS) {
    const db = await createTestDatabase('scalebench');
    const env = { DATABASE_URL: db.url, PAYCALL_START_DEVNET: '0', PAYCALL_DATA_DIR: devnetDir, LOG_LEVEL: 'info', RATE_LIMITS: 'off', TOOL_WORKERS: '1' };
    const instances = [];
    for (let i = 0; i < n; i++) instances.push(await startServiceProcess(env));
    const balancer = await startBalancer(instances.map((i) => i.url));
    try {
      const docs = await Promise.all(Array.from({ length: DOCS }, async (_, i) => ({ pdf: await makePdf(1, `scale bench ${n} ${i} ${Date.now()}`), tx: '' })));
      const post = (pdf: Buffer, headers: Record<string, string> = {}) => fetch(`${balancer.url}/v1/pdf-text`, { method: 'POST', headers: { 'content-type': 'application/pdf', ...headers }, body: new Uint8Array(pdf) });
      for (const d of docs) {
        const q = await post(d.pdf);
        const amount = BigInt(((await q.json()) as { accepts: { maxAmountRequired: string }[] }).accepts[0].maxAmountRequired);
        d.tx = await evmTransferUsdc({ rpcUrl, chainId, usdc, privateKey: buyer, to: payTo, amount });
      }
      const latency: number[] = [];
      const bad: number[] = [];
      const started = performance.now();
      await pool(docs, 8, async (d) => {
        const t0 = performance.now();
        const res = await post(d.pdf, { 'x-payment': xPayment('base', 'exact', { tx_hash: d.tx }) });
        await res.arrayBuffer();
        latency.push(performance.now() - t0);
        if (res.status !== 200) bad.push(res.status);
      });
      const seconds = (performance.now() - started) / 1000;
      if (bad.length) console.log(`  ${bad.length} paid calls not answered 200: ${bad.join(',')}  <-- every honest payment should be`);
      const sorted = latency.sort((a, b) => a - b);
      const perInstance = instances.map((i) => (i.output().match(/"msg":"tool finished"/g) ?? []).length);
      results.push({ n, rps: DOCS / seconds, p50: percentile(sorted, 50), p95: percentile(sorted, 95), perInstance });
    } finally {
      await balancer.close();
      for (const i of instances) {
        const exited = new Promise((r) => i.child.once('exit', r));
        i.child.kill('SIGTERM');
        await exited;
      }
      await db.drop();
    }
  }
  const one = results.find((r) => r.n === 1)?.rps ?? results[0].rps;
  for (const r of results) {
    console.log(
      `${r.n} instance${r.n > 1 ? 's' : ' '}  ${r.rps.toFixed(1).padStart(6)} paid calls/s total, ${(r.rps / r.n).toFixed(1).padStart(6)} per instance  ` +
        `p50 ${r.p50.toFixed(1)} ms  p95 ${r.p95.toFixed(1)} ms  runs per instance ${r.perInstance.join('/')}  ratio vs 1 instance ${(r.rps / one).toFixed(2)}x`,
    );
  }
  await devnet.stop();
  await rm(dir, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
