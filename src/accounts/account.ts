/**
 * A wallet's balances from the ledger (`payment`), as seller and as buyer. Money stays in
 * numeric/bigint from SQL to JSON (decimal strings); nothing passes through a float.
 */
import { sqlOf, type Database, type Sql } from '../db/orm.ts';
import { AppError } from '../http/app-error.ts';
import type { Handler, RequestContext } from '../http/server.ts';
import { walletKey, walletKind } from '../http/wallet-signature.ts';
import { findSellerByWallet } from '../sellers/seller-store.ts';
import { accountFigures, recentPayoutRows } from './account-store.ts';

export interface AccountBalances {
  /** Net earnings of the seller this wallet belongs to: settled + withdrawable. */
  earned: bigint;
  /** Net earnings whose payout is confirmed (payment.payout_id set). */
  settled: bigint;
  /** Net earnings of served calls not settled yet (payment.payout_id null, delivery 'delivered'). */
  withdrawable: bigint;
  /** USDC paid by this wallet (as payer on any chain, or as the buyer a `pay` key named). */
  spent: bigint;
  /** Published endpoints, deleted ones not counted. */
  endpointsCount: number;
  /** The seller's payout chain; null when the wallet is no seller's. */
  payoutChain: string | null;
}

/**
 * One statement, so the figures come from one snapshot: a payout confirmed meanwhile moves
 * earnings from withdrawable to settled, never counts them twice or not at all. A seller earns
 * only for calls its upstream served (settlement/payout-store.ts): the net of an undelivered
 * call, or of one whose outcome is not recorded yet, is in neither figure. Settled rows are
 * delivered ones (only those are claimed by a payout).
 * EVM payers are matched case-insensitively (`lower(payer)`, indexed), Solana's base58 exactly.
 */
export async function accountBalances(em: Sql, wallet: string): Promise<AccountBalances> {
  const seller = await findSellerByWallet(em, wallet);
  const key = walletKey(wallet);
  const payerMatch = walletKind(wallet) === 'evm' ? ('lower(payer) = ?' as const) : ('payer = ?' as const);
  const sellerId = seller?.id ?? null;
  const row = await accountFigures(em, { sellerId, walletKey: key, payerMatch });
  const settled = BigInt(row.settled);
  const withdrawable = BigInt(row.withdrawable);
  return { earned: settled + withdrawable, settled, withdrawable, spent: BigInt(row.spent), endpointsCount: row.endpoints, payoutChain: seller?.payout_chain ?? null };
}

/** How many of a seller's latest payouts the account shows. */
const RECENT_PAYOUTS = 10;

/**
 * A seller's latest payouts, newest first, in the contract's Payout shape: a payout that keeps
 * failing on chain shows its attempts and last error here (it is retried with back-off).
 */
export async function recentPayouts(em: Sql, sellerWallet: string, sellerId: number) {
  const rows = await recentPayoutRows(em, sellerId, RECENT_PAYOUTS);
  return rows.map((p) => ({ id: p.id, wallet: sellerWallet, chain: p.chain, to: p.wallet, amount_atomic: p.amount, status: p.status, tx: p.tx, attempts: p.attempts, error: p.error, created_at: Number(p.created_at) }));
}

/** The account's wallet when signed: the `wallet` query parameter, without which the credentials are incomplete. */
export function accountWallet(ctx: RequestContext): string {
  const wallet = ctx.query.wallet;
  if (!wallet) throw new AppError('missing_sig_or_ts', 401, 'Send the query parameters wallet, sig and ts, or a Bearer API key with the scope balance:read.');
  return wallet;
}

/** GET /v1/account, for the Bearer key's wallet or the signing wallet. */
export function accountHandler(deps: { orm: Database }): Handler {
  return async (ctx) => {
    const wallet = ctx.apiKey?.wallet ?? accountWallet(ctx);
    const em = sqlOf(deps.orm);
    const b = await accountBalances(em, wallet);
    const seller = b.payoutChain !== null ? await findSellerByWallet(em, wallet) : null;
    return {
      status: 200,
      body: {
        wallet,
        earned_atomic: b.earned.toString(),
        settled_atomic: b.settled.toString(),
        withdrawable_atomic: b.withdrawable.toString(),
        spent_atomic: b.spent.toString(),
        // A wallet that sells nothing would be paid on its own chain's family default.
        payout_chain: b.payoutChain ?? (walletKind(wallet) === 'solana' ? 'solana' : 'base'),
        endpoints_count: b.endpointsCount,
        ...(seller ? { payouts: await recentPayouts(em, seller.wallet, seller.id) } : {}),
        ...(ctx.apiKey ? { scopes: ctx.apiKey.scopes } : {}),
      },
    };
  };
}
