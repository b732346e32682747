/**
 * Debian's haproxy in front of several service instances, for the scale-out test and bench.
 * `.ci/run` installs the package; where it is missing, `haproxyBinary()` is null and the
 * callers skip with that reason.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const haproxyBinary = (): string | null => ['/usr/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/sbin/haproxy'].find((p) => existsSync(p)) ?? null;

/** A port nobody listens on now (haproxy needs a fixed one in its configuration). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Balancer {
  url: string;
  child: ChildProcess;
  output(): string;
  close(): Promise<void>;
}

/**
 * Round robin over `backends` (http://host:port), health-checked on `/v1/_health` every
 * 500 ms so that a killed instance leaves the rotation within about a second. A request whose
 * connection to an instance fails (or that gets no answer because the instance died) is sent
 * to another instance: every paid request is idempotent on its receipt, so resending is safe,
 * and unpaid ones only quote.
 */
export async function startBalancer(backends: string[]): Promise<Balancer> {
  const bin = haproxyBinary();
  if (!bin) throw new Error('haproxy is not installed');
  const dir = await mkdtemp(join(tmpdir(), 'paycall-haproxy-'));
  const port = await freePort();
  const servers = backends.map((b, i) => {
    const u = new URL(b);
    return `  server app${i} ${u.hostname}:${u.port} check inter 500ms fall 2 rise 1`;
  });
  const config = [
    'global',
    '  maxconn 2048',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 180s',
    '  timeout server 180s',
    // The health answer asks the database and every chain: slow on a loaded machine, and a
    // slow answer is not a dead instance (a dead one refuses the connection at once).
    '  timeout check 5s',
    '  retries 3',
    '  option redispatch',
    '  option forwardfor',
    '  retry-on conn-failure empty-response',
    'frontend paycall',
    `  bind 127.0.0.1:${port}`,
    '  default_backend instances',
    'backend instances',
    '  balance roundrobin',
    '  option httpchk GET /v1/_health',
    '  http-check expect status 200',
    ...servers,
    '',
  ].join('\n');
  const file = join(dir, 'haproxy.cfg');
  await writeFile(file, config);
  const child = spawn(bin, ['-f', file, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const url = `http://127.0.0.1:${port}`;
  // Ready when it forwards a health check.
  const end = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited ${child.exitCode}: ${out}`);
    const ok = await fetch(`${url}/v1/_health`).then((r) => r.status === 200, () => false);
    if (ok) break;
    if (Date.now() > end) throw new Error(`haproxy never answered: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    output: () => out,
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
