/**
 * On-chain verification of a transfer the buyer already made (EVM tx hash, Solana
 * signature). A payment that does not verify is an expected outcome with a stable
 * reason, returned as a PaymentFailure, not thrown.
 */
import type { ChainAdapter, TokenTransfer, TxLookup } from '../chains/chain-adapter.ts';

export type FailureReason = 'payment_unconfirmed' | 'amount_mismatch' | 'wrong_recipient' | 'wrong_asset' | 'quote_expired' | 'invalid_payment';

export interface PaymentFailure {
  ok: false;
  reason: FailureReason;
  message: string;
}

export interface VerifiedPayment {
  ok: true;
  tx: string;
  payer: string;
  amount: bigint;
  blockTime: number;
}

export interface Requirement {
  amount: bigint;
  /** Seconds a quote stays valid for the scheme used (60 exact / spl-transfer, 30 authorization). */
  maxTimeoutSeconds: number;
  /** The last quote for this request, or null (then a payment older than an hour is expired). */
  quotedAt: Date | null;
}

export interface PollOptions {
  timeoutMs: number;
  intervalMs: number;
}

export const fail = (reason: FailureReason, message: string): PaymentFailure => ({ ok: false, reason, message });

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

/** Quote expiry judged on the payment's block time against the last quote. */
export function checkQuoteWindow(blockTime: number, req: Requirement, nowSeconds: number): PaymentFailure | null {
  if (req.quotedAt) {
    const quoted = Math.floor(req.quotedAt.getTime() / 1000);
    if (blockTime > quoted + req.maxTimeoutSeconds) {
      return fail('quote_expired', `The payment was made ${blockTime - quoted} s after the quote; quotes are valid for ${req.maxTimeoutSeconds} s. Payments are not refunded.`);
    }
    if (blockTime < quoted - 3600) return fail('quote_expired', 'The payment is more than an hour older than the quote it is presented for.');
    return null;
  }
  if (blockTime < nowSeconds - 3600) return fail('quote_expired', 'No quote was issued for this request and the payment is more than an hour old.');
  return null;
}

/** Picks the USDC transfer(s) to payTo out of a confirmed transaction and checks them. */
export function judgeTransfers(adapter: ChainAdapter, transfers: TokenTransfer[], req: Requirement, blockTime: number, nowSeconds: number): Omit<VerifiedPayment, 'tx'> | PaymentFailure {
  const n = adapter.network;
  const isUsdc = (t: TokenTransfer) => sameAddress(n, t.token, adapter.usdc);
  const toUs = (t: TokenTransfer) => sameAddress(n, t.to, adapter.payTo);
  const paid = transfers.filter((t) => isUsdc(t) && toUs(t));
  if (paid.length === 0) {
    if (transfers.some(isUsdc)) return fail('wrong_recipient', `The USDC in this transaction went to an address other than ${adapter.payTo}.`);
    if (transfers.length) return fail('wrong_asset', `The transaction moved a token other than USDC (${adapter.usdc}).`);
    return fail('invalid_payment', 'The transaction contains no token transfer.');
  }
  const expired = checkQuoteWindow(blockTime, req, nowSeconds);
  if (expired) return expired;
  const amount = paid.reduce((sum, t) => sum + t.value, 0n);
  if (amount < req.amount) return fail('amount_mismatch', `Paid ${amount} but the quote requires ${req.amount} (USDC atomic units).`);
  return { ok: true, payer: paid[0].from, amount, blockTime };
}

export async function verifyTransfer(adapter: ChainAdapter, tx: string, req: Requirement, poll: PollOptions): Promise<VerifiedPayment | PaymentFailure> {
  const found = await pollTransaction(adapter, tx, poll);
  if (found.status === 'not_found' || found.status === 'pending') {
    return fail('payment_unconfirmed', `Transaction ${tx} is not confirmed on ${adapter.network} yet; retry the same X-Payment after a block.`);
  }
  if (found.status === 'reverted') return fail('invalid_payment', `Transaction ${tx} failed on ${adapter.network}; nothing was paid.`);
  const judged = judgeTransfers(adapter, found.transfers, req, found.blockTime, Math.floor(Date.now() / 1000));
  return judged.ok ? { ...judged, tx } : judged;
}
