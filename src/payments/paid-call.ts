/**
 * The x402 paid call behind the payments port (sellable.ts), shared by the built-in tools and
 * seller endpoints (and any later caller that can name a proof and a fingerprint):
 *   no proof -> 402 quote (recorded with the request fingerprint)
 *   proof    -> decode -> the proof's rail (tx-receipt, evm-authorization, solana-transaction):
 *               gate (replay / 409 / wait) -> verify or settle on chain -> receipt consumed +
 *               ledger row (amount read from the chain, take rate from the payee) -> run
 *               (bounded attempts; a seller's ledger row marked from the outcome) -> store answer.
 */
import type { Network } from '../chains/chain-adapter.ts';
import type { ChainAdapterSet } from '../chains/create-chain-adapters.ts';
import { AppError } from '../http/app-error.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { runAndMark, type MarkDelivery } from './delivery.ts';
import { settleEvmAuthorization } from './evm-authorization.rail.ts';
import { buildQuote, type PaymentQuote } from './quote.ts';
import type { QuoteStore } from './quote-store.ts';
import type { RailDeps, RailRequest, RailResult, Settled } from './rail.ts';
import { decodePaymentHeader, decodeSessionToken, type Receipt } from './receipt.ts';
import type { ClaimScope, LedgerEntry, ReceiptGate, StoredAnswer } from './receipt-gate.ts';
import type { PaymentProof, Payments, RunAnswer, SaleRequest, Sellable, SoldAnswer } from './sellable.ts';
import { settleSolanaTransaction } from './solana-transaction.rail.ts';
import { takeBpsFor } from './take-rate.ts';
import { teeAnswer } from './tee-answer.ts';
import { settleTxReceipt } from './tx-receipt.rail.ts';
import { decodePaymentSignature, paymentRequiredHeader, paymentResponseHeaders } from './x402-v2.ts';
import type { Lru } from '../lib/lru.ts';
import { Readable } from 'node:stream';
import { PAYMENT_IDENTIFIER, paymentIdentifierExtension, paymentIdentifierOf, type PaymentIdentifier } from './payment-identifier.ts';

export interface PaidCallDeps extends RailDeps {
  /** A function: with PORT=0 the public URL is known only once the server listens. */
  publicBaseUrl: () => string;
  adapters: ChainAdapterSet;
  quotes: QuoteStore;
  gate: ReceiptGate;
  /** Marks a seller's ledger row delivered or not (delivery.ts keeps the rule). */
  markDelivery: MarkDelivery;
  /**
   * The stored answer of a run that failed (http/errors.ts toErrorAnswer): a retry with the same
   * receipt replays it. Given, not imported: the caller decides how its failures are answered.
   */
  errorAnswer: (err: unknown, requestId: string) => { status: number; headers: Record<string, string>; body: Record<string, unknown> };
  log: Logger;
  metrics?: Metrics;
  /** A streamed answer up to this size is also stored for replays (default 10 MB). */
  maxStoredAnswerBytes?: number;
  /**
   * Binds a payment-identifier id to its first payload and request (payment-identifier.ts):
   * `conflict` when the id was first seen with anything else.
   */
  bindIdentifier: (b: PaymentIdentifier & { fingerprint: string }) => Promise<'bound' | 'same' | 'conflict'>;
  /** Serialized unpaid 402 answers, reused while what they price is unchanged (see quoteAnswer). */
  quoteAnswers?: Lru<string, QuoteAnswer>;
}

export interface QuoteAnswer {
  bazaar: object | undefined;
  headers: Record<string, string>;
  body: Buffer;
}

/** The payments port over these dependencies. */
export const createPayments = (deps: PaidCallDeps): Payments => ({
  sell: (sellable, request) => sell(deps, sellable, request),
  quoteForUnit: (e) => quoteForUnit(deps, e),
});

/** What the buyer pays for this request: the unit price, charged per page or once. */
const amountOf = ({ price }: Sellable): bigint => (price.unit === 'page' ? price.unitPrice * BigInt(price.pages) : price.unitPrice);

const quoteChains = ({ adapters: { base, polygon, solana } }: PaidCallDeps) => ({ base, polygon, solana: { usdc: solana.usdc, payTo: solana.payTo, feePayer: solana.feePayer } });

function quoteFor(deps: PaidCallDeps, p: Sellable, error?: string): PaymentQuote {
  return buildQuote(
    quoteChains(deps),
    deps.publicBaseUrl(),
    { resource: `${deps.publicBaseUrl()}${p.path}`, description: p.description, mimeType: p.mimeType, amount: amountOf(p), perPagePrice: p.price.unitPrice, estimatedPages: p.price.pages },
    error,
  );
}

/** The quote of one unit of an endpoint (discovery lists these). */
export const quoteForUnit = (deps: PaidCallDeps, e: { path: string; description: string; price: bigint; mimeType?: string }): PaymentQuote =>
  buildQuote(quoteChains(deps), deps.publicBaseUrl(), { resource: `${deps.publicBaseUrl()}${e.path}`, description: e.description, mimeType: e.mimeType ?? 'application/json', amount: e.price, perPagePrice: e.price, estimatedPages: 1 });

const JSON_TYPE = 'application/json; charset=utf-8';

const decodeProof = (proof: PaymentProof): Receipt =>
  proof.kind === 'x-payment' ? decodePaymentHeader(proof.value) : proof.kind === 'payment-signature' ? decodePaymentSignature(proof.value) : decodeSessionToken(proof.value);

export async function sell(deps: PaidCallDeps, p: Sellable, request: SaleRequest): Promise<SoldAnswer> {
  const amount = amountOf(p);
  if (!request.proof) {
    // The 402 leaves only once its quote is committed: a buyer may pay it at once, on any
    // instance, across a crash. A quote that cannot be written fails the call (503 when the
    // database is down): no offer goes out that nobody keeps.
    await deps.quotes.record({ fingerprint: request.fingerprint, resource: p.path, endpointKey: p.endpointKey, amount, pages: p.price.pages, createdAt: new Date() });
    deps.metrics?.quotes.inc({ endpoint: p.endpointKey });
    return quoteAnswer(deps, p);
  }

  let receipt: Receipt;
  let identifier: PaymentIdentifier | null;
  try {
    receipt = decodeProof(request.proof);
    identifier = paymentIdentifierOf(request.proof);
  } catch (e) {
    if (e instanceof AppError) return refuse(deps, p, 'unknown', { ok: false, reason: 'invalid_payment', message: e.message });
    throw e;
  }
  // Before any chain work (the spec's lost-response recovery): the same id with the same payload
  // and request goes on to the receipt gate, which replays its answer; anything else is refused.
  if (identifier && (await deps.bindIdentifier({ ...identifier, fingerprint: request.fingerprint })) === 'conflict') {
    deps.metrics?.payments.inc({ network: receipt.network, result: 'payment_identifier_conflict' });
    throw new AppError('payment_identifier_conflict', 409, `The payment-identifier id ${identifier.id} was first sent with another payment or request.`, {
      hint: 'Use a new id for a new payment; resend the identical payment and request to get its answer.',
    });
  }

  // The amount the chain shows arrived, as written to the ledger row (money-in metrics count it once).
  let arrived = null as bigint | null;
  const req: RailRequest = {
    fingerprint: request.fingerprint,
    amount,
    ledgerFor: (network, tx, payer, paid, quotedAmount) => ledgerFor(p, network, tx, payer, (arrived = paid), quotedAmount, request.buyerWallet),
  };
  const verifying = performance.now();
  // An unexpected failure (or a refusal) while this request may hold the receipt: its lease is
  // no longer renewed, so a retry takes it over within one lease, as after a crash.
  const claims = deps.gate.claims();
  let result: RailResult;
  try {
    result = await claims.run(() => settleWith(deps, req, receipt));
  } catch (err) {
    claims.letGo();
    throw err;
  }
  if (!result.ok) claims.letGo();
  const outcome = !result.ok ? 'refused' : result.outcome.kind === 'replay' ? 'replay' : 'accepted';
  deps.metrics?.paymentVerification.observe({ network: receipt.network, rail: receipt.kind, outcome }, (performance.now() - verifying) / 1000);
  if (!result.ok) return refuse(deps, p, receipt.network, result);

  deps.metrics?.payments.inc({ network: result.network, result: result.outcome.kind === 'replay' ? 'replay' : 'accepted' });
  if (outcome === 'accepted' && arrived !== null) {
    deps.metrics?.paidCalls.inc({ network: result.network, endpoint: p.endpointKey });
    deps.metrics?.moneyIn.inc({ network: result.network, endpoint: p.endpointKey }, Number(arrived));
  }
  if (result.outcome.kind === 'replay') {
    request.log.info('payment replay', { receipt: result.key });
    return replay(result.outcome.answer);
  }
  request.log.info('payment accepted', { receipt: result.key, network: result.network, payer: result.payer, tx: result.tx });
  return runOnce(deps, request, result, p, claims).catch((err: unknown) => {
    claims.letGo();
    throw err;
  });
}

function settleWith(deps: RailDeps, req: RailRequest, receipt: Receipt): Promise<RailResult> {
  switch (receipt.kind) {
    case 'evm-tx':
    case 'solana-tx':
      return settleTxReceipt(deps, req, receipt);
    case 'evm-authorization':
      return settleEvmAuthorization(deps, req, receipt);
    case 'solana-transaction':
      return settleSolanaTransaction(deps, req, receipt);
  }
}

/** A refused proof: 402 with the quote and the reason; a final refusal is also stored as the receipt's answer. */
async function refuse(deps: PaidCallDeps, p: Sellable, network: string, r: Extract<RailResult, { ok: false }>): Promise<never> {
  deps.metrics?.payments.inc({ network, result: r.reason });
  const quote = quoteFor(deps, p, r.reason);
  const body = { ...quote, error: r.reason, message: r.message };
  const headers = paymentRequiredHeader(quote, extensionsOf(p));
  if (r.finalKey) await deps.gate.complete(r.finalKey, { status: 402, headers: { ...headers, 'content-type': JSON_TYPE }, body: Buffer.from(JSON.stringify(body)) });
  throw new AppError(r.reason, 402, r.message, { body, headers });
}

/** The 402's v2 extensions: how to call the endpoint (bazaar) and the idempotency id it honours. */
const extensionsOf = (p: Sellable) => ({ ...(p.bazaar ? { bazaar: p.bazaar } : {}), [PAYMENT_IDENTIFIER]: paymentIdentifierExtension });

/**
 * The unpaid 402 answer. Unpaid calls are the hot path and a quote depends only on what is
 * priced, not on who asks, so the serialized body and PAYMENT-REQUIRED header are built once
 * per (endpoint, amount, pages) and reused. The bazaar extension is compared by identity: a
 * caller that builds it per request (seller endpoints) simply gets a fresh answer.
 */
function quoteAnswer(deps: PaidCallDeps, p: Sellable): SoldAnswer {
  const key = `${deps.publicBaseUrl()}|${p.path}|${amountOf(p)}|${p.price.unitPrice}|${p.price.pages}|${p.mimeType}|${p.description}`;
  let cached = deps.quoteAnswers?.get(key);
  if (!cached || cached.bazaar !== p.bazaar) {
    const quote = quoteFor(deps, p);
    cached = { bazaar: p.bazaar, headers: { ...paymentRequiredHeader(quote, extensionsOf(p)), 'content-type': JSON_TYPE }, body: Buffer.from(JSON.stringify(quote)) };
    deps.quoteAnswers?.set(key, cached);
  }
  return { status: 402, headers: cached.headers, body: cached.body };
}

const replay = (answer: StoredAnswer): SoldAnswer => ({ status: answer.status, headers: { ...answer.headers, 'x-idempotent-replay': 'true' }, body: answer.body });

/**
 * A failure that would repeat on the same bytes (a document error, the time limit) is the
 * final answer, and so is an upstream that timed out or kept failing (the proxy retried it
 * already; the spec says neither is refundable). Others may be retried with the same receipt.
 */
const FINAL_5XX = new Set(['processing_timeout', 'upstream_timeout', 'upstream_5xx']);
const isFinalFailure = (err: unknown) => err instanceof AppError && (err.status < 500 || FINAL_5XX.has(err.code));

async function runOnce(deps: PaidCallDeps, request: SaleRequest, s: Settled, p: Sellable, claims: ClaimScope): Promise<SoldAnswer> {
  const begun = s.outcome.kind === 'claimed' && s.outcome.runCounted ? ({ kind: 'run' } as const) : await deps.gate.beginRun(s.key);
  if (begun.kind === 'replay') {
    request.log.warn('paid run attempts exhausted: replaying the last failure', { receipt: s.key });
    return replay(begun.answer);
  }
  const paymentResponse = paymentResponseHeaders(s);
  let result: RunAnswer;
  try {
    result = await runAndMark(deps.markDelivery, p.payee, s.key, request.log, () => p.run({ tx: s.tx, payer: s.payer, network: s.network, receipt: s.key }));
  } catch (err) {
    const failure = deps.errorAnswer(err, request.requestId);
    const answer: StoredAnswer = { status: failure.status, headers: { ...failure.headers, 'content-type': JSON_TYPE, ...paymentResponse }, body: Buffer.from(JSON.stringify(failure.body)) };
    if (isFinalFailure(err)) await deps.gate.complete(s.key, answer);
    else await deps.gate.abandon(s.key, answer);
    if (err instanceof AppError) err.extra.headers = { ...(err.extra.headers ?? {}), ...paymentResponse };
    throw err;
  }
  const headers: Record<string, string> = { 'content-type': JSON_TYPE, ...(result.headers ?? {}), ...paymentResponse };
  if (result.body instanceof Readable) return streamOnce(deps, request, s, { status: result.status, headers, body: result.body }, claims);
  const body = Buffer.isBuffer(result.body) ? result.body : typeof result.body === 'string' ? Buffer.from(result.body) : Buffer.from(JSON.stringify(result.body ?? null));
  const answer: StoredAnswer = { status: result.status, headers, body };
  if (result.status >= 500) await deps.gate.abandon(s.key, answer);
  else {
    const done = await deps.gate.complete(s.key, answer);
    // This run lost its lease (it stalled past it) and the run that took over has answered
    // already: the buyer gets that one answer, the same every replay gives.
    if (!done.stored && done.answer) return replay(done.answer);
  }
  return { status: answer.status, headers: answer.headers, body: answer.body };
}

/**
 * A streamed answer (a proxied upstream) goes to the buyer as it arrives; once it has ended it
 * becomes the receipt's stored answer, so a retry replays it without calling the upstream
 * again. One larger than `maxStoredAnswerBytes` is streamed once: a retry gets 409 saying so
 * (the call ran and was answered; the service keeps no copy of large answers).
 */
function streamOnce(deps: PaidCallDeps, request: SaleRequest, s: Settled, answer: { status: number; headers: Record<string, string>; body: Readable }, claims: ClaimScope): SoldAnswer {
  const { stream, stored } = teeAnswer(answer.body, deps.maxStoredAnswerBytes ?? 10 * 1024 * 1024);
  void stored.then(async (copy) => {
    const final: StoredAnswer = copy
      ? { status: answer.status, headers: answer.headers, body: copy }
      : {
          status: 409,
          headers: { 'content-type': JSON_TYPE, 'x-payment-response': answer.headers['x-payment-response'], 'payment-response': answer.headers['payment-response'] },
          body: Buffer.from(JSON.stringify({ error: 'tx_already_consumed', message: 'This payment already bought this call; its answer was larger than the service stores for replays (or broke off midway) and was sent once.' })),
        };
    if (answer.status >= 500 && copy) await deps.gate.abandon(s.key, final);
    else await deps.gate.complete(s.key, final);
  }).catch((err: unknown) => {
    claims.letGo();
    request.log.error('storing a streamed answer failed', { err, receipt: s.key });
  });
  return { status: answer.status, headers: answer.headers, body: stream };
}

const ledgerFor = (p: Sellable, network: Network, tx: string, payer: string, amount: bigint, quotedAmount: bigint, buyerWallet: string | null): LedgerEntry => ({
  network,
  tx,
  payer,
  amount,
  // The offer the payment accepted (a live quote), which may differ from today's price after a price change.
  quotedAmount,
  endpointPath: p.path,
  sellerId: p.payee.kind === 'seller' ? p.payee.sellerId : null,
  endpointId: p.payee.kind === 'seller' ? p.payee.endpointId : null,
  takeBps: takeBpsFor(p.payee),
  buyerWallet,
});
