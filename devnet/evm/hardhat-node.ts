/**
 * Runs `hardhat node` (EDR) as a child process on a port the OS picks (--port 0; the
 * actual port is read from its startup line, so there is no race for a "free" port).
 *
 * Orphans: the child gets a preloaded watchdog (node --import) that exits as soon as its
 * parent is gone (its ppid changes when the parent dies, even by SIGKILL), and the parent
 * kills remaining children synchronously on exit. stop() sends SIGTERM, then SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../src/log.ts';

const STARTED = /Started HTTP and WebSocket JSON-RPC server at (http:\/\/[^\s/]+)\//;
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 5_000;

const WATCHDOG = `
const parent = Number(process.env.PAYCALL_DEVNET_PARENT_PID);
if (parent > 0) setInterval(() => { if (process.ppid !== parent) process.exit(0); }, 250).unref();
`;

export interface HardhatNode {
  rpcUrl: string;
  pid: number;
  /** Kills the process without waiting (for process 'exit' handlers). */
  killNow(): void;
  stop(): Promise<void>;
}

export interface HardhatNodeOptions {
  chainId: number;
  name: string;
  /** Hardhat's artifacts and cache go here. */
  workDir: string;
  log: Logger;
  port?: number;
}

const HARDHAT_CONFIG = fileURLToPath(new URL('../hardhat.config.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

function hardhatCli(): string {
  // The package's main entry is dist/src/index.js; the CLI sits beside it.
  return join(dirname(fileURLToPath(import.meta.resolve('hardhat'))), 'cli.js');
}

export async function startHardhatNode(opts: HardhatNodeOptions): Promise<HardhatNode> {
  mkdirSync(opts.workDir, { recursive: true });
  const args = [
    '--import',
    `data:text/javascript,${encodeURIComponent(WATCHDOG)}`,
    hardhatCli(),
    '--config',
    HARDHAT_CONFIG,
    '--network',
    'devnet',
    'node',
    '--hostname',
    '127.0.0.1',
    '--port',
    String(opts.port ?? 0),
    '--chain-id',
    String(opts.chainId),
  ];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PAYCALL_DEVNET_PARENT_PID: String(process.pid),
      PAYCALL_HARDHAT_DIR: opts.workDir,
      HARDHAT_DISABLE_TELEMETRY: 'true',
      NO_COLOR: '1',
      FORCE_COLOR: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = opts.log.child({ chain: opts.name, pid: child.pid });
  let exited = child.exitCode !== null;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  let stderrTail = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => {
    stderrTail = (stderrTail + text).slice(-4000);
    for (const line of text.split('\n')) if (line.trim()) log.warn('hardhat stderr', { line });
  });

  const rpcUrl = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    let found = false;
    const timer = setTimeout(() => reject(new Error(`${opts.name}: hardhat node did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    // Hardhat logs every RPC call on stdout; keep draining it so the pipe never blocks the node.
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      if (found) return;
      buffered += text;
      const m = STARTED.exec(buffered);
      if (m) {
        found = true;
        clearTimeout(timer);
        resolve(m[1]);
      } else if (buffered.length > 100_000) buffered = buffered.slice(-10_000);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (found) return;
      const output = stderrTail.trim() || buffered.trim();
      // npm running on Node 20 silently skips EDR's native package (engines: node >= 22).
      const hint = /HHE200|native binding/.test(output)
        ? ' (the EDR native package is missing: reinstall with Node 24 first on PATH: PATH=$PWD/node_modules/.bin:$PATH npm install)'
        : '';
      reject(new Error(`${opts.name}: hardhat node exited (${code ?? signal}) before starting: ${output}${hint}`));
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  }).catch(async (e) => {
    if (!exited) child.kill('SIGKILL');
    await exit;
    throw e;
  });
  log.debug('hardhat node started', { rpcUrl });

  return {
    rpcUrl,
    pid: child.pid!,
    killNow() {
      if (!exited) child.kill('SIGKILL');
    },
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        log.warn('hardhat node ignored SIGTERM; killing');
        child.kill('SIGKILL');
      }, STOP_TIMEOUT_MS);
      await exit;
      clearTimeout(timer);
    },
  };
}
