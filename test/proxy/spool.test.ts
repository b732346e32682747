/**
 * spoolBody at its edges, over a real node:http server: a body exactly at the spill size stays
 * in memory and one byte more spills to a file, with the same digest either way (a body in
 * memory is hashed in one call when it ends, a spilled one on its way to the file); a body with
 * no length (chunked) is judged by what arrives; exactly the limit passes and one byte more is
 * 413; a client that hangs up halfway, before or after the spill, leaves no file and an error
 * the handler can answer.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { spoolBody } from '../../src/proxy/spool-body.ts';
import { AppError } from '../../src/http/app-error.ts';
import { hostileUpload, leftovers, until } from '../helpers/stream-attacks.ts';

const SPILL = 64 * 1024;
const MAX = 256 * 1024;
let dir: string;
let server: Server;
let url: string;
/** What the handler saw of each request that did not end in an answer (a hang-up). */
const failures: unknown[] = [];
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** The bytes hostileUpload sends: every chunk is filled with 'a'. */
const sent = (n: number) => Buffer.alloc(n, 0x61);

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paycall-spool-edges-'));
  server = createServer(async (req, res) => {
    try {
      const body = await spoolBody(req, MAX, { spillBytes: SPILL, dir });
      // While the call is in flight: a spilled body has its directory, one in memory none.
      const dirs = leftovers(dir).length;
      const again = Buffer.concat(await body.open().toArray());
      await body.discard();
      res.end(JSON.stringify({ size: body.size, inMemory: body.bytes !== null, dirs, sha256: body.sha256.toString('hex'), read: sha(again), readSize: again.length }));
    } catch (e) {
      failures.push(e);
      if (!res.headersSent && !res.destroyed) res.writeHead(e instanceof AppError ? e.status : 500, { connection: 'close' }).end(e instanceof AppError ? e.code : String(e));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

/** Chunks of 7,000 bytes (and a remainder) adding up to n: never aligned with the spill size. */
const chunksOf = (n: number) => [...Array.from({ length: Math.floor(n / 7000) }, () => 7000), ...(n % 7000 ? [n % 7000] : [])];

for (const declared of [false, true]) {
  const how = declared ? 'with Content-Length' : 'chunked, no length';
  test(`${how}: exactly the spill size stays in memory, one byte more spills; same digest and bytes either way`, async () => {
    for (const [size, inMemory, dirs] of [
      [SPILL, true, 0],
      [SPILL + 1, false, 1],
      [1, true, 0],
    ] as const) {
      const r = await hostileUpload({ url, chunks: chunksOf(size), contentLength: declared ? size : undefined });
      assert.equal(r.status, 200, `${size}: ${r.body}`);
      const got = JSON.parse(r.body);
      assert.equal(got.size, size);
      assert.equal(got.inMemory, inMemory, `${size} bytes in memory`);
      assert.equal(got.dirs, dirs, `${size} bytes: spill directories while in flight`);
      assert.equal(got.sha256, sha(sent(size)), `${size}: digest`);
      assert.equal(got.read, got.sha256, `${size}: what a forward would send is what was hashed`);
      assert.equal(got.readSize, size);
      assert.deepEqual(leftovers(dir), [], `${size}: no file left after discard`);
    }
  });

  test(`${how}: exactly the limit passes, one byte more is 413 and leaves no file`, async () => {
    const ok = await hostileUpload({ url, chunks: chunksOf(MAX), contentLength: declared ? MAX : undefined });
    assert.equal(ok.status, 200);
    assert.equal(JSON.parse(ok.body).sha256, sha(sent(MAX)));
    const over = await hostileUpload({ url, chunks: chunksOf(MAX + 1), contentLength: declared ? MAX + 1 : undefined });
    // A declared length over the limit is refused before a byte is read; a chunked body as soon
    // as the limit is passed (the server may cut the connection before the client reads the 413).
    assert.ok(over.status === 413 || over.status === null, `status ${over.status}`);
    await until(() => leftovers(dir).length === 0);
  });

  test(`${how}: a client that hangs up halfway, in memory or after the spill, leaves no file and a 400 for the handler`, async () => {
    for (const [size, abortAfter, spilled] of [
      [40_000, 3, false],
      [SPILL + 7000, 9, false],
      [200_000, 20, true],
    ] as const) {
      const seen = failures.length;
      await hostileUpload({
        url,
        chunks: chunksOf(size),
        contentLength: declared ? size : undefined,
        abortAfter,
        // Past the spill size, hang up only once the file exists.
        beforeAbort: spilled ? () => until(() => leftovers(dir).length > 0) : undefined,
      });
      await until(() => failures.length > seen);
      const e = failures.at(-1);
      assert.ok(e instanceof AppError && e.status === 400 && e.code === 'invalid_input', `${size}/${abortAfter}: ${String(e)}`);
      await until(() => leftovers(dir).length === 0);
    }
  });
}

test('a body in one chunk, in several, and spilled: the digest is the SHA-256 of the whole body', async () => {
  const whole = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 251));
  for (const [label, chunks, spillBytes] of [
    ['one chunk', [whole], SPILL],
    ['several chunks', [whole.subarray(0, 1), whole.subarray(1, 1700), whole.subarray(1700)], SPILL],
    ['spilled', [whole.subarray(0, 1000), whole.subarray(1000)], 1500],
    ['spilled at the first chunk', [whole], 100],
  ] as const) {
    const body = await spoolBody(Readable.from(chunks), MAX, { spillBytes, dir });
    try {
      assert.equal(body.sha256.toString('hex'), sha(whole), label);
      assert.equal(body.size, whole.length, label);
      assert.deepEqual(Buffer.concat(await body.open().toArray()), whole, label);
      assert.equal(body.bytes === null, spillBytes < whole.length, label);
    } finally {
      await body.discard();
    }
  }
  assert.deepEqual(leftovers(dir), []);
});
