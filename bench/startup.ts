/**
 * Start-up time of `npm start` (devnet profile, embedded database): from spawning the process
 * to the first healthy `GET /v1/_health`, on a fresh data directory and then warm (the same
 * directory again). Prints each log line's time since spawn, so the parts (module loading,
 * devnet, database, migrations, listening) show where the time goes; the baseline is a bare
 * `node -e` start of the same Node in the same run.
 *   npx tsx bench/startup.ts
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

async function timeToHealthy(dataDir: string, show: boolean): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), PAYCALL_DATA_DIR: dataDir, LOG_LEVEL: 'info', PAYCALL_PROFILE: 'devnet' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let buffered = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (!show) continue;
      try {
        const l = JSON.parse(line) as { msg: string; component?: string; ms?: number };
        console.log(`  ${(performance.now() - started).toFixed(0).padStart(6)} ms  ${l.component ? `[${l.component}] ` : ''}${l.msg}${l.ms !== undefined ? ` (${l.ms} ms)` : ''}`);
      } catch {
        console.log(`  ${line}`);
      }
    }
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/v1/_health`);
        if (res.status === 200) return performance.now() - started;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

async function bareNode(): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((r) => child.once('exit', r));
  return performance.now() - started;
}

export async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'paycall-startup-'));
  const bare = await bareNode();
  console.log('fresh data directory:');
  const fresh = await timeToHealthy(dir, true);
  console.log('warm (same data directory):');
  const warm = await timeToHealthy(dir, false);
  console.log(`bare node start        ${bare.toFixed(0).padStart(6)} ms`);
  console.log(`npm start -> healthy   ${fresh.toFixed(0).padStart(6)} ms fresh, ${warm.toFixed(0)} ms warm   (goal: 5000 ms fresh)`);
  console.log(`ratio fresh / bare node: ${(fresh / bare).toFixed(1)}x`);
  await rm(dir, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
