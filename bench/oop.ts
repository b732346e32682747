/**
 * Pieces of the out-of-process benches (bench/quote-oop.ts, bench/proxy-oop.ts): child
 * processes with their output kept, Debian's `wrk` as the load generator in a process of its
 * own, and the CPU time each server process spends per request (user + system, from /proc:
 * the figure a loaded machine disturbs least, unlike requests per second).
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

export interface Proc {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the first match of `re` in the output; rejects if the process exits first. */
  waitFor: (re: RegExp) => Promise<RegExpExecArray>;
}

export const procs: ChildProcess[] = [];
/** The process serving each origin, for its CPU time per request (the figure a loaded machine disturbs least). */
export const pidOf = new Map<string, number>();
export const served = (url: string, p: Proc) => {
  pidOf.set(new URL(url).origin, p.child.pid!);
  return url;
};

/** user + system CPU time of a process and all its threads, in ms (Linux /proc; NaN elsewhere). */
export function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in USER_HZ (100 on Linux)
  } catch {
    return NaN;
  }
}

export function start(cmd: string, args: string[], opts: { cwd: string; env: Record<string, string> }): Proc {
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

export const stopAll = async () => {
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

export interface WrkResult {
  rps: number;
  /** CPU time the server process spent per request, in microseconds. */
  cpuUs: number;
  p50ms: number;
  p99ms: number;
  unexpected: number;
}

const toMs = (v: string, unit: string) => Number(v) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 1);

/**
 * One wrk run in its own process: one thread, CONNECTIONS keep-alive connections. Awaited, not
 * run synchronously: this process must keep reading its servers' output meanwhile. A server
 * writes its log to a pipe this process reads, and a full pipe (64 KB, a few hundred request
 * lines) blocks the writer: a synchronous wrk here stalled the service for whole rounds (0 req/s).
 */
export async function wrk(url: string, script: string, seconds: number, args: string[]): Promise<WrkResult> {
  const pid = pidOf.get(new URL(url).origin);
  const cpuBefore = cpuMs(pid);
  const { stdout: out } = await promisify(execFile)('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-s', script, url, '--', ...args], { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const lat = (p: string) => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(out);
    return m ? Math.round(toMs(m[1], m[2]) * 100) / 100 : NaN;
  };
  const unexpected = Number(/UNEXPECTED (\d+)/.exec(out)?.[1] ?? NaN);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN);
  const cpuUs = Math.round(((cpuMs(pid) - cpuBefore) * 1000) / requests);
  if (process.env.BENCH_DEBUG) process.stderr.write(`${url}\n${out}\n`);
  return { rps: Math.round(rps), cpuUs, p50ms: lat('50'), p99ms: lat('99'), unexpected };
}

/** wrk scripts: a fixed body from a file, or a new JSON body on every request. Both count answers other than the expected status. */
export const wrkCommon = `
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
export const fixedBodyScript = (file: string, contentType: string) => `${wrkCommon}
wrk.method = "POST"
wrk.headers["Content-Type"] = "${contentType}"
local f = io.open("${file}", "rb"); wrk.body = f:read("*all"); f:close()
`;
export const newBodyScript = `${wrkCommon}
function request()
  n = n + 1
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, '{"order":"' .. run .. '-' .. n .. '"}')
end
`;

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}
