/**
 * The unpaid 402 path out of process (issue 26): every part in a process of its own, as in
 * production. The devnet chains (devnet/main.ts), the service as `npm start` runs it (src/main.ts,
 * RATE_LIMITS=off, PGlite in a fresh directory or a fresh database on DATABASE_URL), a bare
 * node:http server answering the same 402 bytes, the reference x402 server (Express +
 * @x402/express, when installed), and the load generator (Debian's `wrk`, one thread).
 *
 * Two requests: the 3-page pdf-text request of bench/quote.ts, repeated (the same request:
 * its quote is deduped within the second), and a seller endpoint called with a new JSON body
 * every time (every 402 a new quote written before it is answered: the group commit's cost).
 * Rounds alternate the targets; the median of BENCH_ROUNDS is shown, with the ratios.
 *
 * BENCH_BASE_ROOT=<a checkout of the code before a change> also starts that code's service and
 * measures it in the same rounds (before / after in one run, on the same machine state).
 *
 *   npx tsx bench/quote-oop.ts       BENCH_SECONDS=5 BENCH_CONNECTIONS=32 BENCH_ROUNDS=3 BENCH_TARGETS=pdf,seller
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { generatePrivateKey } from 'viem/accounts';
import { evmActionSigner } from '../sdk/action-signer.ts';
import { createPaycallClient } from '../sdk/paycall-client.ts';
import { walletActions } from '../sdk/wallet-actions.ts';
import { makePdf } from '../test/helpers/paid.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROOT = resolve(import.meta.dirname, '..');
const BASE_ROOT = process.env.BENCH_BASE_ROOT ? resolve(process.env.BENCH_BASE_ROOT) : null;

interface Proc {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the first match of `re` in the output; rejects if the process exits first. */
  waitFor: (re: RegExp) => Promise<RegExpExecArray>;
}

const procs: ChildProcess[] = [];

function start(cmd: string, args: string[], opts: { cwd: string; env: Record<string, string> }): Proc {
  const child = spawn(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  procs.push(child);
  let out = '';
  const waiters: (() => void)[] = [];
  const onData = (c: Buffer) => {
    out += c.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
    for (const w of [...waiters]) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  return {
    child,
    output: () => out,
    waitFor: (re) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(out);
          if (m) {
            waiters.splice(waiters.indexOf(check), 1);
            resolve(m);
          }
        };
        waiters.push(check);
        child.once('exit', (code) => reject(new Error(`${cmd} ${args.join(' ')} exited ${code} before ${re}:\n${out.slice(-3000)}`)));
        check();
      }),
  };
}

const stopAll = async () => {
  await Promise.all(
    procs.map(
      (c) =>
        new Promise<void>((r) => {
          if (c.exitCode !== null || c.signalCode !== null) return r();
          const t = setTimeout(() => c.kill('SIGKILL'), 15_000);
          c.once('exit', () => {
            clearTimeout(t);
            r();
          });
          c.kill('SIGTERM');
        }),
    ),
  );
};

interface WrkResult {
  rps: number;
  p50ms: number;
  p99ms: number;
  unexpected: number;
}

const toMs = (v: string, unit: string) => Number(v) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 1);

/** One wrk run in its own process: one thread, CONNECTIONS keep-alive connections. */
function wrk(url: string, script: string, seconds: number, args: string[]): WrkResult {
  const out = execFileSync('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-s', script, url, '--', ...args], { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const lat = (p: string) => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(out);
    return m ? Math.round(toMs(m[1], m[2]) * 100) / 100 : NaN;
  };
  const unexpected = Number(/UNEXPECTED (\d+)/.exec(out)?.[1] ?? NaN);
  if (process.env.BENCH_DEBUG) process.stderr.write(`${url}\n${out}\n`);
  return { rps: Math.round(rps), p50ms: lat('50'), p99ms: lat('99'), unexpected };
}

/** wrk scripts: a fixed body from a file, or a new JSON body on every request. Both count answers other than the expected status. */
const wrkCommon = `
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) expect = tonumber(args[1]); unexpected = 0; run = args[2] or "0"; n = 0 end
function response(status, headers, body) if status ~= expect then unexpected = unexpected + 1 end end
function done(summary, latency, requests)
  local u = 0
  for _, t in ipairs(threads) do u = u + t:get("unexpected") end
  io.write(string.format("UNEXPECTED %d\\n", u))
end
`;
const fixedBodyScript = (file: string, contentType: string) => `${wrkCommon}
wrk.method = "POST"
wrk.headers["Content-Type"] = "${contentType}"
local f = io.open("${file}", "rb"); wrk.body = f:read("*all"); f:close()
`;
const newBodyScript = `${wrkCommon}
function request()
  n = n + 1
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, '{"order":"' .. run .. '-' .. n .. '"}')
end
`;

async function startUpstream(): Promise<{ server: Server; url: string }> {
  // Only the seller endpoints' probes reach it (an unpaid call is answered before any forward).
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function startService(name: string, root: string, dir: string, devnetDir: string, databaseUrl: string): Promise<string> {
  const p = start(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { PORT: '0', METRICS_PORT: '0', RATE_LIMITS: 'off', PAYCALL_PROFILE: 'devnet', PAYCALL_START_DEVNET: '0', PAYCALL_DATA_DIR: devnetDir, PGLITE_DIR: join(dir, `pglite-${name}`), DATABASE_URL: databaseUrl },
  });
  return (await p.waitFor(/"msg":"listening".*?"url":"(http:[^"]+)"/))[1];
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
  return `http://127.0.0.1:${(await p.waitFor(/port (\d+)/))[1]}`;
}

const hasPackage = (name: string) => existsSync(join(ROOT, 'node_modules', name, 'package.json'));

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
  const freshDatabase = async (name: string) => {
    if (!admin) return '';
    const db = `bench_quote_${process.pid}_${name}`;
    await admin.query(`create database ${db}`);
    databases.push(db);
    const u = new URL(pgUrl);
    u.pathname = `/${db}`;
    return u.toString();
  };
  const upstream = await startUpstream();
  try {
    const devnet = start(process.execPath, ['--import', 'tsx', 'devnet/main.ts'], { cwd: ROOT, env: { PAYCALL_DATA_DIR: devnetDir, LOG_LEVEL: 'warn' } });
    await devnet.waitFor(/paycall devnet up/);

    const services: { name: string; url: string }[] = [{ name: 'paycall', url: await startService('now', ROOT, dir, devnetDir, await freshDatabase('now')) }];
    if (BASE_ROOT) services.push({ name: 'paycall (base)', url: await startService('base', BASE_ROOT, dir, devnetDir, await freshDatabase('base')) });
    const sellerUrls = await Promise.all(services.map((s) => sellerEndpoint(s.url, upstream.url)));

    const pdf = await makePdf(3, 'bench');
    const pdfFile = join(dir, 'bench.pdf');
    await writeFile(pdfFile, pdf);
    await sample(`${services[0].url}/v1/pdf-text`, pdf, 'application/pdf', join(dir, 'pdf-402.json'));
    await sample(sellerUrls[0], Buffer.from('{"order":"sample"}'), 'application/json', join(dir, 'seller-402.json'));
    const bare = { pdf: await startBare(join(dir, 'pdf-402.json')), seller: await startBare(join(dir, 'seller-402.json')) };

    const pdfScript = join(dir, 'pdf.lua');
    const newScript = join(dir, 'new-body.lua');
    await writeFile(pdfScript, fixedBodyScript(pdfFile, 'application/pdf'));
    await writeFile(newScript, newBodyScript);

    const groups = {
      pdf: [
        { label: 'bare node:http 402 (pdf-text bytes)', url: `${bare.pdf}/v1/pdf-text`, script: pdfScript },
        ...services.map((s) => ({ label: `${s.name}: pdf-text 402, same request`, url: `${s.url}/v1/pdf-text`, script: pdfScript })),
      ],
      seller: [
        { label: 'bare node:http 402 (seller bytes)', url: `${bare.seller}/v1/bench/quote`, script: newScript },
        ...services.map((s, i) => ({ label: `${s.name}: seller 402, new quote each`, url: sellerUrls[i], script: newScript })),
      ],
    };
    // BENCH_TARGETS=pdf or seller measures one request kind only (default: both).
    const wanted = (process.env.BENCH_TARGETS ?? 'pdf,seller').split(',') as (keyof typeof groups)[];
    const targets: { label: string; url: string; script: string }[] = wanted.flatMap((g) => groups[g] ?? []);
    if (hasPackage('express') && hasPackage('@x402/express')) {
      console.log('reference x402 server: express and @x402/express are installed, but this bench does not start it yet');
    } else {
      console.log(`reference x402 server (Express + @x402/express): skipped, not installed (${['express', '@x402/express'].filter((n) => !hasPackage(n)).join(', ')} missing from node_modules)`);
    }

    console.log(
      `quote bench, out of process: wrk -t1 -c${CONNECTIONS}, ${ROUNDS} alternating rounds of ${SECONDS} s (median shown), database ${pgUrl ? 'PostgreSQL' : 'PGlite'}${BASE_ROOT ? `, base code from ${BASE_ROOT}` : ''}`,
    );
    let run = 0;
    for (const t of targets) wrk(t.url, t.script, 1, ['402', `warm${run++}`]);
    const runs = new Map<string, WrkResult[]>(targets.map((t) => [t.label, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const t of targets) runs.get(t.label)!.push(wrk(t.url, t.script, SECONDS, ['402', `${process.pid}r${round}x${run++}`]));
    }
    const median = (rs: WrkResult[]) => [...rs].sort((a, b) => a.rps - b.rps)[Math.floor(rs.length / 2)];
    const result = new Map([...runs].map(([k, v]) => [k, median(v)]));
    for (const [label, r] of result) {
      console.log(`${label.padEnd(46)} ${String(r.rps).padStart(7)} req/s   p50 ${r.p50ms} ms   p99 ${r.p99ms} ms${r.unexpected ? `   (${r.unexpected} unexpected statuses!)` : ''}   rounds: ${runs.get(label)!.map((x) => x.rps).join(' / ')}`);
    }
    const rps = (label: string) => result.get(label)?.rps ?? NaN;
    for (const s of services) {
      console.log(`ratio ${s.name}: pdf-text / bare: ${(rps(`${s.name}: pdf-text 402, same request`) / rps('bare node:http 402 (pdf-text bytes)')).toFixed(3)}`);
      console.log(`ratio ${s.name}: seller / bare:   ${(rps(`${s.name}: seller 402, new quote each`) / rps('bare node:http 402 (seller bytes)')).toFixed(3)}`);
    }
    if (BASE_ROOT) {
      console.log(`ratio now / base, pdf-text (same request):  ${(rps('paycall: pdf-text 402, same request') / rps('paycall (base): pdf-text 402, same request')).toFixed(3)}`);
      console.log(`ratio now / base, seller (new quote each):  ${(rps('paycall: seller 402, new quote each') / rps('paycall (base): seller 402, new quote each')).toFixed(3)}`);
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
