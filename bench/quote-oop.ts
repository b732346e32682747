/**
 * The unpaid 402 path out of process (issue 26): every part in a process of its own, as in
 * production. The devnet chains (devnet/main.ts), the service as `npm start` runs it (src/main.ts,
 * RATE_LIMITS=off, PGlite in a fresh directory or a fresh database on DATABASE_URL), a bare
 * node:http server answering the same 402 bytes, the reference x402 server (Express +
 * @x402/express protecting one route with two `exact` accepts, bench/x402-reference-server.mjs),
 * and the load generator (Debian's `wrk`, one thread).
 *
 * The reference server's packages are not paycall dependencies: the bench installs them on
 * demand (`npm install --prefix`) into a cache folder outside the repository
 * (BENCH_X402_REF_DIR, default ~/.cache/paycall/x402-ref; BENCH_X402_VERSION, default 2.27), and
 * skips that server with a message when the registry cannot be reached.
 *
 * Two requests: a BENCH_PAGES-page (default 1) pdf-text request, repeated (the same request:
 * its quote is deduped within the second), and a seller endpoint called with a new JSON body
 * every time (every 402 a new quote written before it is answered: the group commit's cost).
 * Rounds alternate the targets; the median of BENCH_ROUNDS is shown, with the ratios.
 *
 * BENCH_BASE_ROOT=<a checkout of the code before a change> also starts that code's service and
 * measures it in the same rounds (before / after in one run, on the same machine state).
 *
 *   npx tsx bench/quote-oop.ts       BENCH_SECONDS=5 BENCH_CONNECTIONS=32 BENCH_ROUNDS=3 BENCH_TARGETS=pdf,seller BENCH_PAGES=1
 */
import { execFileSync } from 'node:child_process';
import { CONNECTIONS, cpuMs, fixedBodyScript, freePort, newBodyScript, procs, served, start, stopAll, wrk, type WrkResult } from './oop.ts';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { generatePrivateKey } from 'viem/accounts';
import { evmActionSigner } from '../sdk/action-signer.ts';
import { createPaycallClient } from '../sdk/paycall-client.ts';
import { walletActions } from '../sdk/wallet-actions.ts';
import { makePdf } from '../test/helpers/paid.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROOT = resolve(import.meta.dirname, '..');
const BASE_ROOT = process.env.BENCH_BASE_ROOT ? resolve(process.env.BENCH_BASE_ROOT) : null;
const PAGES = Number(process.env.BENCH_PAGES ?? 1);
const REF_DIR = resolve(process.env.BENCH_X402_REF_DIR ?? join(homedir(), '.cache/paycall/x402-ref'));
const REF_VERSION = process.env.BENCH_X402_VERSION ?? '2.27';


async function startUpstream(): Promise<{ server: Server; url: string }> {
  // Only the seller endpoints' probes reach it (an unpaid call is answered before any forward).
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function startService(name: string, root: string, dir: string, devnetDir: string, databaseUrl: string, extraEnv: Record<string, string> = {}): Promise<string> {
  // BENCH_CPU_PROF=<dir>: the service writes V8 CPU profiles into <dir>/<name> when it stops, one
  // per thread (the main thread's file name has thread id 0: CPU.<date>.<time>.<pid>.0.*.cpuprofile);
  // bench/profile-summary.ts reads them.
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${join(resolve(process.env.BENCH_CPU_PROF), name)}`] : [];
  // A port chosen here rather than PORT=0: a variant with LOG_LEVEL=warn never prints its "listening" line.
  const port = await freePort();
  const p = start(process.execPath, [...prof, '--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { PORT: String(port), METRICS_PORT: '0', RATE_LIMITS: 'off', PAYCALL_PROFILE: 'devnet', PAYCALL_START_DEVNET: '0', PAYCALL_DATA_DIR: devnetDir, PGLITE_DIR: join(dir, `pglite-${name}`), DATABASE_URL: databaseUrl, ...extraEnv },
  });
  const url = `http://127.0.0.1:${port}`;
  let exited = false;
  p.child.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error(`service ${name} exited while starting:\n${p.output().slice(-3000)}`);
    if (await fetch(`${url}/v1/_health`).then((r) => r.ok, () => false)) return served(url, p);
    await new Promise((r) => setTimeout(r, 100));
  }
}


/** A seller with one active per-request endpoint on the service; answers its URL. */
async function sellerEndpoint(baseUrl: string, upstreamUrl: string): Promise<string> {
  const actions = walletActions(createPaycallClient({ baseUrl }).api, evmActionSigner(generatePrivateKey(), 'paycall'));
  const reg = await actions.register('bench');
  if (reg.response.status !== 201) throw new Error(`register: ${reg.response.status} ${JSON.stringify(reg.error)}`);
  const pub = await actions.publish({ path_suffix: 'quote', upstream_url: `${upstreamUrl}/quote`, atomic_price: 20_000, unit: 'request', desc: 'Bench endpoint', mode: 'proxy' });
  if (pub.response.status !== 201) throw new Error(`publish: ${pub.response.status} ${JSON.stringify(pub.error)}`);
  for (let i = 0; i < 600; i++) {
    const meta = (await (await fetch(`${baseUrl}/v1/_meta`)).json()) as { endpoints: { path: string }[] };
    if (meta.endpoints.some((e) => e.path === '/v1/bench/quote')) return `${baseUrl}/v1/bench/quote`;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the bench endpoint did not become active');
}

/** The answer of one request, kept as a bare server replays it (status, headers without per-connection ones, body). */
async function sample(url: string, body: Uint8Array, contentType: string, file: string) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body });
  const bytes = Buffer.from(await res.arrayBuffer());
  if (res.status !== 402) throw new Error(`expected a 402 from ${url}, got ${res.status}: ${bytes.toString().slice(0, 300)}`);
  const headers = Object.fromEntries([...res.headers].filter(([k]) => !['date', 'connection', 'keep-alive', 'transfer-encoding', 'x-request-id'].includes(k)));
  await writeFile(file, JSON.stringify({ status: 402, headers, body: bytes.toString('base64') }));
}

async function startBare(file: string): Promise<string> {
  const p = start(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/fixed-answer-server.ts'), file], { cwd: ROOT, env: {} });
  return served(`http://127.0.0.1:${(await p.waitFor(/port (\d+)/))[1]}`, p);
}

/** The version of a package installed in the reference server's folder, or undefined. */
const installedVersion = (name: string): string | undefined => {
  try {
    return (JSON.parse(readFileSync(join(REF_DIR, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return undefined;
  }
};

/**
 * Installs Express and @x402/express (with the scheme packages the two accepts need) into
 * REF_DIR unless the wanted version is there already. Returns why not, or null when ready.
 */
function ensureReference(): string | null {
  const wanted = ['@x402/express', '@x402/core', '@x402/evm', '@x402/svm'];
  const ok = () => existsSync(join(REF_DIR, 'node_modules/express/package.json')) && wanted.every((n) => installedVersion(n)?.startsWith(`${REF_VERSION}.`));
  if (ok()) return null;
  mkdirSync(REF_DIR, { recursive: true });
  try {
    execFileSync('npm', ['install', '--prefix', REF_DIR, '--no-audit', '--no-fund', '--loglevel=error', 'express@5', ...wanted.map((n) => `${n}@${REF_VERSION}`)], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    return `npm install into ${REF_DIR} failed: ${(err.stderr?.toString() || err.message).trim().split('\n').slice(-3).join(' ')}`;
  }
  return ok() ? null : `npm install into ${REF_DIR} did not give @x402/* ${REF_VERSION}.x`;
}

/** The reference server in its own process, paying to the addresses of the service's own quote. */
async function startReference(route: string, quote402File: string): Promise<string> {
  const sampled = JSON.parse(readFileSync(quote402File, 'utf8')) as { body: string };
  const quote = JSON.parse(Buffer.from(sampled.body, 'base64').toString()) as { accepts: { network: string; payTo: string; extra?: { feePayer?: string } }[] };
  const evm = quote.accepts.find((a) => !a.network.startsWith('solana'))!;
  const sol = quote.accepts.find((a) => a.network.startsWith('solana'))!;
  const p = start(process.execPath, [join(ROOT, 'bench/x402-reference-server.mjs'), REF_DIR, route, evm.payTo, sol.payTo, sol.extra?.feePayer ?? sol.payTo], { cwd: ROOT, env: {} });
  return served(`http://127.0.0.1:${(await p.waitFor(/port (\d+)/))[1]}`, p);
}

export async function main() {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (e) {
    // wrk --version exits 1 after printing; only a missing binary matters.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new Error('wrk is not installed (apt-get install wrk)');
  }
  const dir = await mkdtemp(join(tmpdir(), 'paycall-quote-oop-'));
  const devnetDir = join(dir, 'devnet');
  const pgUrl = process.env.DATABASE_URL || '';
  const databases: string[] = [];
  const admin = pgUrl ? new pg.Client({ connectionString: pgUrl }) : null;
  await admin?.connect();
  if (admin) {
    // Databases of runs that were interrupted (their process is gone).
    const { rows } = await admin.query<{ datname: string }>(`select datname from pg_database where datname like 'bench_quote_%'`);
    for (const { datname } of rows) {
      const pid = Number(/^bench_quote_(\d+)_/.exec(datname)?.[1]);
      if (pid && !existsSync(`/proc/${pid}`)) await admin.query(`drop database if exists ${datname} with (force)`);
    }
  }
  const freshDatabase = async (name: string) => {
    if (!admin) return '';
    const db = `bench_quote_${process.pid}_${name}`;
    await admin.query(`create database ${db}`);
    databases.push(db);
    const u = new URL(pgUrl);
    u.pathname = `/${db}`;
    return u.toString();
  };
  // BENCH_TARGETS=pdf or seller measures one request kind only (default: both).
  const wanted = (process.env.BENCH_TARGETS ?? 'pdf,seller').split(',') as ('pdf' | 'seller')[];
  const upstream = await startUpstream();
  // Ctrl-C or a timeout: the servers go too (their databases are dropped by the next run, below).
  const onSignal = () => {
    for (const c of procs) c.kill('SIGTERM');
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const devnet = start(process.execPath, ['--import', 'tsx', 'devnet/main.ts'], { cwd: ROOT, env: { PAYCALL_DATA_DIR: devnetDir, LOG_LEVEL: 'warn' } });
    await devnet.waitFor(/paycall devnet up/);

    const services: { name: string; url: string }[] = [{ name: 'paycall', url: await startService('now', ROOT, dir, devnetDir, await freshDatabase('now')) }];
    if (BASE_ROOT) services.push({ name: 'paycall (base)', url: await startService('base', BASE_ROOT, dir, devnetDir, await freshDatabase('base')) });
    // BENCH_VARIANT="NAME=value ...": one more instance of this code with those settings (what a setting costs, same run).
    if (process.env.BENCH_VARIANT) {
      const env = Object.fromEntries(process.env.BENCH_VARIANT.split(/\s+/).map((kv) => kv.split('=') as [string, string]));
      services.push({ name: `paycall (${process.env.BENCH_VARIANT})`, url: await startService('variant', ROOT, dir, devnetDir, await freshDatabase('variant'), env) });
    }
    const sellerUrls = wanted.includes('seller') ? await Promise.all(services.map((s) => sellerEndpoint(s.url, upstream.url))) : [];

    const pdf = await makePdf(PAGES, 'bench');
    const pdfFile = join(dir, 'bench.pdf');
    await writeFile(pdfFile, pdf);
    await sample(`${services[0].url}/v1/pdf-text`, pdf, 'application/pdf', join(dir, 'pdf-402.json'));
    if (sellerUrls.length) await sample(sellerUrls[0], Buffer.from('{"order":"sample"}'), 'application/json', join(dir, 'seller-402.json'));
    const bare = { pdf: await startBare(join(dir, 'pdf-402.json')), seller: sellerUrls.length ? await startBare(join(dir, 'seller-402.json')) : '' };
    const refSkipped = ensureReference();
    const reference = refSkipped ? null : await startReference('/v1/pdf-text', join(dir, 'pdf-402.json'));
    console.log(refSkipped ? `reference x402 server (Express + @x402/express): skipped, ${refSkipped}` : `reference x402 server: express ${installedVersion('express')}, @x402/express ${installedVersion('@x402/express')} (from ${REF_DIR})`);

    const pdfScript = join(dir, 'pdf.lua');
    const newScript = join(dir, 'new-body.lua');
    await writeFile(pdfScript, fixedBodyScript(pdfFile, 'application/pdf'));
    await writeFile(newScript, newBodyScript);

    const groups = {
      pdf: [
        { label: 'bare node:http 402 (pdf-text bytes)', url: `${bare.pdf}/v1/pdf-text`, script: pdfScript },
        ...(reference ? [{ label: 'reference x402 (Express + @x402/express) 402', url: `${reference}/v1/pdf-text`, script: pdfScript }] : []),
        ...services.map((s) => ({ label: `${s.name}: pdf-text 402, same request`, url: `${s.url}/v1/pdf-text`, script: pdfScript })),
      ],
      seller: [
        { label: 'bare node:http 402 (seller bytes)', url: `${bare.seller}/v1/bench/quote`, script: newScript },
        ...services.map((s, i) => ({ label: `${s.name}: seller 402, new quote each`, url: sellerUrls[i], script: newScript })),
      ],
    };
    const targets: { label: string; url: string; script: string }[] = wanted.flatMap((g) => groups[g] ?? []);
    console.log(
      `quote bench, out of process: wrk -t1 -c${CONNECTIONS}, ${ROUNDS} alternating rounds of ${SECONDS} s (median shown), ${PAGES}-page PDF, database ${pgUrl ? 'PostgreSQL' : 'PGlite'}, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}${BASE_ROOT ? `, base code from ${BASE_ROOT}` : ''}`,
    );
    let run = 0;
    for (const t of targets) await wrk(t.url, t.script, 1, ['402', `warm${run++}`]);
    const runs = new Map<string, WrkResult[]>(targets.map((t) => [t.label, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const t of targets) runs.get(t.label)!.push(await wrk(t.url, t.script, SECONDS, ['402', `${process.pid}r${round}x${run++}`]));
    }
    const median = (rs: WrkResult[]) => ({ ...[...rs].sort((a, b) => a.rps - b.rps)[Math.floor(rs.length / 2)], cpuUs: rs.map((r) => r.cpuUs).sort((a, b) => a - b)[Math.floor(rs.length / 2)] });
    const result = new Map([...runs].map(([k, v]) => [k, median(v)]));
    for (const [label, r] of result) {
      console.log(`${label.padEnd(52)} ${String(r.rps).padStart(7)} req/s   ${String(r.cpuUs).padStart(4)} µs CPU/req   p50 ${r.p50ms} ms   p99 ${r.p99ms} ms${r.unexpected ? `   (${r.unexpected} unexpected statuses!)` : ''}   rounds: ${runs.get(label)!.map((x) => x.rps).join(' / ')}`);
    }
    console.log(`load average after the rounds: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    const rps = (label: string) => result.get(label)?.rps ?? NaN;
    for (const s of services) {
      console.log(`ratio ${s.name}: pdf-text / bare: ${(rps(`${s.name}: pdf-text 402, same request`) / rps('bare node:http 402 (pdf-text bytes)')).toFixed(3)}`);
      if (reference) console.log(`ratio ${s.name}: pdf-text / reference x402: ${(rps(`${s.name}: pdf-text 402, same request`) / rps('reference x402 (Express + @x402/express) 402')).toFixed(3)}`);
      if (wanted.includes('seller')) console.log(`ratio ${s.name}: seller / bare:   ${(rps(`${s.name}: seller 402, new quote each`) / rps('bare node:http 402 (seller bytes)')).toFixed(3)}`);
    }
    if (BASE_ROOT) {
      console.log(`ratio now / base, pdf-text (same request):  ${(rps('paycall: pdf-text 402, same request') / rps('paycall (base): pdf-text 402, same request')).toFixed(3)}`);
      if (wanted.includes('seller')) console.log(`ratio now / base, seller (new quote each):  ${(rps('paycall: seller 402, new quote each') / rps('paycall (base): seller 402, new quote each')).toFixed(3)}`);
    }
  } finally {
    await stopAll();
    upstream.server.close();
    for (const db of databases) await admin?.query(`drop database if exists ${db} with (force)`).catch(() => undefined);
    await admin?.end();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
