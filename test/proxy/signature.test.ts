/**
 * Forwarded-call signatures checked by an independent RFC 9421 implementation
 * (`http-message-signatures`), and by hand from the RFC's rules: a seller with any library can
 * verify that a call came through the marketplace, and a changed header or body breaks it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpbis, createVerifier } from 'http-message-signatures';
import { contentDigest, createForwardSigner, loadOrCreateSigningKey, parseSigningKey } from '../../src/proxy/forward-signature.ts';

const { privateKey } = generateKeyPairSync('ed25519');
const signer = createForwardSigner(privateKey, 'paycall-test-1');
const body = Buffer.from('{"q":"weather in Lisbon"}');
const forwarded = () => {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-digest': contentDigest(createHash('sha256').update(body).digest()),
    'x-paycall-payer': '0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9',
    'x-paycall-tx': '0x9f3b2c1d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b',
    'x-paycall-network': 'base',
    'idempotency-key': '"0x9f3b2c1d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b"',
  };
  const url = 'https://api.seller.example/v2/forecast?units=metric';
  const signed: Record<string, string> = { ...headers, ...signer.sign({ method: 'POST', targetUri: url, headers }) };
  return { method: 'POST', url, headers: signed };
};

const verifyWithLibrary = (message: { method: string; url: string; headers: Record<string, string> }) =>
  httpbis.verifyMessage(
    {
      keyLookup: async (params) => {
        assert.equal(params.keyid, 'paycall-test-1');
        // What a seller does: the public key from /v1/_meta (raw base64url) as a JWK.
        return { id: 'paycall-test-1', algs: ['ed25519'], verify: createVerifier(createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: signer.publicKey }, format: 'jwk' }), 'ed25519') };
      },
      requiredFields: ['@method', '@target-uri', 'content-digest', 'x-paycall-payer', 'x-paycall-tx', 'x-paycall-network', 'idempotency-key'],
      requiredParams: ['created', 'keyid'],
    },
    message,
  );

test('an independent RFC 9421 library verifies the signature of a forwarded call', async () => {
  assert.equal(await verifyWithLibrary(forwarded()), true);
});

test('the signature base built by hand from RFC 9421 section 2.5 verifies with the published key', () => {
  const m = forwarded();
  const params = m.headers['signature-input'].replace(/^paycall=/, '');
  const base = [
    `"@method": POST`,
    `"@target-uri": ${m.url}`,
    `"content-digest": ${m.headers['content-digest']}`,
    `"x-paycall-payer": ${m.headers['x-paycall-payer']}`,
    `"x-paycall-tx": ${m.headers['x-paycall-tx']}`,
    `"x-paycall-network": ${m.headers['x-paycall-network']}`,
    `"idempotency-key": ${m.headers['idempotency-key']}`,
    `"@signature-params": ${params}`,
  ].join('\n');
  const sig = Buffer.from(/^paycall=:(.+):$/.exec(m.headers.signature)![1], 'base64');
  const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: signer.publicKey }, format: 'jwk' });
  assert.equal(verify(null, Buffer.from(base), publicKey, sig), true);
  assert.match(params, /^\("@method" "@target-uri" "content-digest" "x-paycall-payer" "x-paycall-tx" "x-paycall-network" "idempotency-key"\);created=\d+;keyid="paycall-test-1";alg="ed25519"$/);
});

test('a forged payer, transaction, idempotency key, body digest, method or target breaks the signature', async () => {
  for (const change of [
    // A replayed forward passed off as a new call (or a new call as a repeat) under another key.
    (m: ReturnType<typeof forwarded>) => (m.headers['idempotency-key'] = `"0x${'1'.repeat(64)}"`),
    (m: ReturnType<typeof forwarded>) => (m.headers['x-paycall-payer'] = '0x000000000000000000000000000000000000dEaD'),
    (m: ReturnType<typeof forwarded>) => (m.headers['x-paycall-tx'] = `0x${'0'.repeat(64)}`),
    (m: ReturnType<typeof forwarded>) => (m.headers['content-digest'] = contentDigest(createHash('sha256').update('{"q":"other"}').digest())),
    (m: ReturnType<typeof forwarded>) => (m.method = 'PUT'),
    (m: ReturnType<typeof forwarded>) => (m.url = 'https://api.seller.example/v2/admin'),
  ]) {
    const m = forwarded();
    change(m);
    assert.equal(await verifyWithLibrary(m), false);
  }
});

test('instances started at once on one data directory all sign with the one key on disk (real processes)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'paycall-signing-race-'));
  try {
    const file = join(dir, 'forward-signing-key.pem');
    const module = new URL('../../src/proxy/forward-signature.ts', import.meta.url).href;
    // Each process, once loaded, says it is ready and waits for the word go; then all load or
    // create the key at once and print their public keys.
    const go = join(dir, 'go');
    const script = (n: number) =>
      `import { existsSync, writeFileSync } from 'node:fs'; const m = await import(${JSON.stringify(module)}); writeFileSync(${JSON.stringify(join(dir, `ready-${n}`))}, ''); while (!existsSync(${JSON.stringify(go)})); console.log(m.createForwardSigner(m.loadOrCreateSigningKey(${JSON.stringify(file)}), 'k').publicKey);`;
    const run = (n: number) =>
      new Promise<string>((resolve, reject) => {
        execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script(n)], (error, stdout) => (error ? reject(error) : resolve(stdout.trim())));
      });
    const count = 12;
    const all = Promise.all(Array.from({ length: count }, (_, n) => run(n)));
    while (readdirSync(dir).filter((f) => f.startsWith('ready-')).length < count) await new Promise((r) => setTimeout(r, 20));
    writeFileSync(go, '');
    const keys = await all;
    for (const f of readdirSync(dir)) if (f.startsWith('ready-') || f === 'go') rmSync(join(dir, f));
    const onDisk = createForwardSigner(loadOrCreateSigningKey(file), 'k').publicKey;
    assert.deepEqual(new Set(keys), new Set([onDisk]), 'every instance signs with the key the others publish');
    assert.deepEqual(readdirSync(dir), ['forward-signing-key.pem'], 'no partial key file is left behind');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the devnet key is generated once and kept; a configured key may be PEM or a base64 seed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paycall-signing-'));
  try {
    const file = join(dir, 'forward-signing-key.pem');
    const a = createForwardSigner(loadOrCreateSigningKey(file), 'k');
    const b = createForwardSigner(loadOrCreateSigningKey(file), 'k');
    assert.equal(a.publicKey, b.publicKey);
    const seed = Buffer.alloc(32, 7).toString('base64');
    assert.equal(createForwardSigner(parseSigningKey(seed), 'k').publicKey, createForwardSigner(parseSigningKey(seed), 'k').publicKey);
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    assert.equal(createForwardSigner(parseSigningKey(pem), 'k').publicKey, signer.publicKey);
    assert.throws(() => parseSigningKey('c2hvcnQ='), /32-byte seed/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
