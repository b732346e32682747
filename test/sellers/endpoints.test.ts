/**
 * Publishing, listing, updating, deleting seller endpoints; stats and errors; every seller-side
 * error code; the upstream probe against real local HTTP(S) servers; SSRF refusals.
 * The scheduler is off here (SCHEDULER_TICK_MS=0): lifecycle is sellers-lifecycle.test.ts.
 */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import type { LookupFunction } from 'node:net';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import {
  call,
  deleteEndpoint,
  endpointInput,
  evmSigner,
  listEndpoints,
  nowS,
  publish,
  register,
  signedQuery,
  solanaSigner,
  startHttpsUpstream,
  startUpstream,
  type TestSigner,
  type TestUpstream,
} from '../helpers/sellers.ts';

let db: TestDatabase;
let t: TestApp;
let up: TestUpstream;
let sql: pg.Client;
const evm = evmSigner();
const sol = solanaSigner();

before(async () => {
  db = await createTestDatabase('sellers_endpoints');
  up = await startUpstream();
  t = await startTestApp(testConfig({ DATABASE_URL: db.url, SCHEDULER_TICK_MS: '0', ALLOW_LOCAL_UPSTREAMS: '1', PROBE_TIMEOUT_MS: '5000' }));
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  assert.equal((await register(t.baseUrl, evm, 'evm-shop')).status, 201);
  assert.equal((await register(t.baseUrl, sol, 'sol-shop')).status, 201);
});
after(async () => {
  await sql?.end();
  await t?.close();
  await up?.close();
  await db?.drop();
});

const patch = async (signer: TestSigner, id: number, changes: Record<string, unknown>, merged: Record<string, unknown>, timestamp = nowS()) => {
  const payload = JSON.stringify({ id, upstream_url: merged.upstream_url, atomic_price: merged.atomic_price, unit: merged.unit, desc: merged.desc, mode: merged.mode });
  return call(t.baseUrl, 'updateSellerEndpoint', 'PATCH', `/v1/_seller/${signer.wallet}/endpoints/${id}`, {
    body: { ...changes, signature: await signer.sign('update_endpoint', payload, timestamp), timestamp },
  });
};

describe('publish', () => {
  test('an EVM seller publishes: one synchronous probe with sample_body, 201 pending', async () => {
    const input = endpointInput(up.url, 'weather', { sample_body: { city: 'Lyon' } });
    const before = up.hits.get('/weather') ?? 0;
    const a = await publish(t.baseUrl, evm, input);
    assert.equal(a.status, 201, JSON.stringify(a.body));
    assert.equal(a.body.status, 'pending');
    assert.equal(a.body.path, '/v1/evm-shop/weather');
    assert.equal(a.body.atomic_price, '20000');
    assert.equal(a.body.last_probe.region, 'publish');
    assert.equal(a.body.last_probe.ok, true);
    assert.equal(a.body.last_probe.status_code, 200);
    assert.ok(Number.isInteger(a.body.id) && a.body.id > 0);
    assert.equal(up.hits.get('/weather'), before + 1);
    assert.deepEqual(JSON.parse(up.bodies.at(-1)!), { city: 'Lyon' });
  });

  test('a Solana seller publishes; the probe posts {} without sample_body', async () => {
    const a = await publish(t.baseUrl, sol, endpointInput(up.url, 'sol-echo', { mode: 'paywall' }));
    assert.equal(a.status, 201, JSON.stringify(a.body));
    assert.equal(a.body.mode, 'paywall');
    assert.equal(up.bodies.at(-1), '{}');
  });

  test('409 path_taken; the same suffix under another slug is fine', async () => {
    // Another timestamp (well apart from the first publish's): the same message twice is a replay.
    const again = await publish(t.baseUrl, evm, endpointInput(up.url, 'weather'), nowS() - 150);
    assert.equal(again.status, 409);
    assert.equal(again.body.error, 'path_taken');
    assert.equal((await publish(t.baseUrl, sol, endpointInput(up.url, 'weather'))).status, 201);
  });

  test('400 upstream_unreachable says what came back: a status, a non-JSON body, a refused connection, a redirect', async () => {
    const cases: [TestUpstream['behaviour'] | 'closed', RegExp][] = [
      ['not-found', /answered 404/],
      ['fail', /answered 503/],
      ['not-json', /body is not JSON/],
      ['redirect', /answered 302 \(redirects are not followed\)/],
    ];
    for (const [behaviour, message] of cases) {
      up.behaviour = behaviour as TestUpstream['behaviour'];
      const a = await publish(t.baseUrl, evm, endpointInput(up.url, `broken-${behaviour}`));
      assert.equal(a.status, 400, behaviour);
      assert.equal(a.body.error, 'upstream_unreachable');
      assert.match(a.body.message, message);
    }
    up.behaviour = 'ok';
    const closed = await startUpstream();
    const url = closed.url;
    await closed.close();
    const refused = await publish(t.baseUrl, evm, endpointInput(url, 'refused'));
    assert.equal(refused.body.error, 'upstream_unreachable');
    assert.match(refused.body.message, /connection refused/);
  });

  test('400 invalid_input: atomic_price as a string, zero, missing fields, a bad suffix, an http URL elsewhere than localhost', async () => {
    const ts = nowS();
    const sig = await evm.sign('add_endpoint', 'x', ts);
    const post = (body: unknown) => call(t.baseUrl, 'addSellerEndpoint', 'POST', `/v1/_seller/${evm.wallet}/endpoints`, { body });
    const good = { ...endpointInput(up.url, 'typed'), signature: sig, timestamp: ts };
    const str = await post({ ...good, atomic_price: '20000' });
    assert.equal(str.status, 400);
    assert.equal(str.body.error, 'invalid_input');
    assert.equal(str.body.issues[0].path, 'body.atomic_price');
    assert.equal((await post({ ...good, atomic_price: 0 })).body.error, 'invalid_input');
    assert.equal((await post({ ...good, atomic_price: 1.5 })).body.error, 'invalid_input');
    assert.equal((await post({ ...good, path_suffix: 'No_Caps' })).body.error, 'invalid_input');
    assert.equal((await post({ ...good, desc: 'd'.repeat(201) })).body.error, 'invalid_input');
    assert.equal((await post({ ...good, unit: 'u'.repeat(33) })).body.error, 'invalid_input');
    assert.equal((await post({ ...good, mode: 'free' })).body.error, 'invalid_input');
    const { unit: _u, ...noUnit } = good;
    assert.equal((await post(noUnit)).body.error, 'invalid_input');
    const { signature: _s, ...unsigned } = good;
    assert.equal((await post(unsigned)).body.error, 'invalid_input');
    const http = await publish(t.baseUrl, evm, endpointInput('http://example.com', 'plain-http'));
    assert.equal(http.body.error, 'invalid_input');
    assert.match(http.body.message, /must use https/);
  });

  test('400 invalid_json, invalid_wallet, invalid_timestamp, seller_not_found; 401 invalid_signature; 409 signature_already_used; 413', async () => {
    const json = await call(t.baseUrl, 'addSellerEndpoint', 'POST', `/v1/_seller/${evm.wallet}/endpoints`, { raw: '{"path_suffix":' });
    assert.equal(json.body.error, 'invalid_json');
    const badWallet = await call(t.baseUrl, 'addSellerEndpoint', 'POST', '/v1/_seller/not-a-wallet/endpoints', { body: {} });
    assert.equal(badWallet.body.error, 'invalid_wallet');
    const stale = await publish(t.baseUrl, evm, endpointInput(up.url, 'stale'), nowS() - 400);
    assert.equal(stale.body.error, 'invalid_timestamp');
    const stranger = evmSigner();
    const notFound = await publish(t.baseUrl, stranger, endpointInput(up.url, 'nobody'));
    assert.equal(notFound.status, 400);
    assert.equal(notFound.body.error, 'seller_not_found');
    // Signed by another wallet than the path's.
    const input = endpointInput(up.url, 'forged');
    const ts = nowS();
    const payload = JSON.stringify({ path_suffix: input.path_suffix, upstream_url: input.upstream_url, atomic_price: input.atomic_price, unit: input.unit, desc: input.desc, mode: input.mode });
    const forged = await call(t.baseUrl, 'addSellerEndpoint', 'POST', `/v1/_seller/${evm.wallet}/endpoints`, { body: { ...input, signature: await stranger.sign('add_endpoint', payload, ts), timestamp: ts } });
    assert.equal(forged.status, 401);
    assert.equal(forged.body.error, 'invalid_signature');
    // Changing a signed field breaks the signature.
    const tampered = await call(t.baseUrl, 'addSellerEndpoint', 'POST', `/v1/_seller/${evm.wallet}/endpoints`, {
      body: { ...input, atomic_price: 1, signature: await evm.sign('add_endpoint', payload, ts), timestamp: ts },
    });
    assert.equal(tampered.body.error, 'invalid_signature');
    // Replay of an accepted publish.
    const body = { ...input, signature: await evm.sign('add_endpoint', payload, ts), timestamp: ts };
    assert.equal((await call(t.baseUrl, 'addSellerEndpoint', 'POST', `/v1/_seller/${evm.wallet}/endpoints`, { body })).status, 201);
    const replay = await call(t.baseUrl, 'addSellerEndpoint', 'POST', `/v1/_seller/${evm.wallet}/endpoints`, { body });
    assert.equal(replay.status, 409);
    assert.equal(replay.body.error, 'signature_already_used');
    const big = await call(t.baseUrl, 'addSellerEndpoint', 'POST', `/v1/_seller/${evm.wallet}/endpoints`, { body: { ...body, desc: 'x'.repeat(5000) } });
    assert.equal(big.status, 413);
    assert.equal(big.body.error, 'body_too_large');
  });
});

describe('list, update, delete', () => {
  test('GET endpoints lists with status and last probe; 401 missing_sig_or_ts, invalid_signature; 404 seller_not_found', async () => {
    const list = await listEndpoints(t.baseUrl, evm);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.equal(list.body.wallet, evm.wallet);
    const weather = list.body.endpoints.find((e: any) => e.path_suffix === 'weather');
    assert.equal(weather.status, 'pending');
    assert.equal(weather.last_probe.ok, true);
    assert.ok(list.body.endpoints.every((e: any) => e.slug === 'evm-shop'));
    const missing = await call(t.baseUrl, 'listSellerEndpoints', 'GET', `/v1/_seller/${evm.wallet}/endpoints?ts=${nowS()}`);
    assert.equal(missing.status, 401);
    assert.equal(missing.body.error, 'missing_sig_or_ts');
    const wrong = await call(t.baseUrl, 'listSellerEndpoints', 'GET', `/v1/_seller/${evm.wallet}/endpoints?${await signedQuery(evmSigner(), 'list_endpoints')}`);
    assert.equal(wrong.body.error, 'invalid_signature');
    const stranger = evmSigner();
    const unknown = await call(t.baseUrl, 'listSellerEndpoints', 'GET', `/v1/_seller/${stranger.wallet}/endpoints?${await signedQuery(stranger, 'list_endpoints')}`);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error, 'seller_not_found');
    // A read signature may be reused within its window.
    const q = await signedQuery(evm, 'list_endpoints');
    for (let i = 0; i < 2; i++) assert.equal((await call(t.baseUrl, 'listSellerEndpoints', 'GET', `/v1/_seller/${evm.wallet}/endpoints?${q}`)).status, 200);
  });

  test('PATCH: a price change keeps the status; a new upstream is probed and goes back to pending', async () => {
    const created = await publish(t.baseUrl, evm, endpointInput(up.url, 'patched'));
    const e = created.body;
    await sql.query(`update seller_endpoint set status = 'active' where id = $1`, [e.id]);
    const merged = { upstream_url: e.upstream_url, atomic_price: 30000, unit: e.unit, desc: e.desc, mode: e.mode };
    const price = await patch(evm, e.id, { atomic_price: 30000 }, merged);
    assert.equal(price.status, 200, JSON.stringify(price.body));
    assert.equal(price.body.atomic_price, '30000');
    assert.equal(price.body.status, 'active');
    const hits = up.hits.get('/patched-v2') ?? 0;
    const moved = await patch(evm, e.id, { upstream_url: `${up.url}/patched-v2` }, { ...merged, upstream_url: `${up.url}/patched-v2` });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.status, 'pending');
    assert.equal(moved.body.upstream_url, `${up.url}/patched-v2`);
    assert.equal(up.hits.get('/patched-v2'), hits + 1);
    up.behaviour = 'fail';
    const broken = await patch(evm, e.id, { upstream_url: `${up.url}/patched-v3` }, { ...merged, upstream_url: `${up.url}/patched-v3` });
    up.behaviour = 'ok';
    assert.equal(broken.body.error, 'upstream_unreachable');
  });

  test('PATCH errors: invalid_id, endpoint_not_found, wallet_mismatch, seller_not_found, nothing to change, signature replay', async () => {
    const mine = (await publish(t.baseUrl, evm, endpointInput(up.url, 'patch-errors'))).body;
    const merged = { upstream_url: mine.upstream_url, atomic_price: 5, unit: mine.unit, desc: mine.desc, mode: mine.mode };
    const badId = await call(t.baseUrl, 'updateSellerEndpoint', 'PATCH', `/v1/_seller/${evm.wallet}/endpoints/0`, { body: { atomic_price: 5 } });
    assert.equal(badId.body.error, 'invalid_id');
    const absent = await patch(evm, 999_999, { atomic_price: 5 }, merged);
    assert.equal(absent.status, 404);
    assert.equal(absent.body.error, 'endpoint_not_found');
    const theirs = await patch(sol, mine.id, { atomic_price: 5 }, { ...merged, id: mine.id });
    assert.equal(theirs.status, 401);
    assert.equal(theirs.body.error, 'wallet_mismatch');
    const stranger = evmSigner();
    const unregistered = await patch(stranger, mine.id, { atomic_price: 5 }, merged);
    assert.equal(unregistered.status, 400);
    assert.equal(unregistered.body.error, 'seller_not_found');
    const empty = await patch(evm, mine.id, {}, { ...merged, atomic_price: Number(mine.atomic_price) });
    assert.equal(empty.body.error, 'invalid_input');
    const ts = nowS();
    const first = await patch(evm, mine.id, { atomic_price: 5 }, merged, ts);
    assert.equal(first.status, 200);
    const replay = await patch(evm, mine.id, { atomic_price: 5 }, merged, ts);
    assert.equal(replay.status, 409);
    assert.equal(replay.body.error, 'signature_already_used');
  });

  test('DELETE: headers required, wallet_mismatch, soft delete frees the path, then 404', async () => {
    const e = (await publish(t.baseUrl, evm, endpointInput(up.url, 'to-delete'))).body;
    const noHeaders = await call(t.baseUrl, 'deleteSellerEndpoint', 'DELETE', `/v1/_seller/${evm.wallet}/endpoints/${e.id}`, { headers: { 'x-timestamp': String(nowS()) } });
    assert.equal(noHeaders.status, 401);
    assert.equal(noHeaders.body.error, 'missing_signature_headers');
    const theirs = await deleteEndpoint(t.baseUrl, sol, e.id);
    assert.equal(theirs.status, 401);
    assert.equal(theirs.body.error, 'wallet_mismatch');
    const stale = await deleteEndpoint(t.baseUrl, evm, e.id, nowS() - 1000);
    assert.equal(stale.body.error, 'invalid_timestamp');
    const badId = await call(t.baseUrl, 'deleteSellerEndpoint', 'DELETE', `/v1/_seller/${evm.wallet}/endpoints/abc`, { headers: { 'x-signature': '0x00', 'x-timestamp': String(nowS()) } });
    assert.equal(badId.body.error, 'invalid_id');
    const ok = await deleteEndpoint(t.baseUrl, evm, e.id);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.id, e.id);
    assert.ok(ok.body.deleted_at > 0);
    const again = await deleteEndpoint(t.baseUrl, evm, e.id, nowS() - 150);
    assert.equal(again.status, 404);
    assert.equal(again.body.error, 'endpoint_not_found');
    const buyer = await fetch(`${t.baseUrl}/v1/evm-shop/to-delete`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    assert.equal(buyer.status, 404);
    const list = await listEndpoints(t.baseUrl, evm);
    assert.ok(!list.body.endpoints.some((x: any) => x.id === e.id));
    const republished = await publish(t.baseUrl, evm, endpointInput(up.url, 'to-delete'), nowS() - 160);
    assert.equal(republished.status, 201, 'the path is free again');
    assert.notEqual(republished.body.id, e.id);
  });

  test('DELETE replayed headers: 409 signature_already_used', async () => {
    const e = (await publish(t.baseUrl, evm, endpointInput(up.url, 'delete-replay'))).body;
    const ts = nowS();
    const headers = { 'x-signature': await evm.sign('delete_endpoint', String(e.id), ts), 'x-timestamp': String(ts) };
    assert.equal((await call(t.baseUrl, 'deleteSellerEndpoint', 'DELETE', `/v1/_seller/${evm.wallet}/endpoints/${e.id}`, { headers })).status, 200);
    const replay = await call(t.baseUrl, 'deleteSellerEndpoint', 'DELETE', `/v1/_seller/${evm.wallet}/endpoints/${e.id}`, { headers });
    assert.equal(replay.status, 409);
    assert.equal(replay.body.error, 'signature_already_used');
  });
});

describe('stats and errors', () => {
  test('stats per endpoint over 24 h and 30 days; errors per hour; 401 missing_sig_or_ts; 404 seller_not_found', async () => {
    const [{ id, seller_id }] = (await sql.query(`select id, seller_id from seller_endpoint where slug = 'sol-shop' and path_suffix = 'sol-echo'`)).rows;
    for (const [amount, days] of [[100000, 0], [200000, 10], [400000, 40]] as const) {
      await sql.query(
        `insert into payment (network, tx, payer, amount, quoted_amount, endpoint_path, seller_id, endpoint_id, take_bps, fee, net, created_at, delivery)
         values ('solana', $1, 'payer', $2, $2, '/v1/sol-shop/sol-echo', $3, $4, 300, $5, $6, now() - ($7 * interval '1 day'), 'delivered')`,
        [`tx-${days}`, amount, seller_id, id, amount * 0.03, amount * 0.97, days],
      );
    }
    await sql.query(`insert into endpoint_error_count (endpoint_id, seller_id, hour, code, count) values ($1, $2, date_trunc('hour', now()), 'upstream_5xx', 2)`, [id, seller_id]);
    await sql.query(`insert into endpoint_observation (endpoint_id, source, region, ok, status_code, latency_ms) values ($1, 'call', 'x', true, 200, 100), ($1, 'call', 'x', true, 200, 300)`, [id]);
    const stats = await call(t.baseUrl, 'getSellerStats', 'GET', `/v1/_seller/${sol.wallet}/stats?${await signedQuery(sol, 'stats')}&since=0`);
    assert.equal(stats.status, 200, JSON.stringify(stats.body));
    assert.equal(stats.body.calls, 3);
    assert.equal(stats.body.paid_atomic, '700000');
    assert.equal(stats.body.earned_atomic, '679000');
    assert.equal(stats.body.withdrawable_atomic, '679000');
    const e = stats.body.by_endpoint.find((x: any) => x.id === id);
    assert.equal(e.status, 'pending');
    assert.deepEqual([e.last_24h.calls, e.last_24h.paid_atomic, e.last_24h.earned_atomic, e.last_24h.errors], [1, '100000', '97000', 2]);
    assert.deepEqual([e.last_30d.calls, e.last_30d.paid_atomic], [2, '300000']);
    assert.equal(e.last_24h.p50_latency_ms !== null, true);
    const errors = await call(t.baseUrl, 'getSellerErrors', 'GET', `/v1/_seller/${sol.wallet}/errors?${await signedQuery(sol, 'errors')}`);
    assert.equal(errors.status, 200);
    assert.deepEqual(errors.body.map((r: any) => [r.code, r.count]), [['upstream_5xx', 2]]);
    assert.equal(errors.body[0].ts % 3600, 0);
    const missing = await call(t.baseUrl, 'getSellerStats', 'GET', `/v1/_seller/${sol.wallet}/stats?sig=abc`);
    assert.equal(missing.body.error, 'missing_sig_or_ts');
    const missingErrors = await call(t.baseUrl, 'getSellerErrors', 'GET', `/v1/_seller/${sol.wallet}/errors`);
    assert.equal(missingErrors.body.error, 'missing_sig_or_ts');
    const wrongAction = await call(t.baseUrl, 'getSellerStats', 'GET', `/v1/_seller/${sol.wallet}/stats?${await signedQuery(sol, 'errors')}`);
    assert.equal(wrongAction.body.error, 'invalid_signature');
    const stranger = solanaSigner();
    for (const [op, path, action] of [['getSellerStats', 'stats', 'stats'], ['getSellerErrors', 'errors', 'errors']]) {
      const a = await call(t.baseUrl, op, 'GET', `/v1/_seller/${stranger.wallet}/${path}?${await signedQuery(stranger, action)}`);
      assert.equal(a.status, 404);
      assert.equal(a.body.error, 'seller_not_found');
    }
  });
});

describe('a suspended seller', () => {
  test('gets 400 seller_suspended on every seller call except resume; resume lifts it', async () => {
    const s = evmSigner();
    await register(t.baseUrl, s, 'suspended-shop');
    const e = (await publish(t.baseUrl, s, endpointInput(up.url, 'will-suspend'))).body;
    await sql.query(`update seller set status = 'suspended' where slug = 'suspended-shop'`);
    await sql.query(`update seller_endpoint set status = 'suspended', last_probe = '{"at":1,"region":"x","ok":false,"status_code":503,"latency_ms":3,"error":"answered 503"}' where id = $1`, [e.id]);
    const add = await publish(t.baseUrl, s, endpointInput(up.url, 'another'));
    assert.equal(add.status, 400);
    assert.equal(add.body.error, 'seller_suspended');
    assert.match(add.body.message, /will-suspend \(last probe: answered 503\)/);
    const merged = { upstream_url: e.upstream_url, atomic_price: 7, unit: e.unit, desc: e.desc, mode: e.mode };
    assert.equal((await patch(s, e.id, { atomic_price: 7 }, merged)).body.error, 'seller_suspended');
    assert.equal((await deleteEndpoint(t.baseUrl, s, e.id)).body.error, 'seller_suspended');
    assert.equal((await listEndpoints(t.baseUrl, s)).body.error, 'seller_suspended');
    assert.equal((await call(t.baseUrl, 'getSellerStats', 'GET', `/v1/_seller/${s.wallet}/stats?${await signedQuery(s, 'stats')}`)).body.error, 'seller_suspended');
    assert.equal((await call(t.baseUrl, 'getSellerErrors', 'GET', `/v1/_seller/${s.wallet}/errors?${await signedQuery(s, 'errors')}`)).body.error, 'seller_suspended');
    const buyer = await fetch(`${t.baseUrl}/v1/suspended-shop/will-suspend`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    assert.equal(buyer.status, 410);
    assert.equal(((await buyer.json()) as any).error, 'endpoint_suspended');
    const ts = nowS();
    const resumed = await call(t.baseUrl, 'resumeSeller', 'POST', `/v1/_seller/${s.wallet}/resume`, { body: { signature: await s.sign('resume', s.wallet, ts), timestamp: ts } });
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    assert.equal(resumed.body.status, 'active');
    assert.deepEqual(resumed.body.resumed_endpoint_ids, [e.id]);
    const list = await listEndpoints(t.baseUrl, s);
    assert.equal(list.body.endpoints[0].status, 'pending');
    const replay = await call(t.baseUrl, 'resumeSeller', 'POST', `/v1/_seller/${s.wallet}/resume`, { body: { signature: await s.sign('resume', s.wallet, ts), timestamp: ts } });
    assert.equal(replay.body.error, 'signature_already_used');
    const stranger = evmSigner();
    const unknown = await call(t.baseUrl, 'resumeSeller', 'POST', `/v1/_seller/${stranger.wallet}/resume`, { body: { signature: await stranger.sign('resume', stranger.wallet, ts), timestamp: ts } });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error, 'seller_not_found');
  });
});

describe('upstream safety (SSRF), local upstreams off', () => {
  let strict: TestApp;
  let seller: TestSigner;
  let lookups = 0;
  // internal.example resolves to a private address; rebind.example to a public one first, then loopback.
  const lookup: LookupFunction = (hostname, options, cb) => {
    const answer = (address: string) => ((options as { all?: boolean }).all ? (cb as any)(null, [{ address, family: address.includes(':') ? 6 : 4 }]) : cb(null, address, address.includes(':') ? 6 : 4));
    if (hostname === 'internal.example') return answer('10.20.30.40');
    if (hostname === 'rebind.example') return answer(lookups++ === 0 ? '93.184.216.34' : '127.0.0.1');
    if (hostname === 'localhost') return answer('127.0.0.1');
    return cb(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), '', 0);
  };
  before(async () => {
    const config = testConfig({ DATABASE_URL: db.url, SCHEDULER_TICK_MS: '0', ALLOW_LOCAL_UPSTREAMS: '0', PROBE_TIMEOUT_MS: '3000' });
    config.sellers.lookup = lookup;
    strict = await startTestApp(config);
    seller = evmSigner();
    await register(strict.baseUrl, seller, 'strict-shop');
  });
  after(async () => {
    await strict?.close();
  });

  test('loopback, 10/8, 169.254.169.254, ::1, a name resolving to a private address, a rebinding name: refused', async () => {
    const port = new URL(up.url).port;
    const cases: [string, RegExp][] = [
      [`https://127.0.0.1:${port}/x`, /127\.0\.0\.1 \(loopback\)/],
      ['https://10.1.2.3/x', /10\.1\.2\.3 \(private\)/],
      ['https://169.254.169.254/latest/meta-data', /169\.254\.169\.254 \(linkLocal\)/],
      [`https://[::1]:${port}/x`, /::1 \(loopback\)/],
      ['https://[::ffff:10.0.0.1]/x', /private/],
      ['https://100.100.100.200/x', /carrierGradeNat/],
      ['https://internal.example/x', /internal\.example resolves to 10\.20\.30\.40 \(private\)/],
      [`https://localhost:${port}/x`, /localhost resolves to 127\.0\.0\.1 \(loopback\)/],
      ['https://rebind.example/x', /rebind\.example resolves to 127\.0\.0\.1 \(loopback\)/],
    ];
    let n = 0;
    for (const [url, message] of cases) {
      const a = await publish(strict.baseUrl, seller, { ...endpointInput(url, `ssrf-${n++}`), upstream_url: url });
      assert.equal(a.status, 400, url);
      assert.equal(a.body.error, 'upstream_unreachable', url);
      assert.match(a.body.message, message, `${url}: ${a.body.message}`);
    }
    assert.ok(lookups >= 2, 'the rebinding name was checked again when connecting');
  });

  test('http is refused outright without ALLOW_LOCAL_UPSTREAMS, even for 127.0.0.1', async () => {
    const a = await publish(strict.baseUrl, seller, endpointInput(up.url, 'local-http'));
    assert.equal(a.body.error, 'invalid_input');
    assert.match(a.body.message, /must use https/);
  });
});

describe('HTTPS upstream with a self-signed certificate', () => {
  test('trusted through UPSTREAM_CA_FILE it publishes; without it the probe names the TLS failure', async () => {
    const tls = await startHttpsUpstream();
    const trusting = await startTestApp(testConfig({ DATABASE_URL: db.url, SCHEDULER_TICK_MS: '0', UPSTREAM_CA_FILE: tls.caFile }));
    try {
      const s = solanaSigner();
      await register(trusting.baseUrl, s, 'tls-shop');
      const ok = await publish(trusting.baseUrl, s, endpointInput(tls.url, 'secure'));
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      assert.equal(tls.hits.get('/secure'), 1);
      const refused = await publish(t.baseUrl, evm, endpointInput(tls.url, 'untrusted'));
      assert.equal(refused.body.error, 'upstream_unreachable');
      assert.match(refused.body.message, /TLS failed|certificate/i);
    } finally {
      await trusting.close();
      await tls.close();
    }
  });
});
