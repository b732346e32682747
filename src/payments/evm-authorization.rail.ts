/**
 * The EIP-3009 rails: x402 `{signature, authorization}` in X-Payment and the X-Session-Token
 * header. The service settles the authorization itself (its relayer pays the gas), so:
 *  1. the signature must recover to `from` before anything is reserved or submitted;
 *  2. a nonce already used on chain pays only if the transfer made with it moved the quoted
 *     amount from `from` to payTo (read from the chain's events, never from the claim);
 *  3. otherwise the payer's balance at `latest`, minus what its other authorizations in flight
 *     hold, must cover it, so the relayer never pays gas for a transfer that would revert;
 *  4. the relayer's transaction is recorded under its hash before it is broadcast.
 */
import {  type AuthorizationTransfer, type EvmChainAdapter } from '../chains/chain-adapter.ts';
import { ChainError } from '../chains/chain-error.ts';
import type { Receipt } from './receipt.ts';
import type { GateOutcome } from './receipt-gate.ts';
import { receiptKey, txKey } from './receipt.ts';
import { refusal, type Refusal } from './refusal.ts';
import { nowSeconds, type RailDeps, type RailRequest, type RailResult, type Settled } from './rail.ts';
import { TIMEOUT_SECONDS } from './quote.ts';
import { judgeOffer, matchOffer, type MatchedOffer } from './verify-payment.ts';

type AuthorizationReceipt = Extract<Receipt, { kind: 'evm-authorization' }>;

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export async function settleEvmAuthorization(deps: RailDeps, req: RailRequest, receipt: AuthorizationReceipt): Promise<RailResult> {
  const { network, authorization: a } = receipt;
  const evm: EvmChainAdapter = deps.adapters[network];
  const key = receiptKey(receipt);
  const settled = (outcome: Settled['outcome'], tx: string): Settled => ({ ok: true, key, tx, payer: a.from, network, outcome });

  const known = await deps.gate.check(key, req.fingerprint);
  if (known?.kind === 'replay') return settled(known, '');
  if (known && known.paymentId !== null) return settled(known, known.payment?.tx ?? '');

  // Cheap refusals first: nothing on chain is read for an authorization that cannot pay this quote.
  if (!sameAddress(a.to, evm.payTo)) return refusal('wrong_recipient', `The authorization pays ${a.to}, not ${evm.payTo}.`);
  const offer = await offerFor(deps, req, receipt, known !== null);
  if (!offer.ok) return offer;
  const quoted = offer.quotedAmount;

  // Whatever happens below, a reservation taken over (known) is either settled or released.
  const giveUp = async (r: Refusal): Promise<Refusal> => {
    if (known) await deps.gate.release(key);
    return r;
  };

  let check: Awaited<ReturnType<EvmChainAdapter['checkAuthorization']>>;
  try {
    check = await evm.checkAuthorization(a, receipt.signature);
  } catch (e) {
    if (e instanceof ChainError) return giveUp(refusal('authorization_invalid', `The authorization does not verify on ${network}: ${e.reason} (${e.message}).`));
    throw e;
  }

  if (check.state === 'used') {
    const moved = judgeUsedNonce(check.transfer, evm.payTo, quoted);
    if (!moved.ok) return giveUp(moved);
    return settleMoved(deps, req, receipt, key, known ?? (await deps.gate.reserve(key, network, req.fingerprint)), moved.transfer, quoted);
  }

  const outcome = known ?? (await deps.gate.reserveWithin(key, network, req.fingerprint, { payer: a.from, amount: BigInt(a.value), balance: check.balance }));
  if (outcome.kind === 'over_balance') {
    return refusal('authorization_invalid', `${a.from} holds ${check.balance} on ${network} and ${outcome.inFlight} of it is held by authorizations being settled; this one moves ${a.value}.`);
  }
  if (outcome.kind === 'replay') return settled(outcome, '');
  if (outcome.paymentId !== null) return settled(outcome, outcome.payment?.tx ?? '');

  let transfer: AuthorizationTransfer;
  try {
    transfer = await evm.submitAuthorization(a, receipt.signature, { beforeBroadcast: (hash) => deps.gate.alias(key, txKey(network, hash)) });
  } catch (e) {
    if (!(e instanceof ChainError)) {
      await deps.gate.release(key);
      throw e;
    }
    if (e.reason === 'confirmation_timeout') {
      // Submitted but not yet mined: it may still land, so the reservation stays (its lease
      // is given back) and the same proof retried later finds the transfer on chain.
      await deps.gate.abandon(key);
      return refusal('payment_unconfirmed', `The authorization was submitted on ${network} but is not confirmed yet; retry the same proof after a block.`);
    }
    if (e.reason === 'authorization_used') {
      // Someone submitted it between our check and our transaction: that transfer is the payment.
      const moved = judgeUsedNonce(await evm.findAuthorizationTransfer(a.from, a.nonce), evm.payTo, quoted);
      if (moved.ok) return settleMoved(deps, req, receipt, key, outcome, moved.transfer, quoted);
      await deps.gate.release(key);
      return moved;
    }
    await deps.gate.release(key);
    return refusal('authorization_invalid', `The authorization was refused on ${network}: ${e.reason} (${e.message}).`);
  }
  deps.log.info('authorization settled', { network, tx: transfer.txHash, amount: transfer.value });
  return settleMoved(deps, req, receipt, key, outcome, transfer, quoted);
}

/**
 * The offer an authorization accepts. It is the receipt and only its signer can make one, so no
 * quote is needed: unquoted, it pays the current price. Once the request was quoted, a quote
 * must be live now, and the authorization is judged against the live quotes' amounts (the
 * quote is the offer, whatever the price is now). A reservation taken over after a crash was
 * judged when it was made: any amount offered for the request will do.
 */
async function offerFor(deps: RailDeps, req: RailRequest, receipt: AuthorizationReceipt, known: boolean): Promise<MatchedOffer | Refusal> {
  const value = BigInt(receipt.authorization.value);
  const offers = await deps.quotes.offers(req.fingerprint);
  if (known) return matchOffer([req.amount, ...offers.map((o) => o.amount)], value);
  if (offers.length === 0) return matchOffer([req.amount], value);
  const limit = TIMEOUT_SECONDS[receipt.scheme === 'transfer-with-authorization' ? 'transfer-with-authorization' : 'exact'];
  return judgeOffer(nowSeconds(), value, { offers, maxTimeoutSeconds: limit + deps.clockSkewSeconds, skewSeconds: deps.clockSkewSeconds });
}

/** A nonce spent on chain pays only through a transfer of at least the quote from `from` to payTo. */
function judgeUsedNonce(transfer: AuthorizationTransfer | null, payTo: string, amount: bigint): { ok: true; transfer: AuthorizationTransfer } | Refusal {
  if (!transfer) return refusal('authorization_invalid', 'The authorization nonce was cancelled (or used long ago) and moved no USDC to the service.');
  if (!sameAddress(transfer.to, payTo)) return refusal('authorization_invalid', `The authorization nonce was used for a transfer to ${transfer.to}, not to the service.`);
  if (transfer.value < amount) return refusal('amount_mismatch', `The authorization moved ${transfer.value} on chain but the quote requires ${amount} (USDC atomic units).`);
  return { ok: true, transfer };
}

async function settleMoved(
  deps: RailDeps,
  req: RailRequest,
  receipt: AuthorizationReceipt,
  key: string,
  outcome: GateOutcome,
  transfer: AuthorizationTransfer,
  quotedAmount: bigint,
): Promise<RailResult> {
  const base = { ok: true as const, key, tx: transfer.txHash, payer: transfer.from, network: receipt.network };
  if (outcome.kind === 'replay' || outcome.paymentId !== null) return { ...base, outcome };
  await deps.gate.settle(key, req.ledgerFor(receipt.network, transfer.txHash, transfer.from, transfer.value, quotedAmount), [txKey(receipt.network, transfer.txHash)]);
  return { ...base, outcome };
}
