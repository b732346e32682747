/**
 * The HTTP edge under hostile input, against the real server and a real PostgreSQL database.
 * Each test reproduces a finding of the hardening issue: on the old code a truncated
 * multipart upload ended the process (and with it this test file), bad percent-escapes and
 * NUL bytes answered 500, and Node's parser answered empty 400 / 431 bodies.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { assertMatchesContract } from '../helpers/contract.ts';
import { makePdf } from '../helpers/paid.ts';

let db: TestDatabase;
let t: TestApp;
let port: number;
const WALLET = '0x1111111111111111111111111111111111111111';

before(async () => {
  db = await createTestDatabase('edge_http');
  t = await startTestApp(testConfig({ DATABASE_URL: db.url }));
  port = Number(new URL(t.baseUrl).port);
});
after(async () => {
  await t?.close();
  await db?.drop();
});

/** Sends raw bytes and reads until the server closes: what fetch() would refuse to send. */
function rawRequest(bytes: Buffer | string, opts: { endAfterWrite?: boolean } = {}): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.write(bytes);
    if (opts.endAfterWrite) socket.end();
  });
}

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any, requestId: res.headers.get('x-request-id') });

const healthy = async () => assert.equal((await fetch(`${t.baseUrl}/v1/_health`)).status, 200);

const TOOLS = [
  ['/v1/pdf-text', 'pdfText'],
  ['/v1/pdf-md', 'pdfMd'],
  ['/v1/pdf-json', 'pdfJson'],
  ['/v1/invoice-extract', 'invoiceExtract'],
] as const;

test('finding 1: a multipart file part without its closing boundary answers 400 invalid_input on every built-in, and the process stays up', async () => {
  const pdf = await makePdf(1, 'truncated');
  const boundary = 'xBOUNDARYx';
  const truncated = Buffer.concat([
    Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="a.pdf"\r\ncontent-type: application/pdf\r\n\r\n`),
    pdf.subarray(0, 200),
  ]);
  for (const [path, operationId] of TOOLS) {
    const res = await fetch(`${t.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body: new Uint8Array(truncated) });
    const { status, body, requestId } = await json(res);
    assert.equal(status, 400, path);
    assert.equal(body.error, 'invalid_input');
    assert.match(body.message, /truncated/);
    assert.equal(body.request_id, requestId);
    await assertMatchesContract(operationId, 400, body);
  }
  await healthy();
});

test('finding 1: a truncated part that is not the file, a missing boundary and a garbled part header all answer 400', async () => {
  const boundary = 'b0undary';
  const cases: [string, string][] = [
    [`multipart/form-data; boundary=${boundary}`, `--${boundary}\r\ncontent-disposition: form-data; name="other"; filename="x.bin"\r\n\r\nabc`],
    ['multipart/form-data', `--${boundary}\r\n\r\n`],
    [`multipart/form-data; boundary=${boundary}`, `--${boundary}\r\n${'x'.repeat(100)}\r\n\r\n--${boundary}--`],
    [`multipart/form-data; boundary=${boundary}`, 'not multipart at all'],
  ];
  for (const [type, body] of cases) {
    const res = await fetch(`${t.baseUrl}/v1/pdf-text`, { method: 'POST', headers: { 'content-type': type }, body });
    const answer = await json(res);
    assert.equal(answer.status, 400, `${type} ${JSON.stringify(body)}`);
    assert.equal(answer.body.error, 'invalid_input');
  }
  await healthy();
});

test('finding 1: a client that hangs up in the middle of a multipart upload costs nothing but its connection', async () => {
  const boundary = 'hangup';
  const head = `POST /v1/pdf-text HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 100000\r\n\r\n`;
  await new Promise<void>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(head + `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.7 partial`);
      setTimeout(() => socket.destroy(), 100);
    });
    socket.on('close', () => resolve());
    socket.on('error', () => undefined);
  });
  await healthy();
});

/** Every templated path of the contract with one parameter replaced by a bad value. */
async function templatedOperations() {
  const { loadContract } = await import('../../src/http/contract.ts');
  const contract = await loadContract(new URL('../../openapi.yaml', import.meta.url).pathname);
  const samples: Record<string, string> = { wallet: WALLET, id: '7', slug: 'acme-ocr', path_suffix: 'parse-receipt' };
  return contract.api.router.getOperations().filter((op) => op.path.includes('{')).map((op) => ({ op, samples }));
}

test('finding 2: a bad percent-escape in any path parameter answers 400 naming the parameter, never 500', async () => {
  const ops = await templatedOperations();
  assert.ok(ops.length >= 10);
  for (const { op, samples } of ops) {
    for (const name of [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])) {
      for (const bad of ['%zz', '%', 'a%', '%ff', '%ED%A0%80', '%C3']) {
        const path = op.path.replace(/\{([^}]+)\}/g, (_m, n: string) => (n === name ? bad : samples[n]));
        const res = await fetch(`${t.baseUrl}${path}`, { method: op.method.toUpperCase(), headers: { 'content-type': 'application/json' }, body: op.method === 'get' || op.method === 'delete' ? undefined : '{}' });
        const { status, body } = await json(res);
        assert.equal(status, 400, `${op.method} ${path}: ${JSON.stringify(body)}`);
        assert.equal(body.issues?.[0]?.path, `path.${name}`, `${op.method} ${path}: ${JSON.stringify(body)}`);
        // wallet and id keep their own codes; everything else is invalid_input.
        assert.equal(body.error, name === 'wallet' ? 'invalid_wallet' : name === 'id' ? 'invalid_id' : 'invalid_input');
        await assertMatchesContract(op.operationId!, 400, body);
      }
    }
  }
});

test('finding 3: a NUL byte in a path parameter, a query value or a JSON string is refused with 400 before the database', async () => {
  const nulPath = await json(await fetch(`${t.baseUrl}/v1/a%00b/xyz`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
  assert.equal(nulPath.status, 400);
  assert.equal(nulPath.body.error, 'invalid_input');
  assert.deepEqual(nulPath.body.issues.map((i: any) => i.path), ['path.slug']);
  assert.match(nulPath.body.issues[0].message, /NUL/);
  await assertMatchesContract('callSellerEndpoint', 400, nulPath.body);

  const nulSuffix = await json(await fetch(`${t.baseUrl}/v1/acme-ocr/x%00y`, { method: 'POST', body: '{}' }));
  assert.equal(nulSuffix.status, 400);
  assert.equal(nulSuffix.body.issues[0].path, 'path.path_suffix');

  const nulQuery = await json(await fetch(`${t.baseUrl}/v1/_seller/${WALLET}/stats?sig=a%00b&ts=1`));
  assert.equal(nulQuery.status, 400);
  assert.equal(nulQuery.body.issues[0].path, 'query.sig');
  const badQuery = await json(await fetch(`${t.baseUrl}/v1/_seller/${WALLET}/stats?sig=%zz&ts=1`));
  assert.equal(badQuery.status, 400);
  assert.equal(badQuery.body.issues[0].path, 'query.sig');

  const register = (body: Buffer | string) => fetch(`${t.baseUrl}/v1/_seller/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : new Uint8Array(body) });
  const nulJson = await json(await register(JSON.stringify({ wallet: WALLET, slug: 'abc', signature: 'x\u0000y', timestamp: 1 })));
  assert.equal(nulJson.status, 400);
  assert.equal(nulJson.body.error, 'invalid_input');
  assert.equal(nulJson.body.issues[0].path, 'body.signature');
  const surrogate = await json(await register('{"wallet":"' + WALLET + '","slug":"abc","signature":"\\ud800","timestamp":1}'));
  assert.equal(surrogate.status, 400);
  assert.equal(surrogate.body.issues[0].path, 'body.signature');
  const notUtf8 = await json(await register(Buffer.concat([Buffer.from('{"slug":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])));
  assert.equal(notUtf8.status, 400);
  assert.equal(notUtf8.body.error, 'invalid_json');
  await assertMatchesContract('registerSeller', 400, notUtf8.body);
  // 30,000 levels of nesting fit in 64 KB; the checks must not overflow the stack on them.
  const deep = await json(
    await fetch(`${t.baseUrl}/v1/_facilitator/solana`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"transaction":' + '['.repeat(30_000) + '"\\u0000"' + ']'.repeat(30_000) + '}' }),
  );
  assert.equal(deep.status, 400);
  assert.equal(deep.body.error, 'invalid_input');
  await healthy();
});

test('finding 4: raw non-ASCII bytes in the path answer our JSON 400 body with a request id', async () => {
  const res = await rawRequest(Buffer.concat([Buffer.from('GET /v1/'), Buffer.from([0xc3, 0xa9, 0xff]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]));
  assert.equal(res.status, 400);
  assert.match(res.headers['content-type'], /application\/json/);
  const body = JSON.parse(res.body);
  assert.equal(body.error, 'bad_request');
  assert.equal(typeof body.message, 'string');
  assert.equal(body.request_id, res.headers['x-request-id']);
});

test('finding 4: a 20 KB X-Payment or X-Session-Token header answers our JSON 431 body', async () => {
  for (const header of ['X-Payment', 'X-Session-Token']) {
    const res = await rawRequest(`POST /v1/pdf-text HTTP/1.1\r\nHost: x\r\nX-Request-Id: big-${header}\r\n${header}: ${'A'.repeat(20_000)}\r\nContent-Length: 0\r\n\r\n`);
    assert.equal(res.status, 431, header);
    const body = JSON.parse(res.body);
    assert.equal(body.error, 'headers_too_large');
    assert.match(body.request_id, /^[\w.-]+$/);
    assert.equal(body.request_id, res.headers['x-request-id']);
  }
  await healthy();
});

test('finding 4: a garbled request line, a bad header and an HTTP/1.1 request without Host all answer JSON 400', async () => {
  const cases = ['NOT A REQUEST\r\n\r\n', 'GET /v1/_meta HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', 'GET /v1/_meta HTTP/1.1\r\nHost: x\r\nX-Payment: a\u0000b\r\n\r\n', 'GET /v1/_meta HTTP/1.1\r\nConnection: close\r\n\r\n', 'GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'];
  for (const raw of cases) {
    const res = await rawRequest(raw, { endAfterWrite: false });
    assert.equal(res.status, 400, JSON.stringify(raw));
    const body = JSON.parse(res.body);
    assert.equal(body.error, 'bad_request', JSON.stringify(raw));
    assert.equal(body.request_id, res.headers['x-request-id']);
  }
  await healthy();
});

test('an error escaping a handler is a 500 internal_error for that request only, logged with its stack and never sent', async () => {
  const { loadContract } = await import('../../src/http/contract.ts');
  const { createHttpServer } = await import('../../src/http/server.ts');
  type Handler = import('../../src/http/server.ts').Handler;
  const { recordingLogger } = await import('../helpers/paid.ts');
  const contract = await loadContract(new URL('../../openapi.yaml', import.meta.url).pathname);
  const rec = recordingLogger();
  const handlers: Record<string, Handler> = Object.fromEntries(contract.operationIds.map((id) => [id, async () => ({ status: 200, body: { ok: true } })]));
  handlers.getMeta = async () => {
    throw new TypeError('boom inside a handler');
  };
  // A header value Node refuses: writeHead throws while the answer is being sent.
  handlers.getSessionToken = async () => ({ status: 200, headers: { 'x-broken': 'a\nb' }, body: {} });
  const http = createHttpServer({ contract, handlers, log: rec.log, jsonBodyLimits: {}, defaultJsonBodyLimit: 65_536 });
  const address = await http.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${address.port}`;
  try {
    for (const path of ['/v1/_meta', '/v1/_session-token']) {
      const res = await fetch(`${base}${path}`);
      const text = await res.text();
      assert.equal(res.status, 500, path);
      const body = JSON.parse(text);
      assert.equal(body.error, 'internal_error');
      assert.equal(body.request_id, res.headers.get('x-request-id'));
      assert.doesNotMatch(text, /boom|at \w+ \(/);
    }
    // The next request, and other operations, are unaffected.
    assert.equal((await fetch(`${base}/v1/_health`)).status, 200);
    const failed = rec.lines.filter((l) => l.msg === 'request failed');
    assert.equal(failed.length, 2);
    assert.match((failed[0].err as { stack: string }).stack, /TypeError: boom inside a handler\n\s+at /);
  } finally {
    await http.shutdown(1000);
  }
});

test('CONNECT and an Expect other than 100-continue answer JSON error bodies instead of a dropped connection or an empty 417', async () => {
  const connectRes = await rawRequest('CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n');
  assert.equal(connectRes.status, 405);
  assert.equal(JSON.parse(connectRes.body).error, 'method_not_allowed');
  const expectRes = await rawRequest('GET /v1/_meta HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n');
  assert.equal(expectRes.status, 417);
  const body = JSON.parse(expectRes.body);
  assert.equal(body.error, 'expectation_failed');
  assert.equal(body.request_id, expectRes.headers['x-request-id']);
});

test('a client that hangs up in the middle of a JSON body is its own failure: no 500, nothing logged as an error', async () => {
  const { loadContract } = await import('../../src/http/contract.ts');
  const { createHttpServer } = await import('../../src/http/server.ts');
  const { recordingLogger } = await import('../helpers/paid.ts');
  const contract = await loadContract(new URL('../../openapi.yaml', import.meta.url).pathname);
  const rec = recordingLogger();
  const handlers = Object.fromEntries(contract.operationIds.map((id) => [id, async () => ({ status: 200 })]));
  const statuses: number[] = [];
  const http = createHttpServer({ contract, handlers, log: rec.log, jsonBodyLimits: {}, defaultJsonBodyLimit: 65_536, onResponse: ({ status }) => statuses.push(status) });
  const address = await http.listen(0, '127.0.0.1');
  try {
    await new Promise<void>((resolve) => {
      const socket = connect(address.port, '127.0.0.1', () => {
        socket.write('POST /v1/_seller/register HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{"wallet":"0x111');
        setTimeout(() => socket.destroy(), 100);
      });
      socket.on('close', () => resolve());
      socket.on('error', () => undefined);
    });
    while (statuses.length === 0) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(statuses, [400]);
    assert.deepEqual(rec.lines.filter((l) => l.level === 'error'), []);
  } finally {
    await http.shutdown(1000);
  }
});
