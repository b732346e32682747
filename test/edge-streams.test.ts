/**
 * Issue 20, item 1: no upload, disconnect or upstream behaviour can end the process. The real
 * service (src/main.ts as a child process, on the devnet's chains and a PostgreSQL database)
 * with an active seller endpoint on a real local upstream; every attack is sent to it and
 * then the process must still be running, /v1/_health must answer, and the spool directory
 * (the process's TMPDIR) must hold no temporary file. Where a spill file is the point, the
 * test first sees it appear, then makes the client go away.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { startServiceProcess } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { startTestDevnet, type TestDevnet } from './helpers/devnet.ts';
import { endpointInput, eventually, evmSigner, publish, register } from './helpers/sellers.ts';
import { hostileUpload, leftovers, until } from './helpers/stream-attacks.ts';

const MB = 1024 * 1024;

let devnet: TestDevnet;
let db: TestDatabase;
let upstream: Server;
let upstreamUrl: string;
let spool: string;
let svc: { child: ChildProcess; url: string; output: () => string };
const seller = evmSigner();

/** Probes get 200 JSON; paid calls (X-Paycall-Tx) get the path's behaviour. */
function upstreamHandler(req: IncomingMessage, res: ServerResponse) {
  const paid = req.headers['x-paycall-tx'] !== undefined;
  const path = (req.url ?? '/').slice(1).split('?')[0];
  req.on('error', () => undefined);
  res.on('error', () => undefined);
  if (!paid) {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"probe":true}'));
    return;
  }
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
}

before(async () => {
  devnet = await startTestDevnet();
  db = await createTestDatabase('edge_streams');
  upstream = createServer(upstreamHandler);
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  // The service's TMPDIR: its spool files land here and nowhere else. tsx keeps its compile
  // cache under TMPDIR too; the shared one is linked in so start-up stays warm.
  spool = mkdtempSync(join(tmpdir(), 'paycall-spool-test-'));
  symlinkSync(join(tmpdir(), `tsx-${userInfo().uid}`), join(spool, `tsx-${userInfo().uid}`));
  svc = await startServiceProcess({
    DATABASE_URL: db.url,
    PAYCALL_START_DEVNET: '0',
    PAYCALL_DATA_DIR: devnet.dataDir,
    TMPDIR: spool,
    LOG_LEVEL: 'info',
    TOOL_WORKERS: '1',
    RATE_LIMITS: 'off',
    UPSTREAM_TIMEOUT_MS: '5000',
    UPSTREAM_RETRY_WINDOW_MS: '500',
    UPSTREAM_RETRY_BASE_MS: '50',
  });
  assert.equal((await register(svc.url, seller, 'attacked')).status, 201);
  for (const suffix of ['echo']) {
    const r = await publish(svc.url, seller, endpointInput(upstreamUrl, suffix, { atomic_price: 20_000 }));
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
  await eventually('the endpoints are active', async () => {
    const meta = (await (await fetch(`${svc.url}/v1/_meta`)).json()) as { endpoints: { path: string }[] };
    return meta.endpoints.some((e) => e.path === '/v1/attacked/echo');
  });
});

after(async () => {
  svc?.child.kill('SIGTERM');
  upstream?.closeAllConnections();
  await new Promise((r) => upstream?.close(r));
  await db?.drop();
  await devnet?.stop();
  if (spool) rmSync(spool, { recursive: true, force: true });
});

/** The process is up, answers its health check, and has no temporary file left. */
async function survived(what: string) {
  assert.equal(svc.child.exitCode, null, `${what}: the process exited\n${svc.output().slice(-3000)}`);
  const health = await fetch(`${svc.url}/v1/_health`).catch((e: Error) => e);
  assert.ok(health instanceof Response, `${what}: /v1/_health did not answer (${health})\n${svc.output().slice(-3000)}`);
  assert.equal(health.status, 200);
  await health.arrayBuffer();
  await until(() => leftovers(spool).length === 0);
  assert.equal(svc.child.exitCode, null);
}

const spilled = () => until(() => leftovers(spool).some((n) => n.startsWith('paycall-body-')));

test('seller call: a chunked body (no Content-Length) growing past 50 MB is refused with 413 or a closed connection; the process lives', async () => {
  const r = await hostileUpload({ url: `${svc.url}/v1/attacked/echo`, chunks: Array(60).fill(MB) });
  assert.ok(r.status === 413 || r.status === null, `status ${r.status}`);
  await survived('chunked 60 MB');
});

test('seller call: a 3 MB body whose client disconnects halfway (the spill file exists) leaves no file and the process lives', async () => {
  const r = await hostileUpload({ url: `${svc.url}/v1/attacked/echo`, contentLength: 3 * MB, chunks: Array(48).fill(64 * 1024), abortAfter: 24, beforeAbort: spilled });
  assert.equal(r.status, null);
  await survived('3 MB, disconnect halfway');
});
