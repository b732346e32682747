/**
 * On-chain verification of a transfer (EVM tx hash, Solana signature): what arrived in payTo,
 * read from the chain (Transfer events, Solana token-balance deltas), never from the proof.
 * The quote (window and amount) is judged apart (judgeOffer), because each rail needs it differently.
 */
import type { ChainAdapter, TokenTransfer, TxLookup } from '../chains/chain-adapter.ts';
import { refusal, type Refusal } from './refusal.ts';
import type { QuotedOffer } from './quote-store.ts';

export interface ArrivedPayment {
  ok: true;
  tx: string;
  payer: string;
  /** USDC that arrived in payTo in this transaction (atomic units). */
  amount: bigint;
  blockTime: number;
}

export interface PollOptions {
  timeoutMs: number;
  intervalMs: number;
}

export interface OfferWindow {
  /** The request's recent quotes: issue time (unix seconds) and the amount each asked. */
  offers: QuotedOffer[];
  /** Seconds a quote stays valid for the scheme used (60 exact / spl-transfer, 30 authorization). */
  maxTimeoutSeconds: number;
  /** Tolerated difference between block timestamps and this server's clock. */
  skewSeconds: number;
}

/** The quote a payment was accepted against: its amount is the ledger's `quoted_amount`. */
export interface MatchedOffer {
  ok: true;
  quotedAmount: bigint;
}

const sameAddress = (network: string, a: string, b: string) => (network === 'solana' ? a === b : a.toLowerCase() === b.toLowerCase());

/** Polls until the transaction is final or the bound passes: confirmations take ~1-2 s. */
export async function pollTransaction(adapter: ChainAdapter, id: string, poll: PollOptions): Promise<TxLookup> {
  const deadline = Date.now() + poll.timeoutMs;
  for (;;) {
    const found = await adapter.getTransaction(id);
    if (found.status === 'confirmed' || found.status === 'reverted') return found;
    if (Date.now() + poll.intervalMs > deadline) return found;
    await new Promise((r) => setTimeout(r, poll.intervalMs));
  }
}

/**
 * A transfer pays for a request only when that request was quoted before the transfer's block
 * and the block came within that quote's lifetime. Anyone can see a transfer to payTo; requiring
 * a quote issued before it means a watcher cannot point it at a request of its own afterwards.
 *
 * A quote is the offer: the payment is judged against the amounts of the quotes live at its
 * time (issued before it, not yet expired), never against the price at payment time, so a
 * seller that changes its price after quoting can neither strand a buyer who pays the quote
 * (raised price) nor let one pay less than every live quote asked (lowered price, not quoted yet).
 */
export function judgeOffer(paidAt: number, paid: bigint, w: OfferWindow): MatchedOffer | Refusal {
  if (w.offers.length === 0) {
    return refusal('quote_expired', 'No quote was issued for this request: call it without payment proof first, pay the quote, then retry the identical request with the proof.');
  }
  const before = w.offers.filter((o) => o.at <= paidAt + w.skewSeconds);
  if (before.length === 0) {
    return refusal('quote_expired', 'The payment was made before this request was quoted; a payment counts only for a request quoted before it.');
  }
  const live = before.filter((o) => paidAt <= o.at + w.maxTimeoutSeconds);
  if (live.length === 0) {
    const quoted = Math.max(...before.map((o) => o.at));
    return refusal('quote_expired', `The payment was made ${paidAt - quoted} s after the quote; quotes are valid for ${w.maxTimeoutSeconds} s. Payments are not refunded.`);
  }
  return matchOffer(live.map((o) => o.amount), paid);
}

/**
 * Which of the offered amounts a payment accepts: the highest one it covers (overpaying is
 * accepted, as ever). Paying less than every offer is `amount_mismatch`: a buyer never pays
 * less than the lowest price quoted for its request, nor a price nobody quoted.
 */
export function matchOffer(amounts: bigint[], paid: bigint): MatchedOffer | Refusal {
  const covered = amounts.filter((a) => a <= paid);
  if (covered.length === 0) {
    const least = amounts.reduce((m, a) => (a < m ? a : m));
    return refusal('amount_mismatch', `Paid ${paid} but the quote requires ${least} (USDC atomic units).`);
  }
  return { ok: true, quotedAmount: covered.reduce((m, a) => (a > m ? a : m)) };
}

/** Picks the USDC that arrived in payTo out of a confirmed transaction. */
export function judgeTransfers(adapter: ChainAdapter, transfers: TokenTransfer[]): { ok: true; payer: string; amount: bigint } | Refusal {
  const n = adapter.network;
  const isUsdc = (t: TokenTransfer) => sameAddress(n, t.token, adapter.usdc);
  const toUs = (t: TokenTransfer) => sameAddress(n, t.to, adapter.payTo);
  const paid = transfers.filter((t) => isUsdc(t) && toUs(t));
  if (paid.length === 0) {
    if (transfers.some(isUsdc)) return refusal('wrong_recipient', `The USDC in this transaction went to an address other than ${adapter.payTo}.`);
    if (transfers.length) return refusal('wrong_asset', `The transaction moved a token other than USDC (${adapter.usdc}).`);
    return refusal('invalid_payment', 'The transaction contains no token transfer.');
  }
  return { ok: true, payer: paid[0].from, amount: paid.reduce((sum, t) => sum + t.value, 0n) };
}

/** What a confirmed transaction paid into payTo; a missing, pending or failed one is a refusal. */
export async function readArrivedPayment(adapter: ChainAdapter, tx: string, poll: PollOptions): Promise<ArrivedPayment | Refusal> {
  const found = await pollTransaction(adapter, tx, poll);
  if (found.status === 'not_found' || found.status === 'pending') {
    return refusal('payment_unconfirmed', `Transaction ${tx} is not confirmed on ${adapter.network} yet; retry the same X-Payment after a block.`);
  }
  if (found.status === 'reverted') return refusal('invalid_payment', `Transaction ${tx} failed on ${adapter.network}; nothing was paid.`);
  if (found.viaAuthorization) {
    return refusal('invalid_payment', `Transaction ${tx} moved USDC through an EIP-3009 authorization; present that authorization ({signature, authorization} or X-Session-Token), not the transaction hash.`);
  }
  const judged = judgeTransfers(adapter, found.transfers);
  return judged.ok ? { ok: true, tx, payer: judged.payer, amount: judged.amount, blockTime: found.blockTime } : judged;
}
