/**
 * Leases that end when their holder dies, with real processes: service instances spawned on
 * one PostgreSQL database and one devnet, a real local upstream, `kill -9` of the process that
 * holds the port.
 *  - killed mid-run of a long paid tool run (a 400-page PDF): another instance answers the
 *    buyer's retry once the dead run's short lease (RUN_LEASE_SECONDS, default 5 s) ran out;
 *  - killed mid-forward (the upstream holds the first request open): the upstream receives the
 *    same paid call twice, with the same signed X-Paycall-Tx and Idempotency-Key, and the buyer
 *    gets one answer, the one every replay gives;
 *  - a live forward held for six lease periods is not taken over by a retry on another instance.
 * Measured times are printed; nothing is asserted on them beyond the tests' generous timeouts.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { httpbis, createVerifier } from 'http-message-signatures';
import { spawnService } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.ts';
import { makePdf, xPayment } from '../helpers/paid.ts';
import { endpointInput, eventually, evmSigner, publish, register } from '../helpers/sellers.ts';
import { evmTransferUsdc } from '../../devnet/buyer.ts';
import { openDatabase } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/log.ts';

let devnet: TestDevnet;
let db: TestDatabase;
let sql: pg.Client;
let upstream: Server;
let upstreamUrl: string;
const services: Service[] = [];

/** Paid requests the upstream received (probes, without X-Paycall-Tx, are answered and not kept). */
const received: { path: string; headers: IncomingMessage['headers']; method: string; url: string }[] = [];
/** Per path: what the upstream does with the n-th paid request (1-based). */
const plans = new Map<string, (n: number, res: ServerResponse) => void>();
const paidHits = (path: string) => received.filter((r) => r.path === path).length;
let onPaid: ((path: string) => void) | null = null;

function upstreamHandler(req: IncomingMessage, res: ServerResponse) {
  req.resume();
  req.on('end', () => {
    const path = req.url!.replace(/^\//, '').split('?')[0];
    if (req.headers['x-paycall-tx'] === undefined) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"probe":true}');
    received.push({ path, headers: req.headers, method: req.method!, url: req.url! });
    const n = paidHits(path);
    onPaid?.(path);
    const plan = plans.get(path);
    if (plan) plan(n, res);
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path, n }));
  });
}

interface Service {
  name: string;
  url: string;
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
  /** Resolves once the service logged a line matching `re` (after the call). */
  logged(re: RegExp): Promise<void>;
}

async function startService(name: string, env: Record<string, string> = {}): Promise<Service> {
  const svc = spawnService({
    DATABASE_URL: db.url,
    PAYCALL_PROFILE: 'devnet',
    PAYCALL_START_DEVNET: '0',
    PAYCALL_DATA_DIR: devnet.dataDir,
    TOOL_WORKERS: '1',
    LOG_LEVEL: 'info',
    SCHEDULER_TICK_MS: '200',
    ...env,
  });
  const url = await svc.listening;
  if (url === null) throw new Error(`${name} exited (${await svc.exited}) before listening:\n${svc.output().slice(-3000)}`);
  const service: Service = { name, url, child: svc.child, out: svc.output, exited: svc.exited, logged: svc.logged };
  services.push(service);
  return service;
}

/** kill -9 of the process holding the port; resolves once it is gone. */
async function kill9(s: Service): Promise<number> {
  s.child.kill('SIGKILL');
  await s.exited;
  return performance.now();
}

before(async () => {
  devnet = await startTestDevnet();
  db = await createTestDatabase('lease_crash');
  // Migrations once, before the instances start side by side.
  await (await openDatabase({ databaseUrl: db.url, pgliteDir: '', log: silentLogger })).close(true);
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  upstream = createServer(upstreamHandler);
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
after(async () => {
  for (const s of services) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  await Promise.all(services.map((s) => s.exited));
  upstream?.closeAllConnections();
  await new Promise((r) => upstream?.close(r));
  await sql?.end();
  await db?.drop();
  await devnet?.stop();
});

const base = () => devnet.info.chains.base;
const pay = (amount: bigint) =>
  evmTransferUsdc({ rpcUrl: base().rpcUrl, chainId: base().chainId, usdc: base().usdc, privateKey: devnet.info.accounts[0].evmPrivateKey, to: base().payTo, amount });
const receiptRow = async (tx: string) => (await sql.query(`select state, attempts from consumed_receipt where receipt_key = $1`, [`base:tx:${tx.toLowerCase()}`])).rows[0];
/**
 * The generous bound on a retry's wait after a kill: twelve default leases. The old lease
 * (TOOL_JOB_TIMEOUT_MS + 30 s = 150 s) held the buyer past it.
 */
const RETRY_TIMEOUT_MS = 60_000;
const ledgerRows = async (tx: string) => (await sql.query('select id from payment where lower(tx) = lower($1)', [tx])).rows.length;

/** The instance that survives the first test and takes over in the second too. */
let b: Service;

test('an instance killed mid-run of a long paid tool run: another instance answers the retry once the short lease ran out', { timeout: 300_000 }, async (t) => {
  let a: Service;
  [a, b] = await Promise.all([startService('a'), startService('b')]);
  const pdf = await makePdf(400, 'lease takeover');
  const post = (s: Service, headers: Record<string, string> = {}) =>
    fetch(`${s.url}/v1/pdf-text`, { method: 'POST', headers: { 'content-type': 'application/pdf', ...headers }, body: new Uint8Array(pdf), signal: AbortSignal.timeout(RETRY_TIMEOUT_MS) });
  const quote = await post(a);
  assert.equal(quote.status, 402);
  const amount = BigInt(((await quote.json()) as { accepts: { maxAmountRequired: string }[] }).accepts[0].maxAmountRequired);
  const tx = await pay(amount);
  const paid = { 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) };

  // The run starts on A; A dies the moment it has accepted the payment.
  const accepted = a.logged(/"msg":"payment accepted"/);
  const first = post(a, paid).then(
    (r) => `answered ${r.status}`,
    () => 'connection lost',
  );
  await accepted;
  const killedAt = await kill9(a);
  assert.equal(await first, 'connection lost', 'A died before answering');
  assert.deepEqual(await receiptRow(tx), { state: 'running', attempts: 1 }, 'the kill landed mid-run: no answer stored');

  const retry = await post(b, paid);
  const answeredMs = performance.now() - killedAt;
  const body = (await retry.json()) as { pages: number; text: string };
  assert.equal(retry.status, 200, JSON.stringify(body).slice(0, 300));
  assert.equal(body.pages, 400);
  assert.match(body.text, /lease takeover page 400/);
  t.diagnostic(`400-page pdf-text, A killed mid-run: the retry on B answered ${Math.round(answeredMs)} ms after the kill (lease ${5_000} ms + B's own run; the lease used to be TOOL_JOB_TIMEOUT_MS + 30 s = 150 s)`);
  assert.deepEqual(await receiptRow(tx), { state: 'done', attempts: 2 }, 'run twice (the dead run and the takeover), within PAYMENT_MAX_RUNS');
  assert.equal(await ledgerRows(tx), 1, 'one ledger row');
  const replay = await post(b, paid);
  assert.equal(replay.status, 200);
  assert.equal(replay.headers.get('x-idempotent-replay'), 'true');
  await replay.arrayBuffer();
});

let seller: ReturnType<typeof evmSigner>;
/** A seller endpoint published through `s`, active on every instance in `all`. */
async function sellerEndpoint(s: Service, all: Service[], suffix: string) {
  if (!seller) {
    seller = evmSigner();
    assert.equal((await register(s.url, seller, 'lease')).status, 201);
  }
  const r = await publish(s.url, seller, endpointInput(upstreamUrl, suffix, { mode: 'proxy', atomic_price: 20_000 }));
  assert.equal(r.status, 201, JSON.stringify(r.body));
  for (const each of all) {
    await eventually(`${suffix} active on ${each.name}`, async () => {
      const meta = (await (await fetch(`${each.url}/v1/_meta`)).json()) as { endpoints: { path: string }[] };
      return meta.endpoints.some((e) => e.path === `/v1/lease/${suffix}`);
    });
  }
}

const sellerCall = (s: Service, suffix: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${s.url}/v1/lease/${suffix}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, signal: AbortSignal.timeout(RETRY_TIMEOUT_MS) });

async function verifySignature(s: Service, got: (typeof received)[number]): Promise<boolean | null> {
  const meta = (await (await fetch(`${s.url}/v1/_meta`)).json()) as { forward_signing: { keyid: string; public_key: string } };
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: meta.forward_signing.public_key }, format: 'jwk' });
  return httpbis.verifyMessage(
    {
      keyLookup: async () => ({ id: meta.forward_signing.keyid, algs: ['ed25519'], verify: createVerifier(key, 'ed25519') }),
      requiredFields: ['@method', '@target-uri', 'content-digest', 'x-paycall-payer', 'x-paycall-tx', 'x-paycall-network', 'idempotency-key'],
    },
    { method: got.method, url: `${upstreamUrl}${got.url}`, headers: got.headers as Record<string, string> },
  );
}

test('an instance killed mid-forward: the upstream gets the same paid call again (same signed X-Paycall-Tx and Idempotency-Key), the buyer one answer', { timeout: 300_000 }, async (t) => {
  const c = await startService('c');
  const d = b;
  await sellerEndpoint(d, [c, d], 'held');
  // The first paid forward is held open (the upstream is working on it) until the test ends.
  const held: ServerResponse[] = [];
  plans.set('held', (n, res) => {
    if (n === 1) held.push(res);
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ answer: `forward ${n}` }));
  });
  const body = '{"q":"once"}';
  assert.equal((await sellerCall(c, 'held', body)).status, 402);
  const tx = await pay(20_000n);
  const paid = { 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) };

  const arrived = new Promise<void>((resolve) => (onPaid = (path) => path === 'held' && resolve()));
  const first = sellerCall(c, 'held', body, paid).then(
    (r) => `answered ${r.status}`,
    () => 'connection lost',
  );
  await arrived;
  const killedAt = await kill9(c);
  assert.equal(await first, 'connection lost');

  const retry = await sellerCall(d, 'held', body, paid);
  const answeredMs = performance.now() - killedAt;
  const answer = await retry.json();
  assert.equal(retry.status, 200, JSON.stringify(answer));
  assert.deepEqual(answer, { answer: 'forward 2' });
  t.diagnostic(`C killed while the upstream held its forward: the retry on D answered ${Math.round(answeredMs)} ms after the kill (lease 5000 ms)`);

  // At-least-once, made visible: both forwards name the same paid call, signed.
  assert.equal(paidHits('held'), 2);
  const [one, two] = received.filter((r) => r.path === 'held');
  for (const got of [one, two]) {
    assert.equal(String(got.headers['x-paycall-tx']).toLowerCase(), tx.toLowerCase());
    assert.equal(got.headers['idempotency-key'], `"${got.headers['x-paycall-tx']}"`);
    assert.equal(await verifySignature(d, got), true, 'the forward verifies with the published key');
  }
  assert.equal(one.headers['idempotency-key'], two.headers['idempotency-key']);

  // One answer: the replay is the one the buyer got.
  const replay = await sellerCall(d, 'held', body, paid);
  assert.equal(replay.headers.get('x-idempotent-replay'), 'true');
  assert.deepEqual(await replay.json(), answer);
  assert.equal(paidHits('held'), 2, 'a replay does not forward again');
  assert.equal(await ledgerRows(tx), 1);

  // The first forward's answer arrives late, at a dead instance: nothing changes.
  for (const res of held) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ answer: 'forward 1, late' }));
  const again = await sellerCall(d, 'held', body, paid);
  assert.deepEqual(await again.json(), answer);
  const [{ state }] = (await sql.query(`select state from consumed_receipt where receipt_key = $1`, [`base:tx:${tx.toLowerCase()}`])).rows;
  assert.equal(state, 'done');
  d.child.kill('SIGTERM');
  assert.equal(await d.exited, 0);
});

test('a live forward held for six lease periods is not taken over by a retry on another instance', { timeout: 300_000 }, async () => {
  // One-second leases: the forward outlives six of them on its live instance.
  const [f, g] = await Promise.all([startService('f', { RUN_LEASE_SECONDS: '1' }), startService('g', { RUN_LEASE_SECONDS: '1' })]);
  await sellerEndpoint(g, [f, g], 'long');
  let release = () => {};
  plans.set('long', (n, res) => {
    release = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ answer: `long ${n}` }));
  });
  const body = '{"q":"long"}';
  assert.equal((await sellerCall(f, 'long', body)).status, 402);
  const tx = await pay(20_000n);
  const paid = { 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) };

  const arrived = new Promise<void>((resolve) => (onPaid = (path) => path === 'long' && resolve()));
  const first = sellerCall(f, 'long', body, paid);
  await arrived;
  // The buyer retries on G while F's forward is still in the upstream's hands.
  const retry = sellerCall(g, 'long', body, paid);
  await new Promise((r) => setTimeout(r, 6_000));
  assert.equal(paidHits('long'), 1, 'the retry did not forward a second time while the first forward lives');
  release();
  const [r1, r2] = await Promise.all([first, retry]);
  const [a1, a2] = [await r1.json(), await r2.json()];
  assert.equal(r1.status, 200);
  assert.deepEqual(a1, { answer: 'long 1' });
  assert.equal(r2.headers.get('x-idempotent-replay'), 'true', 'the retry got the live run’s answer');
  assert.deepEqual(a2, a1);
  assert.equal(paidHits('long'), 1);
  assert.deepEqual(await receiptRow(tx), { state: 'done', attempts: 1 });
});
