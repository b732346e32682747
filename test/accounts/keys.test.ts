/**
 * API keys against the real server and PostgreSQL: issuance (EVM and Solana wallets), listing,
 * revocation, every key error code, and attempts to get more from a key than it grants (other
 * scopes, other wallets, other keys, revoked and expired keys). No chain is needed here.
 */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { call, endpointInput, evmSigner, nowS, register, signedQuery, solanaSigner, startUpstream, type TestSigner, type TestUpstream } from '../helpers/sellers.ts';
import { bearer, issueKey, newKey, signedRevokeHeaders, TEST_API_KEY_SECRET } from '../helpers/keys.ts';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { parse } from 'yaml';
import { keyScopesOf, OPERATION_POLICIES } from '../../src/policies.ts';

const KEY_SCOPES = keyScopesOf(OPERATION_POLICIES);
import { loadOrCreateApiKeySecret } from '../../src/accounts/api-keys.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let db: TestDatabase;
let t: TestApp;
let up: TestUpstream;
let sql: pg.Client;
const alice = evmSigner();
const bob = evmSigner();
const sol = solanaSigner();

const env = () => ({ DATABASE_URL: db.url, SCHEDULER_TICK_MS: '0', ALLOW_LOCAL_UPSTREAMS: '1', API_KEY_SECRET: TEST_API_KEY_SECRET, API_KEY_USAGE_FLUSH_MS: '3600000' });

before(async () => {
  db = await createTestDatabase('accounts_keys');
  up = await startUpstream();
  t = await startTestApp(testConfig(env()));
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  assert.equal((await register(t.baseUrl, alice, 'alice-shop')).status, 201);
  assert.equal((await register(t.baseUrl, bob, 'bob-shop')).status, 201);
});
after(async () => {
  await sql?.end();
  await t?.close();
  await up?.close();
  await db?.drop();
});

test('KEY_SCOPES is the contract: every operation offering bearerApiKey, with its scope', () => {
  const doc = parse(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8'));
  const fromContract: Record<string, string> = {};
  for (const item of Object.values<Record<string, { operationId?: string; security?: Record<string, string[]>[] }>>(doc.paths)) {
    for (const op of Object.values(item)) {
      const scopes = new Set((op?.security ?? []).filter((s) => s.bearerApiKey).map((s) => s.bearerApiKey.join(',')));
      if (!op?.operationId || !scopes.size) continue;
      assert.equal(scopes.size, 1, `${op.operationId} asks one scope`);
      fromContract[op.operationId] = [...scopes][0] || 'any';
    }
  }
  assert.deepEqual(fromContract, { ...KEY_SCOPES });
});

test('the devnet secret is generated once, 0600, and the same on the next start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paycall-keys-'));
  try {
    const file = join(dir, 'nested', 'api-key-secret');
    const first = loadOrCreateApiKeySecret(file);
    assert.ok(first.length >= 32);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(loadOrCreateApiKeySecret(file), first);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const listKeys = (key?: string, headers: Record<string, string> = {}) => call(t.baseUrl, 'listApiKeys', 'GET', '/v1/keys', { headers: { ...(key ? bearer(key) : {}), ...headers } });
const revoke = (id: number | string, headers: Record<string, string>) => call(t.baseUrl, 'revokeApiKey', 'DELETE', `/v1/keys/${id}`, { headers });

describe('issuance', () => {
  test('an EVM wallet gets pc_live_ + 43 base64url characters once; only an HMAC of it is stored', async () => {
    const r = await issueKey(t.baseUrl, alice, ['read', 'balance:read'], 'reporting bot');
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.match(r.body.api_key, /^pc_live_[A-Za-z0-9_-]{43}$/);
    assert.equal(r.body.key_prefix, r.body.api_key.slice(0, 12));
    assert.deepEqual(r.body.scopes, ['read', 'balance:read']);
    assert.match(r.body.warning, /only once/);
    assert.equal(r.body.label, 'reporting bot');
    assert.equal(r.body.expires_at, null);
    assert.ok(Math.abs(r.body.created_at - nowS()) < 10);
    assert.equal(r.headers.get('cache-control'), 'no-store');

    const { rows } = await sql.query('select *, t::text as whole from api_key t where id = $1', [r.body.id]);
    assert.equal(rows.length, 1);
    const random = r.body.api_key.slice('pc_live_'.length);
    assert.equal(rows[0].key_hash, createHmac('sha256', TEST_API_KEY_SECRET).update(r.body.api_key).digest('hex'));
    assert.ok(!rows[0].whole.includes(random), 'the secret appears in no column');
    assert.ok(!rows[0].whole.includes(random.slice(4, 20)), 'nor a piece of it beyond the listed prefix');
    assert.equal(rows[0].wallet_key, alice.wallet.toLowerCase());
    // Nowhere else in the database either.
    const dump = await sql.query(`select string_agg(t::text, '|') as all from (select * from api_key) t`);
    assert.ok(!dump.rows[0].all.includes(random));
  });

  test('two keys never share a secret or a hash', async () => {
    const a = await newKey(t.baseUrl, alice, ['read']);
    const b = await newKey(t.baseUrl, alice, ['read']);
    assert.notEqual(a.key, b.key);
    const { rows } = await sql.query('select count(distinct key_hash)::int as n, count(*)::int as all from api_key');
    assert.equal(rows[0].n, rows[0].all);
  });

  test('a Solana wallet gets a key and lists its keys with it', async () => {
    const r = await issueKey(t.baseUrl, sol, ['read', 'pay'], null);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const l = await listKeys(r.body.api_key);
    assert.equal(l.status, 200);
    assert.equal(l.body.wallet, sol.wallet);
    assert.deepEqual(l.body.keys.map((k: { id: number }) => k.id), [r.body.id]);
  });

  test('a Bearer call to issuance: 403 signature_required, with or without a signed body', async () => {
    const { key } = await newKey(t.baseUrl, alice, ['read', 'endpoints:write', 'pay', 'balance:read', 'payout:request']);
    const bare = await call(t.baseUrl, 'issueApiKey', 'POST', '/v1/keys', { body: { label: null, scopes: ['read'] }, headers: bearer(key) });
    assert.equal(bare.status, 403);
    assert.equal(bare.body.error, 'signature_required');
    const signed = await issueKey(t.baseUrl, alice, ['read'], null, { headers: bearer(key) });
    assert.equal(signed.status, 403);
    assert.equal(signed.body.error, 'signature_required');
    // Even a made-up Bearer value: issuance never looks at keys.
    assert.equal((await issueKey(t.baseUrl, alice, ['read'], null, { headers: { authorization: 'Bearer nonsense' } })).body.error, 'signature_required');
  });

  test('signature refusals: another signer, tampered scopes, stale timestamp, reuse', async () => {
    const ts = nowS();
    const bySomeoneElse = await call(t.baseUrl, 'issueApiKey', 'POST', '/v1/keys', {
      body: { wallet: alice.wallet, label: null, scopes: ['read'], signature: await bob.sign('issue_api_key', JSON.stringify({ label: null, scopes: ['read'] }), ts), timestamp: ts },
    });
    assert.equal(bySomeoneElse.status, 401);
    assert.equal(bySomeoneElse.body.error, 'invalid_signature');

    // Signed for `read`, sent asking for `payout:request` as well: the payload hash differs.
    const escalated = await call(t.baseUrl, 'issueApiKey', 'POST', '/v1/keys', {
      body: { wallet: alice.wallet, label: null, scopes: ['read', 'payout:request'], signature: await alice.sign('issue_api_key', JSON.stringify({ label: null, scopes: ['read'] }), ts), timestamp: ts },
    });
    assert.equal(escalated.body.error, 'invalid_signature');

    const stale = await issueKey(t.baseUrl, alice, ['read'], null, { timestamp: nowS() - 301 });
    assert.equal(stale.status, 400);
    assert.equal(stale.body.error, 'invalid_timestamp');
    assert.equal((await issueKey(t.baseUrl, alice, ['read'], null, { timestamp: nowS() + 120 })).body.error, 'invalid_timestamp');

    const body = { wallet: alice.wallet, label: 'once', scopes: ['read'], signature: await alice.sign('issue_api_key', JSON.stringify({ label: 'once', scopes: ['read'] }), ts), timestamp: ts };
    assert.equal((await call(t.baseUrl, 'issueApiKey', 'POST', '/v1/keys', { body })).status, 201);
    const again = await call(t.baseUrl, 'issueApiKey', 'POST', '/v1/keys', { body });
    assert.equal(again.status, 409);
    assert.equal(again.body.error, 'signature_already_used');
  });

  test('invalid input: no scopes, an unknown scope, a long label, no signature, a bad wallet', async () => {
    const ts = nowS();
    const send = (body: Record<string, unknown>) => call(t.baseUrl, 'issueApiKey', 'POST', '/v1/keys', { body });
    const base = { wallet: alice.wallet, label: null, signature: '0x' + '1'.repeat(130), timestamp: ts };
    for (const body of [{ ...base, scopes: [] }, { ...base, scopes: ['admin'] }, { ...base, scopes: ['read', 'read'] }, { ...base, scopes: ['read'], label: 'x'.repeat(65) }, { wallet: alice.wallet, label: null, scopes: ['read'] }, { ...base, scopes: ['read'], expires_in: 60 }]) {
      const r = await send(body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.error, 'invalid_input', JSON.stringify(r.body));
    }
    const badWallet = await send({ ...base, wallet: '0x123', scopes: ['read'] });
    assert.equal(badWallet.body.error, 'invalid_wallet');
    const notJson = await call(t.baseUrl, 'issueApiKey', 'POST', '/v1/keys', { raw: '{"wallet":' });
    assert.equal(notJson.body.error, 'invalid_json');
  });
});

describe('listing', () => {
  test('lists every key of the wallet, revoked ones included, without secrets', async () => {
    const w = evmSigner();
    const a = await newKey(t.baseUrl, w, ['read'], 'a');
    const b = await newKey(t.baseUrl, w, ['balance:read'], 'b');
    assert.equal((await revoke(b.id, await signedRevokeHeaders(w, b.id))).status, 200);
    const r = await listKeys(a.key);
    assert.equal(r.status, 200);
    assert.equal(r.body.wallet, w.wallet);
    assert.deepEqual(r.body.keys.map((k: { id: number; label: string }) => [k.id, k.label]), [[a.id, 'a'], [b.id, 'b']]);
    assert.equal(r.body.keys[0].revoked_at, null);
    assert.equal(typeof r.body.keys[1].revoked_at, 'number');
    const text = JSON.stringify(r.body);
    assert.ok(!text.includes(a.key.slice(12)) && !text.includes(b.key.slice(12)), 'no secret in the listing');
    assert.ok(!/key_hash|api_key/.test(text));
    for (const k of r.body.keys) assert.deepEqual(Object.keys(k).sort(), ['created_at', 'expires_at', 'id', 'key_prefix', 'label', 'last_used_at', 'revoked_at', 'scopes']);
  });

  test('401 missing_api_key with neither a key nor a wallet; 401 missing_sig_or_ts with a wallet but no signature', async () => {
    const r = await listKeys();
    assert.equal(r.status, 401);
    assert.equal(r.body.error, 'missing_api_key');
    assert.equal((await listKeys(undefined, { authorization: 'Basic dXNlcjpwYXNz' })).body.error, 'missing_api_key');
    const noSig = await call(t.baseUrl, 'listApiKeys', 'GET', `/v1/keys?wallet=${alice.wallet}`);
    assert.equal(noSig.status, 401);
    assert.equal(noSig.body.error, 'missing_sig_or_ts');
  });

  test('401 invalid_api_key: malformed, unknown, empty, wrong prefix, a key with a character changed', async () => {
    const { key } = await newKey(t.baseUrl, alice, ['read']);
    const flipped = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
    for (const value of ['pc_live_short', `pc_live_${randomBytes(32).toString('base64url')}`, '', `xx_live_${key.slice(8)}`, flipped, `${key}=`, `${key}${key}`]) {
      const r = await listKeys(undefined, { authorization: `Bearer ${value}` });
      assert.equal(r.status, 401, `Bearer "${value}"`);
      assert.equal(r.body.error, 'invalid_api_key', `Bearer "${value}"`);
    }
    assert.equal((await listKeys(undefined, { authorization: 'Bearer' })).body.error, 'invalid_api_key');
    // The scheme is case-insensitive (RFC 9110); the key itself is not.
    assert.equal((await listKeys(undefined, { authorization: `bearer ${key}` })).status, 200);
    assert.equal((await listKeys(undefined, { authorization: `Bearer ${key.toUpperCase()}` })).body.error, 'invalid_api_key');
  });

  test('403 insufficient_scope: a key without read', async () => {
    const { key } = await newKey(t.baseUrl, alice, ['balance:read', 'pay', 'endpoints:write']);
    const r = await listKeys(key);
    assert.equal(r.status, 403);
    assert.equal(r.body.error, 'insufficient_scope');
  });

  test('an expired key: 401 invalid_api_key', async () => {
    const { key, id } = await newKey(t.baseUrl, alice, ['read']);
    assert.equal((await listKeys(key)).status, 200);
    await sql.query(`update api_key set expires_at = now() - interval '1 second' where id = $1`, [id]);
    const r = await listKeys(key);
    assert.equal(r.status, 401);
    assert.equal(r.body.error, 'invalid_api_key');
    await sql.query(`update api_key set expires_at = now() + interval '1 hour' where id = $1`, [id]);
    const live = await listKeys(key);
    assert.equal(live.status, 200);
    assert.equal(typeof live.body.keys.find((k: { id: number }) => k.id === id).expires_at, 'number');
  });
});

describe('revocation', () => {
  test('the owner signs: 200; the key stops working; revoking again keeps the first revoked_at', async () => {
    const { key, id } = await newKey(t.baseUrl, alice, ['read']);
    const r = await revoke(id, await signedRevokeHeaders(alice, id));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.id, id);
    assert.ok(Math.abs(r.body.revoked_at - nowS()) < 10);
    const after = await listKeys(key);
    assert.equal(after.status, 401);
    assert.equal(after.body.error, 'invalid_api_key');
    await new Promise((res) => setTimeout(res, 1100));
    const again = await revoke(id, await signedRevokeHeaders(alice, id));
    assert.equal(again.status, 200);
    assert.equal(again.body.revoked_at, r.body.revoked_at);
    // A revoked key cannot revoke itself again, nor do anything else.
    assert.equal((await revoke(id, bearer(key))).body.error, 'invalid_api_key');
  });

  test('the key revokes itself with Bearer (any scope), but never another key: 404 key_not_found', async () => {
    const victim = await newKey(t.baseUrl, alice, ['read']);
    const attacker = await newKey(t.baseUrl, alice, ['pay']);
    const other = await newKey(t.baseUrl, bob, ['read']);
    for (const id of [victim.id, other.id]) {
      const r = await revoke(id, bearer(attacker.key));
      assert.equal(r.status, 404);
      assert.equal(r.body.error, 'key_not_found');
    }
    assert.equal((await listKeys(victim.key)).status, 200, 'the other key still works');
    assert.equal((await listKeys(other.key)).status, 200);
    const self = await revoke(attacker.id, bearer(attacker.key));
    assert.equal(self.status, 200);
    assert.equal((await revoke(attacker.id, bearer(attacker.key))).body.error, 'invalid_api_key');
  });

  test('another wallet signs for my key: 401 wallet_mismatch; claiming my wallet with its signature: 401 invalid_signature', async () => {
    const { key, id } = await newKey(t.baseUrl, alice, ['read']);
    const mismatch = await revoke(id, await signedRevokeHeaders(bob, id));
    assert.equal(mismatch.status, 401);
    assert.equal(mismatch.body.error, 'wallet_mismatch');
    const forged = await revoke(id, await signedRevokeHeaders(bob, id, { wallet: alice.wallet }));
    assert.equal(forged.status, 401);
    assert.equal(forged.body.error, 'invalid_signature');
    assert.equal((await listKeys(key)).status, 200);
  });

  test('missing headers, bad id, unknown id, stale timestamp, reused signature', async () => {
    const { id } = await newKey(t.baseUrl, alice, ['read']);
    const full = await signedRevokeHeaders(alice, id);
    for (const drop of ['x-wallet', 'x-signature', 'x-timestamp']) {
      const headers = { ...full };
      delete headers[drop];
      const r = await revoke(id, headers);
      assert.equal(r.status, 401, drop);
      assert.equal(r.body.error, 'missing_signature_headers', drop);
    }
    assert.equal((await revoke(id, {})).body.error, 'missing_signature_headers');
    for (const bad of ['0', '-1', 'abc', '1.5']) {
      const r = await revoke(bad, full);
      assert.equal(r.status, 400, bad);
      assert.equal(r.body.error, 'invalid_id', bad);
    }
    const unknown = await revoke(999999, await signedRevokeHeaders(alice, 999999));
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error, 'key_not_found');
    const stale = await revoke(id, await signedRevokeHeaders(alice, id, { timestamp: nowS() - 400 }));
    assert.equal(stale.status, 400);
    assert.equal(stale.body.error, 'invalid_timestamp');
    const badWallet = await revoke(id, { ...full, 'x-wallet': '0x12' });
    assert.equal(badWallet.status, 400);
    assert.equal(badWallet.body.error, 'invalid_wallet');
    // A signature for another id does not revoke this one.
    assert.equal((await revoke(id, await signedRevokeHeaders(alice, id + 1))).body.error, 'invalid_signature');
    assert.equal((await revoke(id, full)).status, 200);
    const reused = await revoke(id, full);
    assert.equal(reused.status, 409);
    assert.equal(reused.body.error, 'signature_already_used');
  });
});

describe('keys on seller operations', () => {
  const endpoints = (wallet: string, headers: Record<string, string>) => call(t.baseUrl, 'listSellerEndpoints', 'GET', `/v1/_seller/${wallet}/endpoints`, { headers });
  const publishWithKey = (wallet: string, key: string, suffix: string) =>
    call(t.baseUrl, 'addSellerEndpoint', 'POST', `/v1/_seller/${wallet}/endpoints`, { body: endpointInput(up.url, suffix), headers: bearer(key) });

  test('endpoints:write publishes, updates and deletes without a signature; read lists, stats and errors', async () => {
    const { key: write } = await newKey(t.baseUrl, alice, ['endpoints:write']);
    const { key: read } = await newKey(t.baseUrl, alice, ['read']);
    const created = await publishWithKey(alice.wallet, write, 'by-key');
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id;
    const patched = await call(t.baseUrl, 'updateSellerEndpoint', 'PATCH', `/v1/_seller/${alice.wallet}/endpoints/${id}`, { body: { desc: 'changed by key' }, headers: bearer(write) });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.desc, 'changed by key');
    const listed = await endpoints(alice.wallet, bearer(read));
    assert.equal(listed.status, 200);
    assert.ok(listed.body.endpoints.some((e: { id: number }) => e.id === id), JSON.stringify(listed.body));
    // EVM addresses are case-insensitive: the lower-cased path is the same wallet.
    assert.equal((await endpoints(alice.wallet.toLowerCase(), bearer(read))).status, 200);
    assert.equal((await call(t.baseUrl, 'getSellerStats', 'GET', `/v1/_seller/${alice.wallet}/stats`, { headers: bearer(read) })).status, 200);
    assert.equal((await call(t.baseUrl, 'getSellerErrors', 'GET', `/v1/_seller/${alice.wallet}/errors`, { headers: bearer(read) })).status, 200);
    const deleted = await call(t.baseUrl, 'deleteSellerEndpoint', 'DELETE', `/v1/_seller/${alice.wallet}/endpoints/${id}`, { headers: bearer(write) });
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
  });

  test('a read key cannot publish, update or delete; a write key cannot list; pay and payout keys can do neither: 403', async () => {
    const { key: read } = await newKey(t.baseUrl, alice, ['read', 'balance:read']);
    const { key: write } = await newKey(t.baseUrl, alice, ['endpoints:write']);
    const { key: pay } = await newKey(t.baseUrl, alice, ['pay', 'payout:request']);
    for (const key of [read, pay]) {
      const r = await publishWithKey(alice.wallet, key, 'escalate');
      assert.equal(r.status, 403);
      assert.equal(r.body.error, 'insufficient_scope');
      assert.equal((await call(t.baseUrl, 'deleteSellerEndpoint', 'DELETE', `/v1/_seller/${alice.wallet}/endpoints/1`, { headers: bearer(key) })).body.error, 'insufficient_scope');
      assert.equal((await call(t.baseUrl, 'updateSellerEndpoint', 'PATCH', `/v1/_seller/${alice.wallet}/endpoints/1`, { body: { desc: 'x' }, headers: bearer(key) })).body.error, 'insufficient_scope');
    }
    for (const key of [write, pay]) assert.equal((await endpoints(alice.wallet, bearer(key))).body.error, 'insufficient_scope');
    const { rows } = await sql.query(`select count(*)::int as n from seller_endpoint where path_suffix = 'escalate'`);
    assert.equal(rows[0].n, 0);
  });

  test("a key on another wallet's paths: 401 wallet_mismatch, nothing changes", async () => {
    const { key } = await newKey(t.baseUrl, alice, ['read', 'endpoints:write']);
    const bobs = await call(t.baseUrl, 'addSellerEndpoint', 'POST', `/v1/_seller/${bob.wallet}/endpoints`, {
      body: { ...endpointInput(up.url, 'bob-own'), ...(await (async () => {
        const ts = nowS();
        const e = endpointInput(up.url, 'bob-own');
        const payload = JSON.stringify({ path_suffix: e.path_suffix, upstream_url: e.upstream_url, atomic_price: e.atomic_price, unit: e.unit, desc: e.desc, mode: e.mode });
        return { signature: await bob.sign('add_endpoint', payload, ts), timestamp: ts };
      })()) },
    });
    assert.equal(bobs.status, 201, JSON.stringify(bobs.body));
    const attempts = [
      await publishWithKey(bob.wallet, key, 'hijack'),
      await endpoints(bob.wallet, bearer(key)),
      await call(t.baseUrl, 'getSellerStats', 'GET', `/v1/_seller/${bob.wallet}/stats`, { headers: bearer(key) }),
      await call(t.baseUrl, 'getSellerErrors', 'GET', `/v1/_seller/${bob.wallet}/errors`, { headers: bearer(key) }),
      await call(t.baseUrl, 'updateSellerEndpoint', 'PATCH', `/v1/_seller/${bob.wallet}/endpoints/${bobs.body.id}`, { body: { desc: 'pwned' }, headers: bearer(key) }),
      await call(t.baseUrl, 'deleteSellerEndpoint', 'DELETE', `/v1/_seller/${bob.wallet}/endpoints/${bobs.body.id}`, { headers: bearer(key) }),
    ];
    for (const r of attempts) {
      assert.equal(r.status, 401, JSON.stringify(r.body));
      assert.equal(r.body.error, 'wallet_mismatch');
    }
    // Alice's own path with Bob's endpoint id: the handler's ownership check still holds.
    const viaOwnPath = await call(t.baseUrl, 'deleteSellerEndpoint', 'DELETE', `/v1/_seller/${alice.wallet}/endpoints/${bobs.body.id}`, { headers: bearer(key) });
    assert.notEqual(viaOwnPath.status, 200, JSON.stringify(viaOwnPath.body));
    const { rows } = await sql.query('select "desc", deleted_at from seller_endpoint where id = $1', [bobs.body.id]);
    assert.deepEqual([rows[0].desc, rows[0].deleted_at], [endpointInput(up.url, 'bob-own').desc, null]);
  });

  test('a revoked, expired or unknown key is refused even beside a valid signature; no key: signatures as before', async () => {
    const { key, id } = await newKey(t.baseUrl, alice, ['read']);
    assert.equal((await revoke(id, bearer(key))).status, 200);
    const query = await signedQuery(alice, 'list_endpoints');
    const r = await call(t.baseUrl, 'listSellerEndpoints', 'GET', `/v1/_seller/${alice.wallet}/endpoints?${query}`, { headers: bearer(key) });
    assert.equal(r.status, 401);
    assert.equal(r.body.error, 'invalid_api_key');
    assert.equal((await call(t.baseUrl, 'listSellerEndpoints', 'GET', `/v1/_seller/${alice.wallet}/endpoints?${query}`)).status, 200);
    // Another authorization scheme is not a key: the signature rules apply.
    const basic = await call(t.baseUrl, 'listSellerEndpoints', 'GET', `/v1/_seller/${alice.wallet}/endpoints`, { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    assert.equal(basic.status, 401);
    assert.equal(basic.body.error, 'missing_sig_or_ts');
  });
});

test('last_used_at is batched: no write per request, one write at the flush', async () => {
  // A second instance on the same database, whose flush interval never comes: only close() flushes.
  const second = await startTestApp(testConfig(env()));
  let closed = false;
  try {
    const { key, id } = await newKey(second.baseUrl, alice, ['read']);
    const before = nowS();
    for (let i = 0; i < 5; i++) assert.equal((await call(second.baseUrl, 'listApiKeys', 'GET', '/v1/keys', { headers: bearer(key) })).status, 200);
    const { rows: pending } = await sql.query('select last_used_at, xmin::text as version from api_key where id = $1', [id]);
    assert.equal(pending[0].last_used_at, null, 'not written per request');
    await second.close();
    closed = true;
    const { rows } = await sql.query('select floor(extract(epoch from last_used_at))::bigint as used, xmin::text as version from api_key where id = $1', [id]);
    assert.ok(Number(rows[0].used) >= before && Number(rows[0].used) <= nowS(), JSON.stringify(rows[0]));
    assert.notEqual(rows[0].version, pending[0].version);
    // The listing of the first instance shows it.
    const listed = await listKeys(key);
    assert.equal(listed.body.keys.find((k: { id: number }) => k.id === id).last_used_at, Number(rows[0].used));
  } finally {
    if (!closed) await second.close();
  }
});

test('last_used_at: a short flush interval writes without close, and never moves backwards', async () => {
  const third = await startTestApp(testConfig({ ...env(), API_KEY_USAGE_FLUSH_MS: '100' }));
  try {
    const { key, id } = await newKey(third.baseUrl, alice, ['read']);
    await sql.query(`update api_key set last_used_at = now() + interval '1 day' where id = $1`, [id]);
    const future = (await sql.query('select last_used_at from api_key where id = $1', [id])).rows[0].last_used_at.getTime();
    assert.equal((await call(third.baseUrl, 'listApiKeys', 'GET', '/v1/keys', { headers: bearer(key) })).status, 200);
    await new Promise((r) => setTimeout(r, 400));
    assert.equal((await sql.query('select last_used_at from api_key where id = $1', [id])).rows[0].last_used_at.getTime(), future);
    await sql.query('update api_key set last_used_at = null where id = $1', [id]);
    assert.equal((await call(third.baseUrl, 'listApiKeys', 'GET', '/v1/keys', { headers: bearer(key) })).status, 200);
    let used = null;
    for (let i = 0; i < 30 && used === null; i++) {
      await new Promise((r) => setTimeout(r, 100));
      used = (await sql.query('select last_used_at from api_key where id = $1', [id])).rows[0].last_used_at;
    }
    assert.ok(used, 'flushed by the timer');
  } finally {
    await third.close();
  }
});

describe('listing by wallet signature (list_api_keys)', () => {
  const signedList = async (signer: TestSigner, opts: { wallet?: string; action?: string; timestamp?: number; payload?: string } = {}) => {
    const wallet = opts.wallet ?? signer.wallet;
    const ts = opts.timestamp ?? nowS();
    const sig = await signer.sign(opts.action ?? 'list_api_keys', opts.payload ?? wallet, ts);
    return call(t.baseUrl, 'listApiKeys', 'GET', `/v1/keys?wallet=${encodeURIComponent(wallet)}&sig=${encodeURIComponent(sig)}&ts=${ts}`);
  };

  test('a wallet whose every key is revoked still lists them with its signature (EVM and Solana)', async () => {
    for (const w of [evmSigner(), solanaSigner()]) {
      const a = await newKey(t.baseUrl, w, ['read'], 'only');
      assert.equal((await revoke(a.id, await signedRevokeHeaders(w, a.id))).status, 200);
      assert.equal((await listKeys(a.key)).body.error, 'invalid_api_key', 'the revoked key lists nothing');
      const r = await signedList(w);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.wallet, w.wallet);
      assert.deepEqual(r.body.keys.map((k: { id: number; label: string }) => [k.id, k.label]), [[a.id, 'only']]);
      assert.equal(typeof r.body.keys[0].revoked_at, 'number');
    }
  });

  test('a wallet with no key lists none', async () => {
    const r = await signedList(evmSigner());
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.keys, []);
  });

  test('attacks: another action, another wallet, another payload, a stale or future timestamp, a malformed wallet', async () => {
    const victim = evmSigner();
    await newKey(t.baseUrl, victim, ['read'], 'victim');
    // A signature of another read action (read_account signs the same payload, the wallet).
    for (const action of ['read_account', 'list_endpoints', 'stats', 'revoke_api_key']) {
      const r = await signedList(victim, { action });
      assert.equal(r.status, 401, action);
      assert.equal(r.body.error, 'invalid_signature', action);
    }
    // The attacker signs for the victim's wallet with its own key.
    const thief = evmSigner();
    const stolen = await signedList(thief, { wallet: victim.wallet });
    assert.equal(stolen.status, 401);
    assert.equal(stolen.body.error, 'invalid_signature');
    // The victim's own signature over another wallet's text does not list the victim's keys.
    const wrongPayload = await signedList(victim, { payload: thief.wallet });
    assert.equal(wrongPayload.body.error, 'invalid_signature');
    // Expired (older than 300 s) and too far ahead (more than 60 s): replaying an old listing URL fails.
    for (const timestamp of [nowS() - 301, nowS() + 120]) {
      const r = await signedList(victim, { timestamp });
      assert.equal(r.status, 400, String(timestamp));
      assert.equal(r.body.error, 'invalid_timestamp');
    }
    const bad = await call(t.baseUrl, 'listApiKeys', 'GET', `/v1/keys?wallet=0x123&sig=0x00&ts=${nowS()}`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'invalid_wallet');
  });

  test('a read signature may be reused within its window (as every read), and a Bearer key of another wallet with ?wallet= is refused', async () => {
    const w = evmSigner();
    await newKey(t.baseUrl, w, ['read'], 'mine');
    const ts = nowS();
    const sig = await w.sign('list_api_keys', w.wallet, ts);
    const url = `/v1/keys?wallet=${w.wallet}&sig=${encodeURIComponent(sig)}&ts=${ts}`;
    assert.equal((await call(t.baseUrl, 'listApiKeys', 'GET', url)).status, 200);
    assert.equal((await call(t.baseUrl, 'listApiKeys', 'GET', url)).status, 200, 'reads reuse a signature (DESIGN.md, Signatures)');
    const other = await newKey(t.baseUrl, evmSigner(), ['read']);
    const mismatch = await call(t.baseUrl, 'listApiKeys', 'GET', `/v1/keys?wallet=${w.wallet}`, { headers: bearer(other.key) });
    assert.equal(mismatch.status, 401);
    assert.equal(mismatch.body.error, 'wallet_mismatch');
  });
});
