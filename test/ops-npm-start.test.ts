/**
 * Issue 20, item 8: `npm start &` then `kill %1` (SIGTERM to npm) left the service running:
 * npm forwarded the signal to its `sh -c`, which died without passing it on, and the tsx
 * wrapper and the server below it kept the port. The real `npm start` here, on a temporary
 * PGlite data directory: SIGTERM (and SIGINT) to the npm process must stop the service
 * cleanly (it logs its shutdown and "stopped"), and once npm has exited no process it
 * started is left and the port is free.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paycall-npm-start-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every process below `pid` (from /proc: Linux, like the service's own lock). */
function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name is in parentheses and may hold spaces: the ppid is the 2nd field after it.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of parentOf) {
      if (parent === p) {
        out.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return out;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} to \`npm start\` stops the service: it drains and exits, no process is left and the port is free`, { timeout: 300_000 }, async () => {
    const npm = spawn('npm', ['start'], {
      env: { ...process.env, PORT: '0', METRICS_PORT: '0', DATABASE_URL: '', PAYCALL_PROFILE: 'devnet', PAYCALL_START_DEVNET: '0', PAYCALL_DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'info', TOOL_WORKERS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    npm.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    npm.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    let below: number[] = [];
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const check = () => {
          const m = /"msg":"listening".*?"url":"(http:[^"]+)"/.exec(out);
          if (m) resolve(m[1]);
        };
        npm.stdout!.on('data', check);
        npm.stderr!.on('data', check);
        void exited.then((code) => reject(new Error(`npm start exited ${code} before listening:\n${out}`)));
      });
      assert.equal((await fetch(`${url}/v1/_health`)).status, 200);
      below = descendants(npm.pid!);
      assert.ok(below.length >= 1, 'npm started the service below it');

      npm.kill(signal);
      await exited;
      // npm waits for its script; when it is gone, so is everything it started.
      assert.deepEqual(below.filter(alive), [], `processes left after npm exited:\n${out.slice(-3000)}`);
      assert.match(out, new RegExp(`"msg":"shutting down".*"reason":"${signal}"`));
      assert.match(out, /"msg":"stopped"/);
      const after = await fetch(`${url}/v1/_health`).then(
        (r) => `answered ${r.status}`,
        (e: Error & { cause?: { code?: string } }) => e.cause?.code ?? e.message,
      );
      assert.equal(after, 'ECONNREFUSED', 'the port is free');
    } finally {
      // Only what this test started, by pid.
      for (const pid of [...below, npm.pid!]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });
}
