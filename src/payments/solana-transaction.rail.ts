/**
 * The x402 reference Solana payload `{transaction}`: a partially signed USDC transfer the
 * service co-signs as fee payer. It is checked and co-signed first, which fixes its
 * transaction id; the receipt is reserved under that id and only then is the transaction
 * broadcast, so nobody can present it as a signature receipt and it is sent at most once.
 * It settles only once the chain shows it succeeded and what arrived in payTo; one that
 * landed and failed is refused for good (a signed transaction can never succeed later).
 */
import {  type PreparedSolanaTransfer } from '../chains/chain-adapter.ts';
import { ChainError } from '../chains/chain-error.ts';
import { txKey, type Receipt } from './receipt.ts';
import { refusal, type RefusalReason } from './refusal.ts';
import { nowSeconds, type RailDeps, type RailRequest, type RailResult } from './rail.ts';
import { TIMEOUT_SECONDS } from './quote.ts';
import { judgeOffer, matchOffer, readArrivedPayment } from './verify-payment.ts';

const REASON_BEFORE_BROADCAST: Record<string, RefusalReason> = { wrong_mint: 'wrong_asset', wrong_destination: 'wrong_recipient' };

export async function settleSolanaTransaction(deps: RailDeps, req: RailRequest, receipt: Extract<Receipt, { kind: 'solana-transaction' }>): Promise<RailResult> {
  const solana = deps.adapters.solana;
  let prepared: PreparedSolanaTransfer;
  try {
    prepared = await solana.prepareTransfer(receipt.transaction);
  } catch (e) {
    if (!(e instanceof ChainError)) throw e;
    return refusal(REASON_BEFORE_BROADCAST[e.reason] ?? 'invalid_payment', `The transaction was refused before broadcast: ${e.reason}: ${e.message}`);
  }
  const key = txKey('solana', prepared.signature);
  const settled = (outcome: Extract<RailResult, { ok: true }>['outcome'], payer = prepared.from) => ({ ok: true as const, key, tx: prepared.signature, payer, network: 'solana' as const, outcome });

  const known = await deps.gate.check(key, req.fingerprint);
  if (known && (known.kind === 'replay' || known.paymentId !== null)) return settled(known);
  const offers = await deps.quotes.offers(req.fingerprint);
  // The fee payer spends SOL on this: only for a transfer that covers a quote of this request
  // live now, at that quote's amount. A reservation taken over (known) was judged when it was
  // made: any amount offered for the request will do.
  const offer = known ? matchOffer([req.amount, ...offers.map((o) => o.amount)], prepared.amount) : judgeOffer(nowSeconds(), prepared.amount, { offers, maxTimeoutSeconds: TIMEOUT_SECONDS.exact, skewSeconds: deps.clockSkewSeconds });
  if (!offer.ok) return offer;
  // known = a reservation whose run crashed before its ledger row: sending the same signed
  // transaction again is harmless (the chain keeps one), so settle it from here.
  const outcome = known ?? (await deps.gate.reserve(key, 'solana', req.fingerprint));
  if (outcome.kind === 'replay' || outcome.paymentId !== null) return settled(outcome);

  try {
    await prepared.broadcast();
  } catch (e) {
    if (!(e instanceof ChainError)) {
      await deps.gate.release(key);
      throw e;
    }
    if (e.reason === 'reverted') {
      return { ...refusal('invalid_payment', `The transfer landed on solana and failed (${e.message}); nothing was paid and this transaction can never pay.`), finalKey: key };
    }
    if (e.reason === 'confirmation_timeout') {
      await deps.gate.abandon(key);
      return refusal('payment_unconfirmed', 'The transfer was sent but is not confirmed yet; retry the same proof in a moment.');
    }
    if (e.reason !== 'already_processed') {
      await deps.gate.release(key);
      return refusal('invalid_payment', `The transfer did not land on solana: ${e.reason}: ${e.message}`);
    }
    // already_processed: it landed before (a retry after a crash) and succeeded; read it below.
  }

  const arrived = await readArrivedPayment(solana, prepared.signature, deps.poll);
  if (!arrived.ok) {
    if (arrived.reason === 'payment_unconfirmed') {
      await deps.gate.abandon(key);
      return arrived;
    }
    return { ...arrived, finalKey: key };
  }
  if (arrived.amount < offer.quotedAmount) {
    return { ...refusal('amount_mismatch', `${arrived.amount} arrived in payTo but the quote requires ${offer.quotedAmount}.`), finalKey: key };
  }
  await deps.gate.settle(key, req.ledgerFor('solana', prepared.signature, arrived.payer, arrived.amount, offer.quotedAmount), []);
  return settled(outcome, arrived.payer);
}
