/**
 * Upstreams that lie about their answer's length, from a raw TCP server (node:http would not
 * let them): fewer bytes than Content-Length then a close, more bytes than Content-Length, and
 * a chunked answer cut off mid-chunk. A short answer must reach the buyer as a failed stream
 * (server.ts cuts the connection), never as a complete one; the bytes past a declared length
 * must not become the answer of the next call on a reused connection.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { Agent } from 'undici';
import { createForwardSigner } from '../../src/proxy/forward-signature.ts';
import { forwardCall, type ForwardInput } from '../../src/proxy/forward.ts';
import { spoolBody } from '../../src/proxy/spool-body.ts';

const signer = createForwardSigner(generateKeyPairSync('ed25519').privateKey, 'paycall-lies-test');
const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
let server: Server;
let base: string;
const sockets = new Set<Socket>();

/** Reads one request (head and a Content-Length body) from the socket, then answers by path. */
function serve(socket: Socket) {
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
  socket.on('error', () => undefined);
  let buffered = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (;;) {
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buffered.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      buffered = buffered.subarray(end + 4 + length);
      const path = head.split(' ')[1];
      if (path === '/short') {
        // Declares 1,000 bytes, sends 400, closes.
        socket.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n${'a'.repeat(400)}`);
      } else if (path === '/long') {
        // Declares 10 bytes, sends 30 on a kept-alive connection: 20 bytes of garbage follow the answer.
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 10\r\n\r\n0123456789${'X'.repeat(20)}`);
      } else if (path === '/cut-chunked') {
        // A chunk announced as 0x100 bytes, 10 sent, then the connection closes without the last chunk.
        socket.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n100\r\n${'b'.repeat(10)}`);
      } else {
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\n\r\n{"ok":true}`);
      }
    }
  });
}

before(async () => {
  server = createServer(serve);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await dispatcher.destroy();
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
});

const deps = { dispatcher, signer, timeoutMs: 2_000, retryWindowMs: 500, retryBaseMs: 50 };
const payment = { payer: '0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9', tx: `0x${'cd'.repeat(32)}`, network: 'base' };
const input = async (path: string): Promise<ForwardInput> => ({
  mode: 'proxy',
  upstreamUrl: `${base}${path}`,
  method: 'POST',
  headers: { 'content-type': 'application/json', host: 'api.paycall.test' },
  body: await spoolBody(Readable.from([Buffer.from('{"q":1}')]), 1024),
  payment,
  clientIp: '127.0.0.1',
});
const read = async (r: Readable) => Buffer.concat(await r.toArray()).toString();

test('fewer bytes than Content-Length, then a close: the answer stream fails instead of ending short', async () => {
  const answer = await forwardCall(deps, await input('/short'));
  assert.equal(answer.status, 200);
  await assert.rejects(read(answer.body));
});

test('a chunked answer cut off mid-chunk: the answer stream fails', async () => {
  const answer = await forwardCall(deps, await input('/cut-chunked'));
  assert.equal(answer.status, 200);
  await assert.rejects(read(answer.body));
});

test('more bytes than Content-Length: the answer is the declared bytes, and the rest is not the next call’s answer', async () => {
  const answer = await forwardCall(deps, await input('/long'));
  // The declared 10 bytes; or, if the garbage is seen first, a failed stream: never the garbage.
  const text = await read(answer.body).catch(() => null);
  if (text !== null) assert.equal(text, '0123456789');
  for (let i = 0; i < 3; i++) {
    const next = await forwardCall(deps, await input('/ok'));
    assert.equal(await read(next.body), '{"ok":true}');
  }
});
