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
import fc from 'fast-check';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { startServiceProcess } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.ts';
import { endpointInput, eventually, evmSigner, publish, register } from '../helpers/sellers.ts';
import { hostileUpload, leftovers, until } from '../helpers/stream-attacks.ts';
import { sessionToken } from '../helpers/paid.ts';
import { signEip3009Authorization } from '../../devnet/buyer.ts';

const MB = 1024 * 1024;

let devnet: TestDevnet;
let db: TestDatabase;
let upstream: Server;
let upstreamUrl: string;
let spool: string;
let svc: { child: ChildProcess; url: string; output: () => string };
const sellerWallet = evmSigner();

/**
 * Probes get 200 JSON; paid calls (X-Paycall-Tx) get the path's behaviour. The pauses are the
 * upstream's behaviour (a slow answer a buyer can walk away from), not assertions.
 */
function upstreamHandler(req: IncomingMessage, res: ServerResponse) {
  const paid = req.headers['x-paycall-tx'] !== undefined;
  const path = (req.url ?? '/').slice(1).split('?')[0];
  req.on('error', () => undefined);
  res.on('error', () => undefined);
  if (paid && path === 'hang-up-unread') {
    // Gone before reading a byte of the (spilled) body the service is sending.
    req.socket.destroy();
    return;
  }
  req.resume();
  req.on('end', () => {
    if (!paid || path === 'echo') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.flushHeaders();
    if (path === 'reset-after-headers') return void res.write('x', () => req.socket.destroy());
    res.write(Buffer.alloc(64 * 1024, 0x62));
    setTimeout(() => {
      if (path === 'slow-then-reset') return void req.socket.destroy();
      res.end(Buffer.alloc(64 * 1024, 0x63));
    }, 300);
  });
}

const serviceEnv = () => ({
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

/** Seller paths: echo (the attacks' target), and upstream behaviours for paid calls. */
const PATHS = ['echo', 'slow-answer', 'slow-then-reset', 'reset-after-headers', 'hang-up-unread'];

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
  svc = await startServiceProcess(serviceEnv());
  assert.equal((await register(svc.url, sellerWallet, 'attacked')).status, 201);
  for (const suffix of PATHS) {
    const r = await publish(svc.url, sellerWallet, endpointInput(upstreamUrl, suffix, { atomic_price: 20_000 }));
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
  await eventually('the endpoints are active', async () => {
    const meta = (await (await fetch(`${svc.url}/v1/_meta`)).json()) as { endpoints: { path: string }[] };
    return PATHS.every((p) => meta.endpoints.some((e) => e.path === `/v1/attacked/${p}`));
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

let nextId = 0;
/** A request id of our own, so the test can wait for the service's line about that request. */
const rid = (label: string) => `streams-${label}-${++nextId}`;

/** Resolves once the service has logged the end of the request (its handler returned or threw). */
const handled = (requestId: string) => until(() => svc.output().includes(`"request_id":"${requestId}","method"`) || svc.child.exitCode !== null);

/**
 * The process is up and answers its health check, and once the service has finished with each
 * of the given requests (its handler has settled: the spool is cleaned before that), no
 * temporary file is left.
 */
async function survived(what: string, requestIds: string[]) {
  for (const id of requestIds) await handled(id);
  assert.equal(svc.child.exitCode, null, `${what}: the process exited\n${svc.output().slice(-3000)}`);
  const health = await fetch(`${svc.url}/v1/_health`).catch((e: Error) => e);
  assert.ok(health instanceof Response, `${what}: /v1/_health did not answer (${health})\n${svc.output().slice(-3000)}`);
  assert.equal(health.status, 200);
  await health.arrayBuffer();
  assert.deepEqual(leftovers(spool), [], `${what}: temporary files left`);
}

const spilled = () => until(() => leftovers(spool).some((n) => n.startsWith('paycall-body-')));
const seller = (path = 'echo') => `${svc.url}/v1/attacked/${path}`;

test('seller call: a chunked body (no Content-Length) growing past 50 MB is refused with 413 or a closed connection; the process lives', async () => {
  const id = rid('chunked-60mb');
  const r = await hostileUpload({ url: seller(), headers: { 'x-request-id': id }, chunks: Array(60).fill(MB) });
  assert.ok(r.status === 413 || r.status === null, `status ${r.status}`);
  if (r.status === 413) assert.equal(JSON.parse(r.body).error, 'body_too_large');
  await survived('chunked 60 MB', [id]);
  assert.match(svc.output(), new RegExp(`"request_id":"${id}".*"status":413`));
});

test('seller call: a 3 MB body whose client disconnects halfway (once the spill file exists) leaves no file; the process lives', async () => {
  const id = rid('3mb-halfway');
  const r = await hostileUpload({ url: seller(), headers: { 'x-request-id': id }, contentLength: 3 * MB, chunks: Array(48).fill(64 * 1024), abortAfter: 24, beforeAbort: spilled });
  assert.equal(r.status, null);
  await survived('3 MB, disconnect halfway', [id]);
});

test('seller call: the same disconnect on a chunked body, and a slow drip (small chunks, pauses) that spills and then goes away', async () => {
  const chunked = rid('chunked-halfway');
  await hostileUpload({ url: seller(), headers: { 'x-request-id': chunked }, chunks: Array(48).fill(64 * 1024), abortAfter: 24, beforeAbort: spilled });
  await survived('chunked, disconnect halfway', [chunked]);
  const drip = rid('slow-drip');
  // 300 chunks of 1 KB with a pause after each: past the 256 KB spill threshold a byte at a time.
  await hostileUpload({ url: seller(), headers: { 'x-request-id': drip }, chunks: Array(400).fill(1024), delays: Array(400).fill(2), abortAfter: 300, beforeAbort: spilled });
  await survived('slow drip', [drip]);
});

test('seller call: a slow drip that ends in a burst past 50 MB is refused; a complete spilled body still gets its quote', async () => {
  const drip = rid('drip-then-burst');
  const r = await hostileUpload({ url: seller(), headers: { 'x-request-id': drip }, chunks: [...Array(300).fill(1024), ...Array(52).fill(MB)], delays: Array(300).fill(2) });
  assert.ok(r.status === 413 || r.status === null, `status ${r.status}`);
  await survived('drip then burst', [drip]);
  const honest = rid('honest-3mb');
  const q = await hostileUpload({ url: seller(), headers: { 'x-request-id': honest }, chunks: Array(3).fill(MB) });
  assert.equal(q.status, 402, q.body);
  await survived('an honest 3 MB call', [honest]);
});

/** A multipart body around `size` bytes of file content: the envelope before and after. */
const BOUNDARY = 'paycall-streams-boundary';
const multipartPrefix = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="doc.pdf"\r\nContent-Type: application/pdf\r\n\r\n`);
const multipartSuffix = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
const multipartHeaders = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };

for (const tool of ['pdf-md', 'pdf-text', 'invoice-extract']) {
  test(`built-in ${tool}: chunked past 50 MB (raw and multipart), 3 MB gone halfway, slow drip gone: 413 or a closed connection, the process lives`, async () => {
    const url = `${svc.url}/v1/${tool}`;
    const ids: string[] = [];
    const send = async (label: string, plan: Omit<Parameters<typeof hostileUpload>[0], 'url'>) => {
      const id = rid(`${tool}-${label}`);
      ids.push(id);
      return hostileUpload({ url, ...plan, headers: { ...(plan.headers ?? {}), 'x-request-id': id } });
    };
    const raw = await send('raw-60mb', { headers: { 'content-type': 'application/pdf' }, chunks: Array(60).fill(MB) });
    assert.ok(raw.status === 413 || raw.status === null, `raw: status ${raw.status}`);
    const form = await send('multipart-60mb', { headers: multipartHeaders, prefix: multipartPrefix, suffix: multipartSuffix, chunks: Array(60).fill(MB) });
    assert.ok(form.status === 413 || form.status === null, `multipart: status ${form.status}`);
    await send('raw-halfway', { headers: { 'content-type': 'application/pdf' }, contentLength: 3 * MB, chunks: Array(48).fill(64 * 1024), abortAfter: 24 });
    await send('multipart-halfway', { headers: multipartHeaders, prefix: multipartPrefix, chunks: Array(48).fill(64 * 1024), abortAfter: 24 });
    await send('raw-drip', { headers: { 'content-type': 'application/pdf' }, chunks: Array(200).fill(512), delays: Array(200).fill(2), abortAfter: 150 });
    await send('multipart-drip', { headers: multipartHeaders, prefix: multipartPrefix, chunks: Array(200).fill(512), delays: Array(200).fill(2), abortAfter: 150 });
    await survived(tool, ids);
  });
}

// --- Paid calls: the buyer or the upstream goes away while an answer streams ---------------

let nextBuyer = 0;
/** The 402 quote first (as a buyer does), then an EIP-3009 authorization of its price. */
async function paidHeaders(path: string, body: Buffer): Promise<Record<string, string>> {
  const quote = await fetch(seller(path), { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(body) });
  assert.equal(quote.status, 402);
  await quote.arrayBuffer();
  const base = devnet.info.chains.base;
  const auth = await signEip3009Authorization({ chainId: base.chainId, usdc: base.usdc, privateKey: devnet.info.accounts[nextBuyer++ % devnet.info.accounts.length].evmPrivateKey, to: base.payTo, value: 20_000n });
  return { 'content-type': 'application/octet-stream', 'x-session-token': sessionToken('base', auth) };
}

/** Sends the call and drops the connection as soon as the first bytes of the answer arrive. */
function hangUpOnFirstBytes(url: string, headers: Record<string, string>, body: Buffer): Promise<number | null> {
  return new Promise((resolve) => {
    const u = new URL(url);
    const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { ...headers, 'content-length': String(body.length) }, agent: false }, (res) => {
      res.once('data', () => {
        req.destroy();
        resolve(res.statusCode ?? null);
      });
      res.once('end', () => resolve(res.statusCode ?? null));
    });
    req.on('error', () => resolve(null));
    req.end(body);
  });
}

const paidPost = (path: string, headers: Record<string, string>, body: Buffer) => fetch(seller(path), { method: 'POST', headers, body: new Uint8Array(body) });

test('a buyer who hangs up during a slow upstream answer: the process lives, the tee reads on and a retry gets the whole answer', async () => {
  const body = Buffer.from('{"q":"slow"}');
  const headers = await paidHeaders('slow-answer', body);
  const id = rid('hang-up-slow');
  assert.equal(await hangUpOnFirstBytes(seller('slow-answer'), { ...headers, 'x-request-id': id }, body), 200);
  await survived('buyer gone during the answer', [id]);
  const retry = await paidPost('slow-answer', headers, body);
  assert.equal(retry.status, 200);
  assert.equal(retry.headers.get('x-idempotent-replay'), 'true');
  assert.equal((await retry.arrayBuffer()).byteLength, 128 * 1024);
});

test('a buyer who hangs up, then the upstream resets while the replay tee still reads: the process lives, a retry is told the answer was not kept', async () => {
  const body = Buffer.from('{"q":"reset"}');
  const headers = await paidHeaders('slow-then-reset', body);
  const id = rid('hang-up-then-reset');
  assert.equal(await hangUpOnFirstBytes(seller('slow-then-reset'), { ...headers, 'x-request-id': id }, body), 200);
  await survived('buyer gone, then upstream reset', [id]);
  const retry = await paidPost('slow-then-reset', headers, body);
  assert.equal(retry.status, 409);
  assert.equal(((await retry.json()) as { error: string }).error, 'tx_already_consumed');
  await survived('after the retry', []);
});

test('an upstream that resets right after its answer headers, on a spilled body: the buyer sees a closed connection, the process lives, no file is left', async () => {
  const body = Buffer.alloc(MB, 0x64);
  const headers = await paidHeaders('reset-after-headers', body);
  const id = rid('reset-after-headers');
  // The cut reaches the buyer before or after the 200's headers: a closed connection either way.
  const res = await paidPost('reset-after-headers', { ...headers, 'x-request-id': id }, body).catch((e: Error) => e);
  if (res instanceof Response) {
    assert.equal(res.status, 200);
    await assert.rejects(res.arrayBuffer());
  } else assert.match(String((res.cause as Error)?.message ?? res.message), /closed|reset|terminated/);
  await survived('upstream reset after headers', [id]);
});

test('an upstream that drops the connection without reading a spilled body: retried, then 502 upstream_5xx; the process lives, no file is left', async () => {
  const body = Buffer.alloc(MB, 0x65);
  const headers = await paidHeaders('hang-up-unread', body);
  const id = rid('upstream-unread');
  const res = await paidPost('hang-up-unread', { ...headers, 'x-request-id': id }, body);
  assert.equal(res.status, 502);
  assert.equal(((await res.json()) as { error: string }).error, 'upstream_5xx');
  assert.ok(res.headers.get('x-service-tx'));
  await survived('upstream gone before reading', [id]);
});

// --- Property: whatever the shape of an upload, the process lives and keeps nothing -------

type Ending = { kind: 'complete' } | { kind: 'abort'; at: number } | { kind: 'overflow' };

test('property: random chunk sizes, pauses, aborts and overflows into seller-call and built-in uploads never end the process or leave a file', async () => {
  const ending: fc.Arbitrary<Ending> = fc.oneof(
    { weight: 1, arbitrary: fc.constant({ kind: 'complete' as const }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('abort' as const), at: fc.nat() }) },
    { weight: 2, arbitrary: fc.constant({ kind: 'overflow' as const }) },
  );
  // Seller calls half the time: theirs is the body that spills to a file (past 256 KB).
  const plans = fc.record({
    target: fc.oneof({ weight: 2, arbitrary: fc.constant('seller') }, { weight: 1, arbitrary: fc.constant('raw') }, { weight: 1, arbitrary: fc.constant('multipart') }),
    framing: fc.constantFrom('chunked', 'length'),
    chunks: fc.array(fc.integer({ min: 1, max: MB }), { minLength: 1, maxLength: 24 }),
    delays: fc.array(fc.integer({ min: 0, max: 15 }), { maxLength: 24 }),
    ending,
  });
  await fc.assert(
    fc.asyncProperty(plans, async ({ target, framing, chunks, delays, ending }) => {
      const id = rid(`property-${target}`);
      const multipart = target === 'multipart';
      // Past the 50 MB limit of both kinds of endpoint.
      const sizes = ending.kind === 'overflow' ? [...chunks, ...Array(52).fill(MB)] : chunks;
      const envelope = multipart ? multipartPrefix.length + multipartSuffix.length : 0;
      const r = await hostileUpload({
        url: target === 'seller' ? seller() : `${svc.url}/v1/pdf-text`,
        headers: { 'x-request-id': id, ...(multipart ? multipartHeaders : { 'content-type': 'application/pdf' }) },
        prefix: multipart ? multipartPrefix : undefined,
        suffix: multipart ? multipartSuffix : undefined,
        chunks: sizes,
        delays,
        contentLength: framing === 'length' ? sizes.reduce((a, b) => a + b, 0) + envelope : undefined,
        // At least one chunk first (its write has completed), so the service has the request.
        abortAfter: ending.kind === 'abort' ? 1 + (ending.at % chunks.length) : undefined,
      });
      if (ending.kind === 'overflow') assert.ok(r.status === 413 || r.status === null, `overflow answered ${r.status}`);
      // An answer to a complete body is never a 5xx: the quote, or the document refused.
      if (ending.kind === 'complete') assert.ok(r.status === null || r.status < 500, `answered ${r.status}: ${r.body}`);
      await survived(`${target} ${framing} ${ending.kind}`, [id]);
    }),
    { numRuns: 30 },
  );
});

// --- A process killed with a spilled body in flight -----------------------------------------

// Bounded, so that a sweep that never comes fails the test instead of hanging the run.
test('kill -9 while a 3 MB body is spilled leaves its file; the next start removes it (another live process\'s spill stays)', { timeout: 180_000 }, async () => {
  const id = rid('killed-mid-spool');
  const upload = hostileUpload({
    url: seller(),
    headers: { 'x-request-id': id },
    contentLength: 3 * MB,
    chunks: Array(48).fill(64 * 1024),
    abortAfter: 24,
    beforeAbort: async () => {
      await spilled();
      svc.child.kill('SIGKILL');
      await new Promise((r) => (svc.child.exitCode !== null || svc.child.signalCode !== null ? r(null) : svc.child.once('exit', r)));
    },
  });
  await upload.catch(() => undefined);
  const orphans = leftovers(spool).filter((n) => n.startsWith('paycall-body-'));
  assert.equal(orphans.length, 1, `the killed process left its spill directory: ${leftovers(spool)}`);
  // A spill directory of a live process (this test's) must survive the sweep.
  const live = mkdtempSync(join(spool, `paycall-body-${process.pid}-`));
  svc = await startServiceProcess(serviceEnv());
  // The sweep runs beside start-up: its log line says when it is done.
  await until(() => /removed the spilled request bodies of stopped processes.*"directories":1/.test(svc.output()));
  assert.ok(!leftovers(spool).includes(orphans[0]), 'the killed process\'s spill directory is gone');
  assert.ok(leftovers(spool).includes(live.split('/').pop()!), 'a live process\'s spill directory is left alone');
  rmSync(live, { recursive: true, force: true });
  await survived('restarted after kill -9', []);
});
