/**
 * Property-based: random and mutated payment proofs (X-Payment, X-Session-Token, Solana
 * transactions) thrown at a paid endpoint and at the facilitator. Whatever arrives, the
 * answer is a refusal with a reason (never a 5xx), no ledger row appears, and no receipt is
 * left running. The valid seeds move less than the quote / the facilitator minimum, so even a
 * mutation that stays a valid transaction can pay for nothing.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import pg from 'pg';
import type { TestDevnet } from '../helpers/devnet.ts';
import { makePdf, startPaidTestEnv, type PaidTestEnv } from '../helpers/paid.ts';
import { signEip3009Authorization, solanaPartiallySignedTransfer } from '../../devnet/buyer.ts';

let env: PaidTestEnv;
let devnet: TestDevnet;
let t: PaidTestEnv['t'];
let sql: pg.Client;
let pdf: Buffer;
let seedTransaction: Buffer;
let seedAuthorization: Awaited<ReturnType<typeof signEip3009Authorization>>;

before(async () => {
  // No chain polling: an unknown transaction is refused at once.
  env = await startPaidTestEnv('payfuzz', { TOOL_WORKERS: '1', PAYMENT_POLL_TIMEOUT_MS: '0' });
  ({ devnet, t, sql } = env);
  pdf = await makePdf(1, 'fuzz');
  await fetch(`${t.baseUrl}/v1/pdf-text`, { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: new Uint8Array(pdf) });
  const s = devnet.info.chains.solana;
  seedTransaction = Buffer.from(
    await solanaPartiallySignedTransfer({ rpcUrl: s.rpcUrl, mint: s.usdcMint, secretKey: devnet.info.accounts[0].solanaSecretKey, toOwner: s.payTo, amount: 4_000n, feePayer: s.feePayer }),
    'base64',
  );
  const b = devnet.info.chains.base;
  // Valid, but for less than the 5000 the 1-page quote asks.
  seedAuthorization = await signEip3009Authorization({ chainId: b.chainId, usdc: b.usdc, privateKey: devnet.info.accounts[1].evmPrivateKey, to: b.payTo, value: 4_000n });
});
after(() => env?.close());

const RUNS = 120;
const b64 = (v: unknown, enc: 'base64' | 'base64url') => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString(enc);

/** Bytes of the valid seed with a few flipped, cut or appended. */
const mutatedTransaction = () =>
  fc
    .record({
      flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { maxLength: 4 }),
      cut: fc.option(fc.nat(), { nil: undefined }),
      tail: fc.uint8Array({ maxLength: 8 }),
    })
    .map(({ flips, cut, tail }) => {
      const bytes = Buffer.from(seedTransaction);
      for (const [at, x] of flips) bytes[at % bytes.length] ^= x;
      const cutAt = cut === undefined ? bytes.length : cut % (bytes.length + 1);
      return Buffer.concat([bytes.subarray(0, cutAt), Buffer.from(tail)]).toString('base64');
    });

const hostileString = fc.oneof(fc.string(), fc.string({ unit: 'grapheme', maxLength: 80 }), fc.constantFrom('', '0x', `0x${'f'.repeat(64)}`, '1'.repeat(88), '-1', '1e400', '\u0000', '%ff'));
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, hostileString, fc.integer(), fc.constant(null), fc.constant(undefined));

/** The seed authorization with any field replaced by something hostile (built once the seed exists). */
const authorizationLike = () =>
  fc.record({
    from: maybe(fc.constant(seedAuthorization.authorization.from)),
    to: maybe(fc.constant(seedAuthorization.authorization.to)),
    value: maybe(fc.constantFrom('4000', '5000', '1000000000000', '0')),
    validAfter: maybe(fc.constant(seedAuthorization.authorization.validAfter)),
    validBefore: maybe(fc.constant(seedAuthorization.authorization.validBefore)),
    nonce: maybe(fc.constantFrom(seedAuthorization.authorization.nonce, `0x${'ab'.repeat(32)}`)),
  });

const payloadArb = () => fc.oneof(
  fc.record({ tx_hash: maybe(fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }).map((h) => `0x${h}`)) }),
  fc.record({ signature: maybe(fc.constantFrom(seedAuthorization.signature, `0x${'12'.repeat(65)}`)), authorization: fc.oneof(authorizationLike(), hostileString) }),
  fc.record({ signature: maybe(fc.string({ unit: fc.constantFrom(...'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'), minLength: 60, maxLength: 90 })), from: maybe(fc.string()), to: maybe(fc.string()), amount: maybe(fc.string()), mint: maybe(fc.string()) }),
  fc.record({ transaction: fc.oneof(mutatedTransaction(), hostileString) }),
  fc.anything(),
);

const xPaymentArb = () => fc.oneof(
  fc
    .record({
      x402Version: maybe(fc.constant(1)),
      scheme: maybe(fc.constantFrom('exact', 'spl-transfer', 'transfer-with-authorization')),
      network: maybe(fc.constantFrom('base', 'polygon', 'solana')),
      payload: payloadArb(),
    })
    .chain((doc) => fc.constantFrom(b64(doc, 'base64url'), b64(doc, 'base64'))),
  hostileString.map((s) => s.replace(/[\r\n]/g, '')),
  fc.anything().map((v) => b64(v ?? null, 'base64url')),
);

const sessionTokenArb = () => fc.oneof(
  fc
    .record({ network: maybe(fc.constantFrom('base', 'polygon')), signature: maybe(fc.constant(seedAuthorization.signature)), authorization: authorizationLike() })
    .map(({ network, signature, authorization }) => b64({ network, signature, ...authorization }, 'base64url')),
  hostileString.map((s) => s.replace(/[\r\n]/g, '')),
);

/** Header values Node's fetch refuses to send are not what this test is about. */
const sendable = (v: string) => /^[\t\x20-\x7e\x80-\xff]*$/.test(v) && v.length < 8000;

async function expectRefusal(res: Response, what: string) {
  const text = await res.text();
  assert.ok(res.status < 500, `${what}: ${res.status} ${text}`);
  let body: { error?: unknown };
  try {
    body = JSON.parse(text);
  } catch {
    assert.fail(`${what}: not JSON: ${text}`);
  }
  assert.equal(typeof body.error, 'string', `${what}: ${text}`);
}

async function assertNothingMoved() {
  assert.equal(Number((await sql.query('select count(*) from payment')).rows[0].count), 0, 'no ledger row');
  assert.equal(Number((await sql.query(`select count(*) from consumed_receipt where state = 'running'`)).rows[0].count), 0, 'no receipt left running');
}

test('random and mutated X-Payment receipts at a paid endpoint: refusals, never a 5xx or a ledger row', async () => {
  await fc.assert(
    fc.asyncProperty(xPaymentArb().filter(sendable), async (header) => {
      const res = await fetch(`${t.baseUrl}/v1/pdf-text`, { method: 'POST', headers: { 'content-type': 'application/pdf', 'x-payment': header }, body: new Uint8Array(pdf) });
      await expectRefusal(res, `X-Payment ${header.slice(0, 200)}`);
      assert.notEqual(res.status, 200);
    }),
    { numRuns: RUNS },
  );
  await assertNothingMoved();
});

test('random X-Session-Token values: refusals, never a 5xx or a ledger row', async () => {
  await fc.assert(
    fc.asyncProperty(sessionTokenArb().filter(sendable), async (token) => {
      const res = await fetch(`${t.baseUrl}/v1/pdf-text`, { method: 'POST', headers: { 'content-type': 'application/pdf', 'x-session-token': token }, body: new Uint8Array(pdf) });
      await expectRefusal(res, `X-Session-Token ${token.slice(0, 200)}`);
      assert.notEqual(res.status, 200);
    }),
    { numRuns: RUNS },
  );
  await assertNothingMoved();
});

test('mutated Solana transactions at the facilitator and the {transaction} rail: refusals, never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(mutatedTransaction(), async (transaction) => {
      const fac = await fetch(`${t.baseUrl}/v1/_facilitator/solana`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ transaction }) });
      await expectRefusal(fac, `facilitator ${transaction}`);
      assert.notEqual(fac.status, 200);
      const header = b64({ x402Version: 1, scheme: 'exact', network: 'solana', payload: { transaction } }, 'base64url');
      const paid = await fetch(`${t.baseUrl}/v1/pdf-text`, { method: 'POST', headers: { 'content-type': 'application/pdf', 'x-payment': header }, body: new Uint8Array(pdf) });
      await expectRefusal(paid, `{transaction} ${transaction}`);
      assert.notEqual(paid.status, 200);
    }),
    { numRuns: RUNS },
  );
  await assertNothingMoved();
});
