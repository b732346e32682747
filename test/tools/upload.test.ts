/**
 * readUpload on a real node:http server (port 0): raw bodies, multipart bodies, the errors,
 * and a body over the limit that is refused while the client is still sending it.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/http/app-error.ts';
import { readUpload } from '../../src/tools/read-upload.ts';
import { onePagePdf } from '../fixtures/pdf-fixtures.ts';

const MAX = 1024 * 1024;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

let server: http.Server;
let base: string;

before(async () => {
  server = http.createServer(async (req, res) => {
    try {
      const upload = await readUpload(req, { maxBytes: MAX });
      const ownsBuffer = upload.bytes.byteOffset === 0 && upload.bytes.byteLength === upload.bytes.buffer.byteLength;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ length: upload.bytes.length, sha: upload.bytes.toString('base64').slice(0, 40), contentType: upload.contentType, filename: upload.filename, ownsBuffer }));
    } catch (error) {
      const e = error as AppError;
      // The rest of an over-limit body is never read: close the connection after answering.
      res.writeHead(e.status ?? 500, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ error: e.code, message: e.message }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function post(body: Uint8Array, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(`${base}/v1/pdf-text`, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function multipart(parts: { name: string; filename?: string; type?: string; data: Uint8Array | string }[]): { body: Buffer; type: string } {
  const boundary = '----paycall-test-boundary-7f3a';
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`));
    chunks.push(Buffer.from(p.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

const fingerprint = (b: Uint8Array) => Buffer.from(b).toString('base64').slice(0, 40);

describe('readUpload', () => {
  it('reads a raw binary body into a buffer the pool can transfer', async () => {
    const pdf = await onePagePdf();
    const answer = await post(pdf, { 'content-type': 'application/pdf' });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { length: pdf.length, sha: fingerprint(pdf), contentType: 'application/pdf', filename: null, ownsBuffer: true });
  });

  it('reads the part named "file" of a multipart body, ignoring other parts', async () => {
    const pdf = await onePagePdf();
    const { body, type } = multipart([
      { name: 'note', data: 'ignored field' },
      { name: 'attachment', filename: 'other.txt', type: 'text/plain', data: 'not this one' },
      { name: 'file', filename: 'report.pdf', type: 'application/pdf', data: pdf },
    ]);
    const answer = await post(body, { 'content-type': type });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { length: pdf.length, sha: fingerprint(pdf), contentType: 'application/pdf', filename: 'report.pdf', ownsBuffer: true });
  });

  it('answers 400 invalid_input when the multipart body has no "file" part', async () => {
    const { body, type } = multipart([{ name: 'document', filename: 'a.pdf', type: 'application/pdf', data: 'x' }]);
    const answer = await post(body, { 'content-type': type });
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, 'invalid_input');
    assert.match(String(answer.body.message), /"file"/);
  });

  it('answers 400 invalid_input for an empty body, raw or multipart', async () => {
    assert.deepEqual((await post(new Uint8Array(0), { 'content-type': 'application/pdf' })).body.error, 'invalid_input');
    const { body, type } = multipart([{ name: 'file', filename: 'empty.pdf', type: 'application/pdf', data: '' }]);
    const answer = await post(body, { 'content-type': type });
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, 'invalid_input');
  });

  it('answers 400 invalid_input for a malformed multipart header', async () => {
    const answer = await post(Buffer.from('whatever'), { 'content-type': 'multipart/form-data' });
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, 'invalid_input');
  });

  it('answers 413 at once when Content-Length declares more than the limit', async () => {
    const answer = await post(new Uint8Array(MAX + 1), { 'content-type': 'application/pdf' });
    assert.equal(answer.status, 413);
    assert.equal(answer.body.error, 'body_too_large');
  });

  /** Streams `total` bytes in chunks without Content-Length; resolves with the answer and how much had been sent by then. */
  function streamUpload(total: number, contentType: string, prefix = Buffer.alloc(0)): Promise<{ status: number; body: Record<string, unknown>; sentWhenAnswered: number }> {
    return new Promise((resolve, reject) => {
      let sent = 0;
      let answered = false;
      const req = http.request(`${base}/v1/pdf-text`, { method: 'POST', headers: { 'content-type': contentType, 'transfer-encoding': 'chunked' } });
      req.on('response', (res) => {
        answered = true;
        const sentWhenAnswered = sent;
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), sentWhenAnswered }));
      });
      // Writes after the server hung up fail; that is the point.
      req.on('error', (error) => (answered ? undefined : reject(error)));
      const chunk = Buffer.alloc(64 * 1024, 0x41);
      const pump = () => {
        if (answered || req.destroyed) return;
        if (sent === 0 && prefix.length) {
          req.write(prefix);
          sent += prefix.length;
        }
        if (sent >= total) {
          req.end();
          return;
        }
        sent += chunk.length;
        // Pace the upload so the answer can overtake it.
        if (req.write(chunk)) setTimeout(pump, 2);
        else req.once('drain', () => setTimeout(pump, 2));
      };
      pump();
    });
  }

  it('aborts a raw stream over the limit with 413 before the client has sent it all', async () => {
    const total = 40 * MAX;
    const answer = await streamUpload(total, 'application/pdf');
    assert.equal(answer.status, 413);
    assert.equal(answer.body.error, 'body_too_large');
    assert.ok(answer.sentWhenAnswered < total, `answered after ${answer.sentWhenAnswered} of ${total} bytes`);
  });

  it('aborts a multipart file over the limit with 413 before the client has sent it all', async () => {
    const boundary = '----paycall-stream-boundary';
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n`);
    const total = 40 * MAX;
    const answer = await streamUpload(total, `multipart/form-data; boundary=${boundary}`, head);
    assert.equal(answer.status, 413);
    assert.equal(answer.body.error, 'body_too_large');
    assert.ok(answer.sentWhenAnswered < total, `answered after ${answer.sentWhenAnswered} of ${total} bytes`);
  });
});
