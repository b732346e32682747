/**
 * Discovery (x402 Bazaar 2.27 shape) on the real app, real PostgreSQL and a real local
 * upstream: GET /discovery/search ranks by text relevance over names, descriptions and tags;
 * both the listing and the search filter on payTo, scheme and network; a pending, suspended
 * or deleted seller endpoint never appears. Chains are configured (quotes need only their
 * addresses) but their RPCs are never reached: nothing here is paid.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { FAST_LIFECYCLE_ENV, call, deleteEndpoint, endpointInput, evmSigner, publish, register, startUpstream, type TestUpstream } from '../helpers/sellers.ts';

const EVM_PAY_TO = '0x' + 'ab'.repeat(20);
const SOL_PAY_TO = bs58.encode(nacl.sign.keyPair().publicKey);
// The production profile is the one that reads chains from the environment (the default profile has none).
const CHAIN_ENV = {
  PAYCALL_PROFILE: 'production',
  FORWARD_SIGNING_KEY: Buffer.alloc(32, 9).toString('base64'),
  BASE_RPC_URL: 'http://127.0.0.1:9',
  BASE_USDC: '0x' + '11'.repeat(20),
  BASE_PAY_TO: EVM_PAY_TO,
  POLYGON_RPC_URL: 'http://127.0.0.1:9',
  POLYGON_USDC: '0x' + '22'.repeat(20),
  POLYGON_PAY_TO: EVM_PAY_TO,
  SOLANA_RPC_URL: 'http://127.0.0.1:9',
  SOLANA_USDC_MINT: bs58.encode(nacl.sign.keyPair().publicKey),
  SOLANA_PAY_TO: SOL_PAY_TO,
  EVM_RELAYER_KEY: '0x' + '1'.repeat(64),
  EVM_TREASURY_KEY: '0x' + '2'.repeat(64),
  SOLANA_FEE_PAYER_KEY: bs58.encode(nacl.sign.keyPair().secretKey),
  SOLANA_TREASURY_KEY: bs58.encode(nacl.sign.keyPair().secretKey),
};

let db: TestDatabase;
let t: TestApp;
let up: TestUpstream;
let sql: pg.Client;
const seller = evmSigner();

const statusOf = async (id: number) => (await sql.query('select status from seller_endpoint where id = $1', [id])).rows[0].status as string;

async function drive(until: () => Promise<boolean>) {
  for (let i = 0; i < 50 && !(await until()); i++) await t.app.runScheduledJobs();
  assert.ok(await until(), 'the probe rounds got there');
}

const search = (q: string) => call(t.baseUrl, 'searchDiscoveryResources', 'GET', `/discovery/search?${q}`);
const list = (q: string) => call(t.baseUrl, 'listDiscoveryResources', 'GET', `/discovery/resources?${q}`);

let live: number;
before(async () => {
  db = await createTestDatabase('catalog_discovery');
  up = await startUpstream();
  const config = testConfig({ DATABASE_URL: db.url, ALLOW_LOCAL_UPSTREAMS: '1', PROBE_TIMEOUT_MS: '5000', ...FAST_LIFECYCLE_ENV });
  // Chains of a production configuration with local upstreams allowed (a production profile refuses them).
  t = await startTestApp({ ...config, chains: testConfig({ ...CHAIN_ENV, DATABASE_URL: db.url }).chains });
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  assert.equal((await register(t.baseUrl, seller, 'geo-shop')).status, 201);
  const pub = async (suffix: string, desc: string) => {
    const r = await publish(t.baseUrl, seller, endpointInput(up.url, suffix, { desc }));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.id as number;
  };
  live = await pub('geocode', 'Geocoding: converts street addresses into latitude and longitude coordinates.');
  // Answers its publish probe, then fails every probe: suspended after the activation rounds give up or health fails.
  up.rules.set('/suspended', 'ok-then-fail');
  const suspended = await pub('suspended', 'Geocoding of suspended addresses.');
  const deleted = await pub('deleted', 'Geocoding of deleted addresses.');
  await drive(async () => (await statusOf(live)) === 'active' && (await statusOf(deleted)) === 'active');
  up.rules.set('/suspended', 'fail');
  await drive(async () => (await statusOf(suspended)) === 'suspended' || (await statusOf(suspended)) === 'pending');
  assert.equal((await deleteEndpoint(t.baseUrl, seller, deleted)).status, 200);
  // Published last and never probed again: pending.
  const pending = await pub('pending', 'Geocoding of pending addresses.');
  assert.equal(await statusOf(pending), 'pending');
});
after(async () => {
  await sql?.end();
  await t?.close();
  await up?.close();
  await db?.drop();
});

test('search finds a seller endpoint by a word of its description, in the Bazaar 2.27 shape', async () => {
  const r = await search('query=latitude');
  assert.equal(r.status, 200);
  assert.equal(r.body.partialResults, false);
  assert.deepEqual(r.body.resources.map((i: any) => i.routeTemplate), ['/v1/geo-shop/geocode']);
  const item = r.body.resources[0];
  assert.equal(item.resource, `${t.baseUrl}/v1/geo-shop/geocode`);
  assert.equal(item.serviceName, 'geo-shop');
  assert.ok(item.tags.includes('geo-shop'));
  assert.ok(!Number.isNaN(Date.parse(item.lastUpdated)) && item.lastUpdated.endsWith('Z'), 'ISO time');
  assert.ok(item.accepts.length > 0);
  assert.equal(item.extensions.bazaar.info.input.method, 'POST');
  // Stemming: "converting" finds "converts".
  assert.deepEqual((await search('query=converting%20addresses')).body.resources.map((i: any) => i.routeTemplate), ['/v1/geo-shop/geocode']);
});

test('a pending, suspended or deleted endpoint never appears, in the search or the listing', async () => {
  const found = (await search('query=geocoding&limit=100')).body.resources.map((i: any) => i.routeTemplate);
  assert.deepEqual(found, ['/v1/geo-shop/geocode']);
  const listed = (await list('limit=100')).body.items.map((i: any) => i.routeTemplate);
  assert.deepEqual(listed, ['/v1/pdf-md', '/v1/pdf-text', '/v1/pdf-json', '/v1/invoice-extract', '/v1/geo-shop/geocode']);
});

test('ranking: the name and tags weigh more than the description; the cursor pages the matches', async () => {
  const r = await search('query=markdown');
  assert.equal(r.body.resources[0].routeTemplate, '/v1/pdf-md');
  const all = (await search('query=pdf&limit=100')).body.resources.map((i: any) => i.routeTemplate);
  assert.ok(all.length >= 4, all.join());
  const first = await search('query=pdf&limit=2');
  assert.equal(first.body.resources.length, 2);
  assert.equal(typeof first.body.pagination.cursor, 'string');
  const second = await search(`query=pdf&limit=2&cursor=${first.body.pagination.cursor}`);
  assert.deepEqual([...first.body.resources, ...second.body.resources].map((i: any) => i.routeTemplate), all.slice(0, 4));
  assert.equal((await search('query=nothing-like-this-anywhere')).body.resources.length, 0);
  assert.equal((await search('query=')).status, 400);
  assert.equal((await search('query=pdf&cursor=bogus')).status, 400);
});

test('payTo, scheme and network filter the listing and the search', async () => {
  const solana = await list('network=solana&limit=100');
  assert.equal(solana.body.items.length, 5);
  assert.ok(solana.body.items.every((i: any) => i.accepts.length > 0 && i.accepts.every((a: any) => a.network === 'solana')));
  const caip = await list('network=eip155:8453&limit=100');
  assert.ok(caip.body.items.length === 5 && caip.body.items.every((i: any) => i.accepts.every((a: any) => a.network === 'base')));
  assert.equal((await list('network=eip155:1')).body.items.length, 0);
  const byPayTo = await search(`query=geocoding&payTo=${EVM_PAY_TO.toUpperCase().replace('0X', '0x')}`);
  assert.equal(byPayTo.body.resources.length, 1);
  assert.ok(byPayTo.body.resources[0].accepts.every((a: any) => a.payTo.toLowerCase() === EVM_PAY_TO));
  // payTo and scheme together: exactly the accepts that match both, as the unfiltered item has them.
  const everything = (await search('query=geocoding')).body.resources[0].accepts as any[];
  for (const scheme of new Set(everything.map((a) => a.scheme))) {
    const want = everything.filter((a) => a.payTo === SOL_PAY_TO && a.scheme === scheme);
    const got = (await search(`query=geocoding&payTo=${SOL_PAY_TO}&scheme=${scheme}`)).body.resources;
    assert.deepEqual(got.length === 0 ? [] : got[0].accepts, want, scheme);
  }
  assert.ok(everything.some((a) => a.payTo !== SOL_PAY_TO), 'the Solana filter dropped some accepts');
  assert.equal((await list('scheme=no-such-scheme')).body.pagination.total, 0);
});
