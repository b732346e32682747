/**
 * Registration binds what it registers (issue 20, item 3), against the real server and
 * PostgreSQL. The attack: a seller's shape-B registration (wallet, slug, signature over the
 * slug) is seen by someone else, who sends it first inside a shape-A request that adds their
 * own wallet as primary or payout wallet, or moves the payout to another chain. Each variant
 * is refused with 401 invalid_signature, the victim's signature is not spent by the refusal,
 * and the victim's own request then registers exactly what it asked for. Honest shape A (EVM
 * and Solana wallets, payout chain) signs the binding payload through the SDK and works.
 */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { keccak256, stringToBytes } from 'viem';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { call, evmSigner, listEndpoints, nowS, registerMultiChain, solanaSigner, type TestSigner } from '../helpers/sellers.ts';
import { registerBindingPayload } from '../../src/http/wallet-signature.ts';
import { multiChainRegistrationBody } from '../../sdk/wallet-actions.ts';

let db: TestDatabase;
let t: TestApp;

before(async () => {
  db = await createTestDatabase('sellers_register_binding');
  t = await startTestApp(testConfig({ DATABASE_URL: db.url, SCHEDULER_TICK_MS: '0' }));
});
after(async () => {
  await t?.close();
  await db?.drop();
});

const post = (body: unknown) => call(t.baseUrl, 'registerSeller', 'POST', '/v1/_seller/register', { body });

/** What the victim sends (and the attacker sees): shape B, the signature over the slug. */
async function victimRegistration(victim: TestSigner, slug: string) {
  const timestamp = nowS();
  return { wallet: victim.wallet, slug, signature: await victim.sign('register', slug, timestamp), timestamp };
}

type Lifted = Awaited<ReturnType<typeof victimRegistration>>;

/**
 * A shape-A request built around the lifted signature. The attacker's own wallets sign
 * whichever payload the service might take: the binding payload of this very request, or the
 * slug alone (what the old service checked, and what it took from everyone).
 */
interface Forged {
  wallets: Record<string, string>;
  primary_wallet: string;
  payout_chain?: string;
  /** The attacker's signer of each of its own entries. */
  own: Record<string, TestSigner>;
}
const forged = (f: Forged) => f;

interface Forgery {
  what: string;
  build(lifted: Lifted, attacker: { evm: TestSigner; sol: TestSigner }, victimChain: 'base' | 'solana'): Forged;
}

const forgeries: Forgery[] = [
  {
    what: 'the exact attack: victim wallet as one entry, attacker wallet primary and payout wallet',
    build: (l, a, vc) => ({ wallets: { [vc]: l.wallet, polygon: a.evm.wallet }, primary_wallet: a.evm.wallet, payout_chain: 'polygon', own: { polygon: a.evm } }),
  },
  {
    what: 'victim wallet as a non-primary entry, attacker Solana wallet primary (payout by default)',
    build: (l, a, vc) =>
      vc === 'solana'
        ? forged({ wallets: { solana: l.wallet, base: a.evm.wallet }, primary_wallet: a.evm.wallet, own: { base: a.evm } })
        : forged({ wallets: { base: l.wallet, solana: a.sol.wallet }, primary_wallet: a.sol.wallet, own: { solana: a.sol } }),
  },
  {
    what: 'victim primary, attacker wallet on the payout chain',
    build: (l, a, vc) =>
      vc === 'solana'
        ? forged({ wallets: { solana: l.wallet, base: a.evm.wallet }, primary_wallet: l.wallet, payout_chain: 'base', own: { base: a.evm } })
        : forged({ wallets: { base: l.wallet, polygon: a.evm.wallet }, primary_wallet: l.wallet, payout_chain: 'polygon', own: { polygon: a.evm } }),
  },
  {
    what: 'victim primary and payout wallet, attacker wallet added as co-owner',
    build: (l, a, vc) =>
      vc === 'solana'
        ? forged({ wallets: { solana: l.wallet, base: a.evm.wallet }, primary_wallet: l.wallet, own: { base: a.evm } })
        : forged({ wallets: { base: l.wallet, solana: a.sol.wallet }, primary_wallet: l.wallet, own: { solana: a.sol } }),
  },
];

/** Variants with the victim's wallet alone (no attacker signature at all), EVM victims only. */
const victimAlone: { what: string; wallets: (w: string) => Record<string, string>; payout_chain?: string }[] = [
  { what: 'payout_chain changed: the victim wallet on base and polygon, paid on polygon', wallets: (w) => ({ base: w, polygon: w }), payout_chain: 'polygon' },
  { what: 'the victim wallet on base and polygon, paid on base', wallets: (w) => ({ base: w, polygon: w }) },
  { what: 'the victim wallet alone under polygon (paid on polygon, not base)', wallets: (w) => ({ polygon: w }) },
];

async function forge(lifted: Lifted, f: Forged, attackerSigns: 'binding' | 'slug') {
  const ts = lifted.timestamp;
  const payoutChain = f.payout_chain ?? Object.keys(f.wallets).find((c) => f.wallets[c] === f.primary_wallet)!;
  const binding = registerBindingPayload({ slug: lifted.slug, wallets: f.wallets, primary_wallet: f.primary_wallet, payout_chain: payoutChain });
  const signatures: Record<string, string> = {};
  for (const [chain, address] of Object.entries(f.wallets)) {
    signatures[chain] = address === lifted.wallet ? lifted.signature : await f.own[chain].sign('register', attackerSigns === 'binding' ? binding : lifted.slug, ts);
  }
  return { primary_wallet: f.primary_wallet, wallets: f.wallets, signatures, slug: lifted.slug, ts, ...(f.payout_chain ? { payout_chain: f.payout_chain } : {}) };
}

/** The victim's own request, sent after the attempts: it registers exactly what shape B says. */
async function victimSucceeds(victim: TestSigner, lifted: Lifted, chain: 'base' | 'solana') {
  const own = await post(lifted);
  assert.equal(own.status, 201, JSON.stringify(own.body));
  assert.deepEqual({ wallet: own.body.wallet, slug: own.body.slug, wallets: own.body.wallets, payout_chain: own.body.payout_chain }, { wallet: victim.wallet, slug: lifted.slug, wallets: { [chain]: victim.wallet }, payout_chain: chain });
}

let n = 0;
const slugOf = (prefix: string) => `${prefix}-${++n}`;

describe('a lifted shape-B signature in a shape-A request', () => {
  for (const [kind, makeVictim, chain] of [['EVM', evmSigner, 'base'], ['Solana', solanaSigner, 'solana']] as const) {
    for (const f of forgeries) {
      test(`${kind} victim, ${f.what}: 401 invalid_signature, then the victim registers`, async () => {
        const victim = makeVictim();
        const attacker = { evm: evmSigner(), sol: solanaSigner() };
        const lifted = await victimRegistration(victim, slugOf('victim'));
        const forged = f.build(lifted, attacker, chain);
        for (const attackerSigns of ['binding', 'slug'] as const) {
          const a = await post(await forge(lifted, forged, attackerSigns));
          assert.equal(a.status, 401, `attacker signs the ${attackerSigns} payload: ${JSON.stringify(a.body)}`);
          assert.equal(a.body.error, 'invalid_signature');
        }
        // Nothing was registered: the attacker's wallets own no slug, the victim's request goes through.
        await victimSucceeds(victim, lifted, chain);
        const attackerFree = await post(await victimRegistration(attacker.evm, slugOf('attacker')));
        assert.equal(attackerFree.status, 201, JSON.stringify(attackerFree.body));
      });
    }
  }

  for (const v of victimAlone) {
    test(`${v.what}: 401 invalid_signature, then the victim registers`, async () => {
      const victim = evmSigner();
      const lifted = await victimRegistration(victim, slugOf('alone'));
      const a = await post({ primary_wallet: victim.wallet, wallets: v.wallets(victim.wallet), signatures: Object.fromEntries(Object.keys(v.wallets(victim.wallet)).map((c) => [c, lifted.signature])), slug: lifted.slug, ts: lifted.timestamp, ...(v.payout_chain ? { payout_chain: v.payout_chain } : {}) });
      assert.equal(a.status, 401, JSON.stringify(a.body));
      assert.equal(a.body.error, 'invalid_signature');
      // The answer says what a shape-A wallet signs.
      assert.match(a.body.hint, /"slug":".*","wallets":\{.*\},"primary_wallet":".*","payout_chain":".*"/);
      await victimSucceeds(victim, lifted, 'base');
    });
  }

  test('shape A with only the victim wallet, on its shape-B chain, registers what shape B would; the signature is then spent', async () => {
    for (const [makeVictim, chain] of [[evmSigner, 'base'], [solanaSigner, 'solana']] as const) {
      const victim = makeVictim();
      const lifted = await victimRegistration(victim, slugOf('same'));
      const asShapeA = { primary_wallet: victim.wallet, wallets: { [chain]: victim.wallet }, signatures: { [chain]: lifted.signature }, slug: lifted.slug, ts: lifted.timestamp };
      const first = await post(asShapeA);
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.deepEqual({ wallet: first.body.wallet, wallets: first.body.wallets, payout_chain: first.body.payout_chain }, { wallet: victim.wallet, wallets: { [chain]: victim.wallet }, payout_chain: chain });
      // The victim's own request is the same signed message: single use refuses it, and the victim owns the slug already.
      const own = await post(lifted);
      assert.equal(own.status, 409);
      assert.equal(own.body.error, 'signature_already_used');
      assert.equal((await listEndpoints(t.baseUrl, victim)).status, 200);
      // And the other way round: after the victim's shape B, the shape-A copy is a replay.
      const victim2 = makeVictim();
      const lifted2 = await victimRegistration(victim2, slugOf('same'));
      assert.equal((await post(lifted2)).status, 201);
      const copy = await post({ ...asShapeA, primary_wallet: victim2.wallet, wallets: { [chain]: victim2.wallet }, signatures: { [chain]: lifted2.signature }, slug: lifted2.slug, ts: lifted2.timestamp });
      assert.equal(copy.status, 409);
      assert.equal(copy.body.error, 'signature_already_used');
    }
  });
});

describe('honest shape A signs the binding payload', () => {
  test('the payload text: keys in order, chains sorted, EVM addresses lower-case, Solana as is', () => {
    const evm = '0x2d4C407BBe49438ED859fe965b140dcF1aaB71a9';
    const sol = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
    const text = registerBindingPayload({ slug: 'acme-ocr', wallets: { solana: sol, polygon: evm, base: evm.toLowerCase() }, primary_wallet: evm, payout_chain: 'solana' });
    assert.equal(
      text,
      '{"slug":"acme-ocr","wallets":{"base":"0x2d4c407bbe49438ed859fe965b140dcf1aab71a9","polygon":"0x2d4c407bbe49438ed859fe965b140dcf1aab71a9","solana":"9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"},"primary_wallet":"0x2d4c407bbe49438ed859fe965b140dcf1aab71a9","payout_chain":"solana"}',
    );
    // The value the contract's example shows (openapi.yaml, registerSeller); checked against js-sha3 too.
    assert.equal(keccak256(stringToBytes(text)), '0x776538e6366586b2947f5fbed968f1d00e2a54078898ffac845852306245b2ba');
  });

  test('an EVM and a Solana wallet, EVM on two chains, paid on polygon: 201, and every wallet acts for the seller', async () => {
    const evm = evmSigner();
    const sol = solanaSigner();
    const a = await registerMultiChain(t.baseUrl, { slug: 'honest-multi', primary: sol, wallets: { base: evm, polygon: evm, solana: sol }, payoutChain: 'polygon' });
    assert.equal(a.status, 201, JSON.stringify(a.body));
    assert.deepEqual({ wallet: a.body.wallet, wallets: a.body.wallets, payout_chain: a.body.payout_chain }, { wallet: sol.wallet, wallets: { base: evm.wallet, polygon: evm.wallet, solana: sol.wallet }, payout_chain: 'polygon' });
    for (const s of [evm, sol]) assert.equal((await listEndpoints(t.baseUrl, s)).status, 200);
  });

  test('the body may send EVM addresses in any case: the payload is the same', async () => {
    const evm = evmSigner();
    const sol = solanaSigner();
    const body = await multiChainRegistrationBody({ slug: 'mixed-case', primary: evm, wallets: { base: evm, solana: sol } });
    const lower = await post({ ...body, primary_wallet: evm.wallet.toLowerCase(), wallets: { ...body.wallets, base: evm.wallet.toLowerCase() } });
    assert.equal(lower.status, 201, JSON.stringify(lower.body));
    assert.equal(lower.body.payout_chain, 'base');
    assert.equal(lower.body.wallet, evm.wallet);
  });

  test('one wallet on a chain other than its shape-B chain signs the binding payload', async () => {
    const evm = evmSigner();
    const a = await registerMultiChain(t.baseUrl, { slug: 'honest-polygon', primary: evm, wallets: { polygon: evm } });
    assert.equal(a.status, 201, JSON.stringify(a.body));
    assert.deepEqual({ wallets: a.body.wallets, payout_chain: a.body.payout_chain }, { wallets: { polygon: evm.wallet }, payout_chain: 'polygon' });
  });

  test('an honest shape-A body cannot be altered: payout chain, primary, a wallet dropped, or its signature used in shape B', async () => {
    const evm = evmSigner();
    const sol = solanaSigner();
    const body = await multiChainRegistrationBody({ slug: 'honest-altered', primary: evm, wallets: { base: evm, polygon: evm, solana: sol }, payoutChain: 'base' });
    const { solana: _dropped, ...walletsWithoutSolana } = body.wallets!;
    const { solana: _droppedSig, ...signaturesWithoutSolana } = body.signatures!;
    const altered = [
      { ...body, payout_chain: 'polygon' },
      { ...body, payout_chain: 'solana' },
      { ...body, primary_wallet: sol.wallet },
      { ...body, wallets: walletsWithoutSolana, signatures: signaturesWithoutSolana },
      { ...body, slug: 'honest-other' },
    ];
    for (const b of altered) {
      const a = await post(b);
      assert.equal(a.status, 401, JSON.stringify(b));
      assert.equal(a.body.error, 'invalid_signature');
    }
    const asShapeB = await post({ wallet: evm.wallet, slug: body.slug, signature: body.signatures!.base, timestamp: body.ts });
    assert.equal(asShapeB.status, 401);
    assert.equal(asShapeB.body.error, 'invalid_signature');
    // None of those spent the signatures: the body as signed registers, once.
    assert.equal((await post(body)).status, 201);
    const replay = await post(body);
    assert.equal(replay.status, 409);
    assert.equal(replay.body.error, 'signature_already_used');
  });
});
