/**
 * The x402 paid call, shared by the built-in tools and seller endpoints:
 *   no proof -> 402 quote (recorded with the request fingerprint)
 *   proof    -> decode -> gate (replay / 409 / wait) -> verify or settle on chain
 *            -> receipt consumed + ledger row in one transaction -> run once -> store answer.
 */
import type { ChainAdapter, Eip3009Authorization, EvmChainAdapter, Network, PreparedSolanaTransfer, SolanaChainAdapter } from '../chains/chain-adapter.ts';
import { ChainError } from '../chains/chain-adapter.ts';
import { AppError } from '../http/app-error.ts';
import type { HandlerResult, RequestContext } from '../http/server.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { buildQuote, TIMEOUT_SECONDS, type PaymentQuote, type Scheme } from './quote.ts';
import type { QuoteStore } from './quote-store.ts';
import { decodePaymentHeader, decodeSessionToken, receiptKey, txKey, type Receipt } from './receipt.ts';
import type { GateOutcome, LedgerEntry, ReceiptGate, StoredAnswer } from './receipt-gate.ts';
import { checkQuoteWindow, verifyTransfer, type PaymentFailure } from './verify-payment.ts';

export interface ChainAdapters {
  base: EvmChainAdapter;
  polygon: EvmChainAdapter;
  solana: SolanaChainAdapter;
}

export interface PaidCallDeps {
  /** A function: with PORT=0 the public URL is known only once the server listens. */
  publicBaseUrl: () => string;
  adapters: ChainAdapters;
  quotes: QuoteStore;
  gate: ReceiptGate;
  poll: { timeoutMs: number; intervalMs: number };
  log: Logger;
  metrics?: Metrics;
}

export interface PaidRequest {
  fingerprint: string;
  /** Path of the resource (the quote's `resource` is the full public URL of it). */
  path: string;
  description: string;
  mimeType: string;
  endpointKey: string;
  amount: bigint;
  perPagePrice: bigint;
  estimatedPages: number;
  sellerId: number | null;
  endpointId: number | null;
  takeBps: number;
  /** The work the buyer pays for; runs at most once per receipt. */
  run: (payment: { tx: string; payer: string; network: Network }) => Promise<HandlerResult>;
}

interface Settled {
  key: string;
  tx: string;
  payer: string;
  network: Network;
  outcome: GateOutcome;
}

export function quoteFor(deps: PaidCallDeps, p: PaidRequest, error?: string): PaymentQuote {
  const { base, polygon, solana } = deps.adapters;
  return buildQuote(
    { base, polygon, solana: { usdc: solana.usdc, payTo: solana.payTo, feePayer: solana.feePayer } },
    deps.publicBaseUrl(),
    { resource: `${deps.publicBaseUrl()}${p.path}`, description: p.description, mimeType: p.mimeType, amount: p.amount, perPagePrice: p.perPagePrice, estimatedPages: p.estimatedPages },
    error,
  );
}

const header = (ctx: RequestContext, name: string) => {
  const v = ctx.req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

export async function paidCall(deps: PaidCallDeps, ctx: RequestContext, p: PaidRequest): Promise<HandlerResult> {
  const xPayment = header(ctx, 'x-payment');
  const sessionToken = header(ctx, 'x-session-token');
  if (!xPayment && !sessionToken) {
    deps.quotes.record({ fingerprint: p.fingerprint, resource: p.path, endpointKey: p.endpointKey, amount: p.amount, pages: p.estimatedPages, createdAt: new Date() });
    deps.metrics?.quotes.inc({ endpoint: p.endpointKey });
    return { status: 402, body: quoteFor(deps, p) };
  }
  let network = 'unknown';
  const refuse = (reason: string, message: string, status = 402): never => {
    deps.metrics?.payments.inc({ network, result: reason });
    throw new AppError(reason, status, message, status === 402 ? { body: { ...quoteFor(deps, p, reason) } } : {});
  };

  let receipt: Receipt;
  try {
    receipt = xPayment ? decodePaymentHeader(xPayment) : decodeSessionToken(sessionToken!);
  } catch (e) {
    if (e instanceof AppError) refuse(e.code, e.message);
    throw e;
  }
  network = receipt.network;

  const settled = await settleReceipt(deps, ctx, p, receipt, refuse);
  deps.metrics?.payments.inc({ network: settled.network, result: settled.outcome.kind === 'replay' ? 'replay' : 'accepted' });
  if (settled.outcome.kind === 'replay') {
    ctx.log.info('payment replay', { receipt: settled.key });
    return replay(settled.outcome.answer);
  }
  ctx.log.info('payment accepted', { receipt: settled.key, network: settled.network, payer: settled.payer, tx: settled.tx });
  return runOnce(deps, settled, p);
}

const replay = (answer: StoredAnswer): HandlerResult => ({ status: answer.status, headers: { ...answer.headers, 'x-idempotent-replay': 'true' }, body: answer.body });

async function runOnce(deps: PaidCallDeps, s: Settled, p: PaidRequest): Promise<HandlerResult> {
  const paymentResponse = Buffer.from(JSON.stringify({ success: true, transaction: s.tx, network: s.network, payer: s.payer })).toString('base64');
  let result: HandlerResult;
  try {
    result = await p.run({ tx: s.tx, payer: s.payer, network: s.network });
  } catch (err) {
    // A failed run (timeout, crash) may be retried with the same receipt: it was paid for.
    await deps.gate.abandon(s.key);
    if (err instanceof AppError) err.extra.headers = { ...(err.extra.headers ?? {}), 'x-payment-response': paymentResponse };
    throw err;
  }
  const body = Buffer.isBuffer(result.body) ? result.body : typeof result.body === 'string' ? Buffer.from(result.body) : Buffer.from(JSON.stringify(result.body ?? null));
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', ...(result.headers ?? {}), 'x-payment-response': paymentResponse };
  const answer: StoredAnswer = { status: result.status, headers, body };
  if (result.status >= 500) await deps.gate.abandon(s.key);
  else await deps.gate.complete(s.key, answer);
  return { status: answer.status, headers: answer.headers, body: answer.body };
}

const ledgerFor = (p: PaidRequest, network: Network, tx: string, payer: string, amount: bigint): LedgerEntry => ({
  network,
  tx,
  payer,
  amount,
  quotedAmount: p.amount,
  endpointPath: p.path,
  sellerId: p.sellerId,
  endpointId: p.endpointId,
  takeBps: p.takeBps,
});

async function settleReceipt(deps: PaidCallDeps, ctx: RequestContext, p: PaidRequest, receipt: Receipt, refuse: (reason: string, message: string, status?: number) => never): Promise<Settled> {
  const adapter: ChainAdapter = deps.adapters[receipt.network];
  const scheme: Scheme = receipt.kind === 'evm-authorization' && receipt.scheme === 'transfer-with-authorization' ? 'transfer-with-authorization' : receipt.network === 'solana' && receipt.scheme === 'spl-transfer' ? 'spl-transfer' : 'exact';
  const quotedAt = () => deps.quotes.lastQuotedAt(p.fingerprint);
  const failed = (f: PaymentFailure): never => refuse(f.reason, f.message);

  if (receipt.kind === 'evm-tx' || receipt.kind === 'solana-tx') {
    const key = receiptKey(receipt);
    const tx = receipt.kind === 'evm-tx' ? receipt.txHash : receipt.signature;
    const known = await deps.gate.check(key, p.fingerprint);
    if (known?.kind === 'replay') return { key, tx, payer: '', network: receipt.network, outcome: known };
    const verified = await verifyTransfer(adapter, tx, { amount: p.amount, maxTimeoutSeconds: TIMEOUT_SECONDS[scheme], quotedAt: await quotedAt() }, deps.poll);
    if (!verified.ok) return failed(verified);
    // A crashed run taken over by check() already has its ledger row.
    const outcome = known ?? (await deps.gate.consume(key, receipt.network, p.fingerprint, ledgerFor(p, receipt.network, tx, verified.payer, verified.amount)));
    return { key, tx, payer: verified.payer, network: receipt.network, outcome };
  }

  if (receipt.kind === 'evm-authorization') {
    const evm = deps.adapters[receipt.network];
    const a = receipt.authorization;
    const key = receiptKey(receipt);
    const known = await deps.gate.check(key, p.fingerprint);
    if (known?.kind === 'replay') return { key, tx: '', payer: a.from, network: receipt.network, outcome: known };
    if (a.to.toLowerCase() !== evm.payTo.toLowerCase()) refuse('wrong_recipient', `The authorization pays ${a.to}, not ${evm.payTo}.`);
    if (BigInt(a.value) < p.amount) refuse('amount_mismatch', `The authorization is for ${a.value} but the quote requires ${p.amount} (USDC atomic units).`);
    const expired = checkQuoteWindow(Math.floor(Date.now() / 1000), { amount: p.amount, maxTimeoutSeconds: TIMEOUT_SECONDS[scheme], quotedAt: await quotedAt() }, Math.floor(Date.now() / 1000));
    if (expired && !known) failed(expired);
    const outcome = known ?? (await deps.gate.reserve(key, receipt.network, p.fingerprint));
    if (outcome.kind === 'replay') return { key, tx: '', payer: a.from, network: receipt.network, outcome };
    if (outcome.paymentId !== null) return { key, tx: outcome.paymentTx ?? '', payer: a.from, network: receipt.network, outcome };
    let settledTx: { txHash: string };
    try {
      settledTx = await settleAuthorization(evm, a, receipt.signature);
    } catch (e) {
      if (e instanceof ChainError && e.reason === 'confirmation_timeout') {
        // Submitted but not yet mined: it may still land, so the reservation stays (its lease
        // runs out) and the same proof retried later finds the settlement on chain.
        await deps.gate.abandon(key);
        refuse('payment_unconfirmed', `The authorization was submitted on ${receipt.network} but is not confirmed yet; retry the same proof after a block.`);
      }
      await deps.gate.release(key);
      if (e instanceof ChainError) refuse('authorization_invalid', `The authorization was refused on ${receipt.network}: ${e.reason} (${e.message}).`);
      throw e;
    }
    ctx.log.info('authorization settled', { network: receipt.network, tx: settledTx.txHash });
    await deps.gate.settle(key, ledgerFor(p, receipt.network, settledTx.txHash, a.from, BigInt(a.value)), [txKey(receipt.network, settledTx.txHash)]);
    return { key, tx: settledTx.txHash, payer: a.from, network: receipt.network, outcome };
  }

  return settleSolanaTransaction(deps, p, receipt, refuse);
}

/**
 * Settles an EIP-3009 authorization. Anyone holding it may submit it, and a run of ours may
 * have crashed after submitting: when the nonce is already used, the transaction that used it
 * is the settlement (the signature fixes payee and value, checked before).
 */
async function settleAuthorization(evm: EvmChainAdapter, a: Eip3009Authorization, signature: string): Promise<{ txHash: string }> {
  try {
    return await evm.submitAuthorization(a, signature);
  } catch (e) {
    if (!(e instanceof ChainError) || e.reason !== 'authorization_used') throw e;
    const txHash = await evm.findAuthorizationTx(a.from, a.nonce);
    if (!txHash) throw new ChainError('authorization_cancelled', `nonce ${a.nonce} of ${a.from} was cancelled, not used for a transfer`);
    return { txHash };
  }
}

/**
 * x402 reference Solana payload: the partially signed transfer is checked and co-signed
 * first, which fixes its transaction id; the receipt is reserved under that id, and only
 * then is the transaction broadcast, so a retried payload can never be sent twice.
 */
async function settleSolanaTransaction(deps: PaidCallDeps, p: PaidRequest, receipt: Extract<Receipt, { kind: 'solana-transaction' }>, refuse: (reason: string, message: string, status?: number) => never): Promise<Settled> {
  const solana = deps.adapters.solana;
  let prepared: PreparedSolanaTransfer;
  try {
    prepared = await solana.prepareTransfer(receipt.transaction);
  } catch (e) {
    if (e instanceof ChainError) {
      const reason = e.reason === 'wrong_mint' ? 'wrong_asset' : e.reason === 'wrong_destination' ? 'wrong_recipient' : 'invalid_payment';
      return refuse(reason, `The transaction was refused before broadcast: ${e.reason}: ${e.message}`);
    }
    throw e;
  }
  const key = txKey('solana', prepared.signature);
  const base = { key, tx: prepared.signature, payer: prepared.from, network: 'solana' as const };
  const known = await deps.gate.check(key, p.fingerprint);
  if (known && (known.kind === 'replay' || known.paymentId !== null)) return { ...base, outcome: known };
  // known = a reservation whose run crashed before its ledger row: broadcasting the same
  // signed transaction again is harmless (the chain keeps one), so settle it from here.
  if (!known) {
    if (prepared.amount < p.amount) refuse('amount_mismatch', `The transfer is for ${prepared.amount} but the quote requires ${p.amount} (USDC atomic units).`);
    const expired = checkQuoteWindow(Math.floor(Date.now() / 1000), { amount: p.amount, maxTimeoutSeconds: TIMEOUT_SECONDS.exact, quotedAt: await deps.quotes.lastQuotedAt(p.fingerprint) }, Math.floor(Date.now() / 1000));
    if (expired) refuse(expired.reason, expired.message);
  }
  const outcome = known ?? (await deps.gate.reserve(key, 'solana', p.fingerprint));
  if (outcome.kind === 'replay' || outcome.paymentId !== null) return { ...base, outcome };
  try {
    await prepared.broadcast();
  } catch (e) {
    const landedBefore = e instanceof ChainError && e.reason === 'already_processed';
    if (!landedBefore) {
      await deps.gate.release(key);
      if (e instanceof ChainError) refuse('invalid_payment', `The transfer did not land on solana: ${e.reason}: ${e.message}`);
      throw e;
    }
  }
  await deps.gate.settle(key, ledgerFor(p, 'solana', prepared.signature, prepared.from, prepared.amount), []);
  return { ...base, outcome };
}
