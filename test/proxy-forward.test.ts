/**
 * Forwarding to a real local upstream: credentials dropped, who paid added and signed (checked
 * with an independent RFC 9421 library on what the upstream received), proxy-mode retries,
 * timeout and 5xx answers with X-Service-Tx, paywall passing the answer as it is, spooled
 * bodies hashed and bounded, large answers streamed.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { Agent } from 'undici';
import { httpbis, createVerifier } from 'http-message-signatures';
import { createForwardSigner } from '../src/proxy/forward-signature.ts';
import { forwardCall, type ForwardInput } from '../src/proxy/forward.ts';
import { spoolBody } from '../src/proxy/spool-body.ts';
import { AppError } from '../src/http/app-error.ts';

const signer = createForwardSigner(generateKeyPairSync('ed25519').privateKey, 'paycall-forward-test');
const dispatcher = new Agent();
let server: Server;
let base: string;
const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: Buffer }[] = [];
let failuresLeft = 0;

before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
      if (req.url === '/flaky' && failuresLeft-- > 0) return void res.writeHead(503).end('busy');
      if (req.url === '/down') return void res.writeHead(500).end('down');
      if (req.url === '/slow') return void setTimeout(() => res.writeHead(200).end('{}'), 1_500);
      if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const mb = Buffer.alloc(1024 * 1024, 7);
        let sent = 0;
        const more = () => {
          while (sent < 20 && res.write(mb)) sent++;
          if (sent >= 20) res.end();
          else res.once('drain', () => (sent++, more()));
        };
        return more();
      }
      res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'session=secret', connection: 'keep-alive, x-private', 'x-private': 'hop', 'x-seller': 'kept' });
      res.end(JSON.stringify({ ok: true }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await dispatcher.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const deps = { dispatcher, signer, timeoutMs: 500, retryWindowMs: 1_500, retryBaseMs: 50 };
const payment = { payer: '0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9', tx: `0x${'ab'.repeat(32)}`, network: 'base' };
async function input(path: string, mode: 'proxy' | 'paywall', body = Buffer.from('{"q":1}'), headers: Record<string, string> = {}): Promise<ForwardInput> {
  return { mode, upstreamUrl: `${base}${path}`, method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: await spoolBody(Readable.from([body]), 1024 * 1024), payment };
}
const text = async (r: Readable) => Buffer.concat(await r.toArray()).toString();

test('the upstream gets who paid, signed over the body digest, and none of the buyer’s credentials', async () => {
  const answer = await forwardCall(
    deps,
    await input('/ok', 'proxy', Buffer.from('{"q":"lisbon"}'), {
      'x-payment': 'secret-receipt',
      'x-session-token': 'secret-token',
      'payment-signature': 'secret-v2',
      authorization: 'Bearer pc_live_secret',
      cookie: 'a=b',
      'x-paycall-payer': '0xforged',
      'idempotency-key': '"forged-by-the-buyer"',
      connection: 'x-hop',
      'x-hop': 'hop-by-hop',
      'x-buyer-trace': 'kept',
    }),
  );
  assert.equal(answer.status, 200);
  assert.deepEqual(JSON.parse(await text(answer.body)), { ok: true });
  assert.equal(answer.headers['set-cookie'], undefined);
  assert.equal(answer.headers['x-private'], undefined, 'a header named in Connection is hop-by-hop');
  assert.equal(answer.headers['x-seller'], 'kept');
  const got = seen.at(-1)!;
  for (const h of ['x-payment', 'x-session-token', 'payment-signature', 'authorization', 'cookie', 'x-hop']) assert.equal(got.headers[h], undefined, h);
  assert.equal(got.headers['x-buyer-trace'], 'kept');
  assert.equal(got.headers['x-paycall-payer'], payment.payer);
  assert.equal(got.headers['x-paycall-tx'], payment.tx);
  // The seller deduplicates repeated forwards of one paid call on it: the buyer cannot set it.
  assert.equal(got.headers['idempotency-key'], `"${payment.tx}"`);
  assert.equal(got.headers['content-digest'], `sha-256=:${createHash('sha256').update(got.body).digest('base64')}:`);
  const verified = await httpbis.verifyMessage(
    {
      keyLookup: async () => ({ id: signer.keyid, algs: ['ed25519'], verify: createVerifier(createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: signer.publicKey }, format: 'jwk' }), 'ed25519') }),
      requiredFields: ['@method', '@target-uri', 'content-digest', 'x-paycall-payer', 'x-paycall-tx', 'x-paycall-network', 'idempotency-key'],
    },
    { method: got.method, url: `${base}${got.url}`, headers: got.headers as Record<string, string> },
  );
  assert.equal(verified, true);
});

test('proxy mode retries a 5xx until the upstream recovers', async () => {
  failuresLeft = 2;
  const answer = await forwardCall(deps, await input('/flaky', 'proxy'));
  assert.equal(answer.status, 200);
  assert.equal(answer.attempts, 3);
  await text(answer.body);
});

test('proxy mode: 5xx for longer than the retry window is 502 upstream_5xx with X-Service-Tx', async () => {
  const before = seen.length;
  await assert.rejects(forwardCall(deps, await input('/down', 'proxy')), (e: unknown) => e instanceof AppError && e.code === 'upstream_5xx' && e.status === 502 && e.extra.headers?.['x-service-tx'] === payment.tx);
  assert.ok(seen.length - before > 2, 'retried');
});

test('no answer within the timeout is 504 upstream_timeout with X-Service-Tx', async () => {
  await assert.rejects(forwardCall(deps, await input('/slow', 'proxy')), (e: unknown) => e instanceof AppError && e.code === 'upstream_timeout' && e.status === 504 && e.extra.headers?.['x-service-tx'] === payment.tx);
});

test('paywall mode forwards once and passes a 5xx back as it is', async () => {
  const before = seen.length;
  const answer = await forwardCall(deps, await input('/down', 'paywall'));
  assert.equal(answer.status, 500);
  assert.equal(await text(answer.body), 'down');
  assert.equal(seen.length - before, 1);
});

test('a spooled body is bounded while it arrives and hashed on the way', async () => {
  const chunks = Array.from({ length: 5 }, () => Buffer.alloc(300 * 1024, 1));
  await assert.rejects(spoolBody(Readable.from(chunks), 1024 * 1024), (e: unknown) => e instanceof AppError && e.code === 'body_too_large' && e.status === 413);
  const ok = await spoolBody(Readable.from(chunks.slice(0, 3)), 1024 * 1024);
  assert.equal(ok.size, 900 * 1024);
  assert.deepEqual(ok.sha256, createHash('sha256').update(Buffer.concat(chunks.slice(0, 3))).digest());
  assert.equal((await Readable.from(ok.open()).toArray()).reduce((n, c: Buffer) => n + c.length, 0), 900 * 1024);
  await ok.discard();
});

test('a 20 MB answer streams through', async () => {
  const answer = await forwardCall(deps, await input('/big', 'proxy'));
  let total = 0;
  for await (const chunk of answer.body) total += (chunk as Buffer).length;
  assert.equal(total, 20 * 1024 * 1024);
});
