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
import { createForwardSigner } from '../../src/proxy/forward-signature.ts';
import { forwardCall, type ForwardInput } from '../../src/proxy/forward.ts';
import { spoolBody } from '../../src/proxy/spool-body.ts';
import { AppError } from '../../src/http/app-error.ts';

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
      if (req.url === '/forger') {
        // Every header the service sets on a paid answer, as an upstream could send it.
        res.writeHead(429, {
          'content-type': 'application/json',
          'x-service-tx': '0xforged',
          'x-idempotent-replay': 'true',
          'x-payment-response': 'forged',
          'payment-response': 'forged',
          'payment-required': 'forged',
          'x-paycall-tx': '0xforged',
          'X-Paycall-Payer': '0xforged',
          'x-request-id': 'forged-id',
          signature: 'paycall=:Zm9yZ2Vk:',
          'signature-input': 'paycall=("@status")',
          ratelimit: 'limit=1, remaining=0, reset=5',
          'ratelimit-policy': '1;w=60',
          'x-ratelimit-remaining': '0',
          'retry-after': '7',
          'x-seller': 'kept',
        });
        return void res.end('{"slow":"down"}');
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
async function input(path: string, mode: 'proxy' | 'paywall', body = Buffer.from('{"q":1}'), headers: Record<string, string> = {}, clientIp = '127.0.0.1'): Promise<ForwardInput> {
  return { mode, upstreamUrl: `${base}${path}`, method: 'POST', headers: { 'content-type': 'application/json', host: 'api.paycall.test', ...headers }, body: await spoolBody(Readable.from([body]), 1024 * 1024), payment, clientIp };
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

test('an upstream cannot set the service’s own answer headers; its Retry-After and its own headers pass', async () => {
  for (const mode of ['proxy', 'paywall'] as const) {
    const answer = await forwardCall(deps, await input('/forger', mode));
    await text(answer.body);
    assert.equal(answer.status, 429);
    for (const h of ['x-service-tx', 'x-idempotent-replay', 'x-payment-response', 'payment-response', 'payment-required', 'x-paycall-tx', 'x-paycall-payer', 'x-request-id', 'signature', 'signature-input', 'ratelimit', 'ratelimit-policy', 'x-ratelimit-remaining']) {
      assert.equal(answer.headers[h], undefined, `${mode}: ${h} from the upstream must not reach the buyer`);
    }
    assert.equal(answer.headers['retry-after'], '7');
    assert.equal(answer.headers['x-seller'], 'kept');
  }
});

const spoofed = { 'x-forwarded-for': '1.2.3.4', forwarded: 'for=1.2.3.4;proto=https', 'x-real-ip': '1.2.3.4', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example', 'true-client-ip': '1.2.3.4' };

test('the upstream is told the socket address: what a client writes in Forwarded, X-Forwarded-For or X-Real-IP is replaced', async () => {
  for (const [peer, node, xff] of [
    ['127.0.0.1', 'for=127.0.0.1', '127.0.0.1'],
    ['::ffff:203.0.113.9', 'for=203.0.113.9', '203.0.113.9'],
    ['2001:db8::7', 'for="[2001:db8::7]"', '2001:db8::7'],
  ]) {
    await text((await forwardCall(deps, await input('/ok', 'proxy', undefined, spoofed, peer))).body);
    const got = seen.at(-1)!.headers;
    assert.equal(got.forwarded, `${node};proto=http;host=api.paycall.test`, peer);
    assert.equal(got['x-forwarded-for'], xff, peer);
    for (const h of ['x-real-ip', 'x-forwarded-proto', 'x-forwarded-host', 'true-client-ip']) assert.equal(got[h], undefined, `${peer}: ${h}`);
  }
  // A Host with a port is a quoted string (RFC 7239 section 4).
  await text((await forwardCall(deps, await input('/ok', 'proxy', undefined, { host: '127.0.0.1:4020' }))).body);
  assert.equal(seen.at(-1)!.headers.forwarded, 'for=127.0.0.1;proto=http;host="127.0.0.1:4020"');
});

test('behind a trusted proxy the chain it wrote is kept and extended with it; an untrusted peer’s chain is not', async () => {
  const { parseTrustedProxies } = await import('../../src/lib/client-address.ts');
  const trusted = { ...deps, trustedProxies: parseTrustedProxies('10.0.0.0/8, 2001:db8:1::/48') };
  await text((await forwardCall(trusted, await input('/ok', 'proxy', undefined, spoofed, '10.1.2.3'))).body);
  let got = seen.at(-1)!.headers;
  assert.equal(got['x-forwarded-for'], '1.2.3.4, 10.1.2.3');
  assert.equal(got.forwarded, 'for=1.2.3.4;proto=https, for=10.1.2.3;proto=http;host=api.paycall.test');
  assert.equal(got['x-forwarded-proto'], 'https');
  assert.equal(got['x-forwarded-host'], 'evil.example');
  assert.equal(got['x-real-ip'], undefined, 'X-Real-IP is never passed on');
  await text((await forwardCall(trusted, await input('/ok', 'proxy', undefined, spoofed, '::ffff:10.9.9.9'))).body);
  assert.equal(seen.at(-1)!.headers['x-forwarded-for'], '1.2.3.4, 10.9.9.9', 'an IPv4-mapped peer matches the IPv4 range');
  await text((await forwardCall(trusted, await input('/ok', 'proxy', undefined, spoofed, '2001:db8:1::5'))).body);
  assert.equal(seen.at(-1)!.headers.forwarded, 'for=1.2.3.4;proto=https, for="[2001:db8:1::5]";proto=http;host=api.paycall.test');
  // A peer outside the list: its chain is its own invention.
  await text((await forwardCall(trusted, await input('/ok', 'proxy', undefined, spoofed, '11.0.0.1'))).body);
  got = seen.at(-1)!.headers;
  assert.equal(got['x-forwarded-for'], '11.0.0.1');
  assert.equal(got.forwarded, 'for=11.0.0.1;proto=http;host=api.paycall.test');
  // A trusted proxy that wrote nothing: the chain starts at it.
  await text((await forwardCall(trusted, await input('/ok', 'proxy', undefined, {}, '10.0.0.1'))).body);
  assert.equal(seen.at(-1)!.headers['x-forwarded-for'], '10.0.0.1');
});
