/**
 * Settlement test helpers: ledger rows written as the payment path writes them (net/fee split
 * at the take rate), the seller's balances as the account and the ledger see them, a movable
 * clock for "midnight", and a fake PayoutSender (an in-memory chain) for engine-level tests only;
 * acceptance suites use the real devnet senders.
 */
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import type { PayoutChain, PayoutSender, PayoutTxState, PreparedPayout } from '../../src/chains/payout-sender.ts';
import type { App } from '../../src/app.ts';
import type { TestSigner } from './sellers.ts';
import { evmSigner, nowS, solanaSigner } from './sellers.ts';

/** A seller row and its wallet on `chain` (as registration writes them), without the HTTP round trip. */
export async function insertSeller(c: pg.Client, p: { wallet: string; chain: PayoutChain; slug?: string; walletChain?: string }): Promise<number> {
  const slug = p.slug ?? `s-${randomBytes(5).toString('hex')}`;
  const key = p.wallet.startsWith('0x') ? p.wallet.toLowerCase() : p.wallet;
  const r = await c.query(`insert into seller (wallet, wallet_key, slug, payout_chain, status) values ($1, $2, $3, $4, 'active') returning id`, [p.wallet, key, slug, p.chain]);
  const id = r.rows[0].id as number;
  await c.query(`insert into seller_wallet (seller_id, chain, address, address_key) values ($1, $2, $3, $4)`, [id, p.walletChain ?? p.chain, p.wallet, key]);
  await c.query(`insert into seller_wallet_claim (address_key, seller_id) values ($1, $2)`, [key, id]);
  return id;
}

/**
 * Ledger rows of paid calls to the seller: amount, fee and net at the take rate (bps), integers
 * only; served calls ('delivered', as the seller call marks them) unless `delivery` says otherwise.
 */
export async function insertEarnings(c: pg.Client, sellerId: number, amounts: bigint[], opts: { takeBps?: number; at?: string; delivery?: 'pending' | 'delivered' | 'undelivered' } = {}): Promise<void> {
  const bps = BigInt(opts.takeBps ?? 300);
  for (const amount of amounts) {
    const net = (amount * (10000n - bps)) / 10000n;
    await c.query(
      `insert into payment (network, tx, payer, amount, quoted_amount, endpoint_path, seller_id, take_bps, fee, net, created_at, delivery)
       values ('base', $1, '0xpayer', $2, $2, '/v1/x/y', $3, $4, $5, $6, coalesce($7::timestamptz, now()), $8)`,
      ['0x' + randomBytes(32).toString('hex'), amount.toString(), sellerId, Number(bps), (amount - net).toString(), net.toString(), opts.at ?? null, opts.delivery ?? 'delivered'],
    );
  }
}

/** Figures of the seller's served calls (delivery 'delivered': the only ones a seller earns), plus the rest apart. */
export interface Balances {
  paid: bigint;
  fee: bigint;
  /** net earnings in all */
  earned: bigint;
  /** net of rows whose payout is confirmed (payout_id set) */
  settled: bigint;
  /** net of rows with no settlement reference (what GET /v1/account shows as withdrawable) */
  withdrawable: bigint;
  /** net of rows claimed by a payout not confirmed yet */
  inFlight: bigint;
  /** sum of confirmed payouts */
  paidOut: bigint;
  /** what buyers paid for calls not served (undelivered) or whose outcome is not recorded (pending) */
  notServed: bigint;
}

export async function balances(c: pg.Client, sellerId: number): Promise<Balances> {
  const r = await c.query(
    `select coalesce(sum(amount) filter (where delivery = 'delivered'), 0)::text as paid, coalesce(sum(fee) filter (where delivery = 'delivered'), 0)::text as fee,
            coalesce(sum(net) filter (where delivery = 'delivered'), 0)::text as earned,
            coalesce(sum(net) filter (where payout_id is not null), 0)::text as settled,
            coalesce(sum(net) filter (where payout_id is null and delivery = 'delivered'), 0)::text as withdrawable,
            coalesce(sum(net) filter (where payout_id is null and exists (select 1 from payout_item i where i.payment_id = payment.id)), 0)::text as in_flight,
            (select coalesce(sum(amount), 0) from payout where seller_id = $1 and status = 'sent')::text as paid_out,
            coalesce(sum(amount) filter (where delivery <> 'delivered'), 0)::text as not_served
       from payment where seller_id = $1`,
    [sellerId],
  );
  const row = r.rows[0];
  return {
    paid: BigInt(row.paid),
    fee: BigInt(row.fee),
    earned: BigInt(row.earned),
    settled: BigInt(row.settled),
    withdrawable: BigInt(row.withdrawable),
    inFlight: BigInt(row.in_flight),
    paidOut: BigInt(row.paid_out),
    notServed: BigInt(row.not_served),
  };
}

/** The money identities that must hold at every step, payouts in flight included. */
export function assertIdentities(b: Balances, assert: { equal: (a: unknown, b: unknown, m?: string) => void }, what = ''): void {
  assert.equal(b.paid, b.fee + b.earned, `paid = fee + net ${what}`);
  assert.equal(b.earned, b.settled + b.withdrawable, `earned = settled + withdrawable ${what}`);
  assert.equal(b.settled, b.paidOut, `settled rows = confirmed payouts ${what}`);
}

/** A clock the test moves: `clock.now()` is real time plus the offset. */
export function movableClock() {
  let offsetMs = 0;
  return {
    now: () => new Date(Date.now() + offsetMs),
    /** Moves to just after the next 00:00 UTC. */
    toNextMidnight() {
      const n = new Date(Date.now() + offsetMs);
      const next = Date.UTC(n.getUTCFullYear(), n.getUTCMonth(), n.getUTCDate() + 1, 0, 0, 5);
      offsetMs = next - Date.now();
    },
  };
}

/** Passes of the scheduler until `done` (payouts wait for their chain, or a back-off, between passes). */
export async function settleUntil(app: App, done: () => Promise<boolean>, limitMs = 30_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (Date.now() < end) {
    await app.runScheduledJobs();
    if (await done()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`settlement did not finish: ${JSON.stringify((await app.orm.em.fork().getConnection().execute(`select id, seller_id, chain, status, tx, error, attempts, next_attempt_at > now() as later from payout where status <> 'sent'`)))}`);
}

export async function requestPayoutBody(signer: TestSigner, timestamp = nowS()): Promise<{ signature: string; timestamp: number }> {
  return { signature: await signer.sign('request_payout', signer.wallet, timestamp), timestamp };
}

/**
 * An in-memory chain behind the PayoutSender contract: prepared transactions land when
 * broadcast (or stay pending), and a test can make the next ones fail, expire or throw.
 * Engine-level tests only.
 */
export interface FakeSender extends PayoutSender {
  /** Received USDC per destination (what "arrived in the wallet"). */
  received: Map<string, bigint>;
  broadcasts: number;
  prepares: number;
  /** Next broadcasts land failed / stay unseen; prepare throws; lookups answer pending. */
  mode: 'ok' | 'fail-on-chain' | 'throw-prepare' | 'pending' | 'drop';
  /** Destinations whose transfers fail on chain (a token that refuses them). */
  refuse: Set<string>;
  /** An unsent transaction can no longer land (its nonce / blockhash passed). */
  expire(tx: string): void;
}

export function fakeSender(chain: PayoutChain): FakeSender {
  const txs = new Map<string, { to: string; amount: bigint; state: PayoutTxState }>();
  let nonce = 0;
  const s: FakeSender = {
    chain,
    treasury: `treasury-${chain}`,
    received: new Map(),
    broadcasts: 0,
    prepares: 0,
    mode: 'ok',
    refuse: new Set(),
    async prepare(to, amount) {
      if (s.mode === 'throw-prepare') throw new Error('treasury has insufficient funds');
      s.prepares++;
      const tx = `${chain}-tx-${++nonce}-${randomBytes(4).toString('hex')}`;
      txs.set(tx, { to, amount, state: 'not_found' });
      return { tx, raw: JSON.stringify({ to, amount: amount.toString() }), validUntil: String(nonce) };
    },
    async broadcast(p: PreparedPayout) {
      s.broadcasts++;
      const t = txs.get(p.tx)!;
      if (t.state !== 'not_found' || s.mode === 'drop') return;
      if (s.mode === 'pending') {
        t.state = 'pending';
        return;
      }
      if (s.mode === 'fail-on-chain' || s.refuse.has(t.to)) {
        t.state = 'failed';
        return;
      }
      t.state = 'confirmed';
      s.received.set(t.to, (s.received.get(t.to) ?? 0n) + t.amount);
    },
    async lookup(p) {
      const t = txs.get(p.tx);
      if (!t) return 'expired';
      // The chain catches up: a pending transfer lands once the test sets mode back to ok.
      if (t.state === 'pending' && s.mode === 'ok') {
        t.state = 'confirmed';
        s.received.set(t.to, (s.received.get(t.to) ?? 0n) + t.amount);
      }
      return t.state;
    },
    expire(tx: string) {
      const t = txs.get(tx);
      if (t && t.state === 'not_found') txs.delete(tx);
    },
    async treasuryBalance() {
      return 10n ** 12n;
    },
  };
  return s;
}


/** USDC of `owner` on a devnet chain, read from the chain (not from the service). */
export async function usdcOn(chains: import('../../src/config.ts').ChainsConfig, chain: PayoutChain, owner: string): Promise<bigint> {
  const { evmTokenBalance, solanaTokenBalance } = await import('../../devnet/buyer.ts');
  if (chain === 'solana') return solanaTokenBalance({ rpcUrl: chains.solana.rpcUrl, mint: chains.solana.usdcMint, owner });
  const c = chain === 'base' || chain === 'polygon' ? chains[chain] : chains.payoutChains?.[chain];
  if (!c) throw new Error(`no devnet chain ${chain}`);
  const rpcUrl = typeof c.rpcUrl === 'string' ? c.rpcUrl : await c.rpcUrl();
  return evmTokenBalance({ rpcUrl, chainId: c.chainId, token: c.usdc, owner });
}

/** A fresh receiving address on the chain's family (nobody needs its key: it only receives). */
export async function freshAddress(chain: PayoutChain): Promise<string> {
  if (chain === 'solana') return solanaSigner().wallet;
  return evmSigner().wallet;
}
