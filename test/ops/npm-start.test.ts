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
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
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

/** The service process below `pid` (node running src/main.ts), from /proc. */
function serviceBelow(pid: number): number | undefined {
  return descendants(pid).find((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').includes('src/main.ts');
    } catch {
      return false;
    }
  });
}

test('a taken port is one line at once, before the devnet or the data directory is touched (exit 1)', { timeout: 120_000 }, async () => {
  const holder = createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
  const port = (holder.address() as AddressInfo).port;
  try {
    const dataDir = join(dir, 'taken');
    const npm = spawn('npm', ['start'], { env: { ...process.env, PORT: String(port), METRICS_PORT: '0', DATABASE_URL: '', PAYCALL_DATA_DIR: dataDir, LOG_FORMAT: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    npm.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    npm.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => npm.once('exit', resolve));
    assert.equal(code, 1, out);
    const lines = out.split('\n').filter((l) => l && !l.startsWith('> '));
    assert.deepEqual(lines, [`paycall: port ${port} on 127.0.0.1 is in use by another process (another \`npm start\`?); stop that process, or choose another port: PORT=${port + 1} npm start`]);
    assert.equal(existsSync(dataDir), false, 'nothing was started or written');
  } finally {
    await new Promise((r) => holder.close(r));
  }
});

/**
 * On a terminal (a pseudo-terminal from util-linux `script`), with the devnet: a banner names
 * the catalog, /docs, the devnet's funded wallet and a command to try; the log is human lines.
 * With LOG_FORMAT=json on the same terminal: JSON lines and no banner.
 */
test('npm start on a terminal prints a banner: catalog, /docs, the funded test wallet, a paycall command', { timeout: 300_000, skip: !existsSync('/usr/bin/script') && 'util-linux script is not installed' }, async () => {
  const dataDir = join(dir, 'tty');
  const runOnTerminal = async (extra: Record<string, string>, until: RegExp) => {
    const term = spawn('script', ['-qfec', 'npm start', '/dev/null'], {
      env: { ...process.env, PORT: '0', METRICS_PORT: '0', DATABASE_URL: '', PAYCALL_DATA_DIR: dataDir, TOOL_WORKERS: '1', LOG_FORMAT: '', ...extra },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    term.stdout!.on('data', (c: Buffer) => (out += c.toString().replace(/\r/g, '')));
    const exited = new Promise<number | null>((resolve) => term.once('exit', resolve));
    let below: number[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        term.stdout!.on('data', () => until.test(out) && resolve());
        void exited.then((code) => reject(new Error(`npm start exited ${code}:\n${out}`)));
      });
      below = descendants(term.pid!);
      const service = serviceBelow(term.pid!);
      assert.ok(service, 'the service runs below the terminal');
      process.kill(service, 'SIGTERM');
      await exited;
      return out;
    } finally {
      for (const pid of [...below, term.pid!]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  };

  const out = await runOnTerminal({ PAYCALL_START_DEVNET: '1' }, /Ctrl-C stops\./);
  const url = /^ {2}catalog +(http:\/\/127\.0\.0\.1:\d+)\/$/m.exec(out)?.[1];
  assert.ok(url, out);
  assert.match(out, /^paycall \d+\.\d+\.\d+ is up \(devnet profile, embedded PGlite in .+\)$/m);
  assert.match(out, new RegExp(`^ {2}API docs +${url}/docs$`, 'm'));
  assert.match(out, new RegExp(`^ {2}console +${url}/console `, 'm'));
  const info = JSON.parse(readFileSync(join(dataDir, 'devnet.json'), 'utf8'));
  const { privateKeyToAccount } = await import('viem/accounts');
  assert.match(out, new RegExp(`^ {2}test wallet +${privateKeyToAccount(info.accounts[0].evmPrivateKey).address} \\(Base, Polygon\\)$`, 'm'));
  assert.match(out, /^ {4}npx paycall call \/v1\/pdf-text --file some\.pdf$/m);
  assert.match(out, /^\d\d:\d\d:\d\d info {2}listening {2}url=http/m, 'the log in human lines');
  assert.doesNotMatch(out, /^\{"time"/m, 'no JSON lines on a terminal');

  const json = await runOnTerminal({ PAYCALL_START_DEVNET: '0', LOG_FORMAT: 'json' }, /"msg":"listening"/);
  assert.doesNotMatch(json, /is up|Ctrl-C stops/);
  assert.match(json, /^\{"time":"[^"]+","level":"info","msg":"listening"/m);
});
