/**
 * The spec's receipts for a transfer the buyer already made: EVM `{tx_hash}` and Solana
 * `{signature, from, to, amount, mint}`. Everything is read from the chain (the claimed fields
 * of a Solana receipt are ignored). Anyone can see a transfer to payTo, so a transfer pays
 * only for a request quoted before its block, at the amount of a quote live at its block (the
 * quote is the offer); see docs/decisions.md for the race that remains.
 */
import type { Receipt } from './receipt.ts';
import { receiptKey } from './receipt.ts';
import type { RailDeps, RailRequest, RailResult } from './rail.ts';
import { TIMEOUT_SECONDS } from './quote.ts';
import { judgeOffer, readArrivedPayment } from './verify-payment.ts';

export async function settleTxReceipt(deps: RailDeps, req: RailRequest, receipt: Extract<Receipt, { kind: 'evm-tx' | 'solana-tx' }>): Promise<RailResult> {
  const { network } = receipt;
  const key = receiptKey(receipt);
  const tx = receipt.kind === 'evm-tx' ? receipt.txHash : receipt.signature;
  // The request's quotes are read beside the receipt's row (two reads in flight at once, on two
  // pooled connections: one round trip of waiting instead of two on a new receipt's path). A
  // replay ignores them.
  const offersRead = deps.quotes.offers(req.fingerprint);
  offersRead.catch(() => undefined);
  const known = await deps.gate.check(key, req.fingerprint);
  if (known?.kind === 'replay') return { ok: true, key, tx, payer: '', network, outcome: known };
  // A crashed run taken over by check() was accepted before (consumed with its ledger row).
  if (known) return { ok: true, key, tx, payer: known.payment?.payer ?? '', network, outcome: known };

  const arrived = await readArrivedPayment(deps.adapters[network], tx, deps.poll);
  if (!arrived.ok) return arrived;

  // The quotes live at the block decide, at their own amounts: a price changed since is not this payment's.
  const judge = (offers: Awaited<typeof offersRead>) =>
    judgeOffer(arrived.blockTime, arrived.amount, { offers, maxTimeoutSeconds: TIMEOUT_SECONDS[receipt.scheme], skewSeconds: deps.clockSkewSeconds });
  let offer = judge(await offersRead);
  // Quotes recorded while the chain was read (a re-quote racing its own payment) are seen as
  // before: a refusal is judged again on the quotes as they are now.
  if (!offer.ok) offer = judge(await deps.quotes.offers(req.fingerprint));
  if (!offer.ok) return offer;
  const outcome = await deps.gate.consume(key, network, req.fingerprint, req.ledgerFor(network, tx, arrived.payer, arrived.amount, offer.quotedAmount));
  return { ok: true, key, tx, payer: arrived.payer, network, outcome };
}
