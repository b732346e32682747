/**
 * A typed client for paycall, generated from openapi.yaml (openapi-typescript types +
 * openapi-fetch), that pays on 402: a `Payer` picks an entry of the quote, proves payment
 * (signing an authorization, or moving USDC), and the request is retried with the proof.
 * A spend cap (`maxAmount`) and a confirmation hook guard every payment.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from '../src/generated/openapi.ts';

export type PaymentQuote = components['schemas']['PaymentQuote'];
export type AcceptEntry = components['schemas']['AcceptEntry'];

/** Proves payment for one entry of a quote: the headers to retry the request with. */
export interface Payer {
  /** The entry this payer pays with, or undefined when the quote offers none it can use. */
  choose(accepts: AcceptEntry[]): AcceptEntry | undefined;
  prove(entry: AcceptEntry, accepts: AcceptEntry[]): Promise<Record<string, string>>;
}

export type PaymentEvent =
  | { kind: 'quote'; entry: AcceptEntry; amount: bigint }
  | { kind: 'paying'; entry: AcceptEntry }
  | { kind: 'proof-sent'; attempt: number }
  | { kind: 'waiting'; reason: string; attempt: number };

export interface PaycallClientOptions {
  baseUrl: string;
  payer?: Payer;
  /** Never pay more than this (USDC atomic units) for one call. */
  maxAmount?: bigint;
  /** Asked before paying; false declines (PaymentDeclinedError). */
  confirm?: (entry: AcceptEntry, quote: PaymentQuote) => boolean | Promise<boolean>;
  onEvent?: (e: PaymentEvent) => void;
  /** How often a proof the chain has not confirmed yet is retried (default 10, 1 s apart). */
  unconfirmedRetries?: number;
  fetch?: typeof fetch;
}

export class SpendCapError extends Error {
  constructor(
    readonly amount: bigint,
    readonly maxAmount: bigint,
  ) {
    super(`the quote asks ${amount} USDC atomic units, above the spend cap of ${maxAmount}`);
    this.name = 'SpendCapError';
  }
}

export class PaymentDeclinedError extends Error {
  constructor() {
    super('the payment was declined');
    this.name = 'PaymentDeclinedError';
  }
}

export class NoUsableEntryError extends Error {
  constructor(networks: string[]) {
    super(`the quote offers no entry this payer can pay (offered: ${networks.join(', ')})`);
    this.name = 'NoUsableEntryError';
  }
}

const isQuote = (v: unknown): v is PaymentQuote => !!v && typeof v === 'object' && Array.isArray((v as PaymentQuote).accepts);

/** A fetch that answers a 402 by paying (when a payer is set) and retrying the request once with the proof. */
export function payingFetch(opts: Omit<PaycallClientOptions, 'baseUrl'>): (input: Request) => Promise<Response> {
  const base = opts.fetch ?? fetch;
  return async (input) => {
    const retry = input.clone();
    const res = await base(input);
    if (res.status !== 402 || !opts.payer) return res;
    const quote: unknown = await res.clone().json().catch(() => null);
    if (!isQuote(quote)) return res;
    const entry = opts.payer.choose(quote.accepts);
    if (!entry) throw new NoUsableEntryError(quote.accepts.map((a) => `${a.network}/${a.scheme}`));
    const amount = BigInt(entry.maxAmountRequired);
    opts.onEvent?.({ kind: 'quote', entry, amount });
    if (opts.maxAmount !== undefined && amount > opts.maxAmount) throw new SpendCapError(amount, opts.maxAmount);
    if (opts.confirm && !(await opts.confirm(entry, quote))) throw new PaymentDeclinedError();
    opts.onEvent?.({ kind: 'paying', entry });
    const proof = await opts.payer.prove(entry, quote.accepts);
    for (const [name, value] of Object.entries(proof)) retry.headers.set(name, value);
    // The same proof may be retried: the service answers the same call (it runs once).
    const retries = opts.unconfirmedRetries ?? 10;
    for (let attempt = 1; ; attempt++) {
      opts.onEvent?.({ kind: 'proof-sent', attempt });
      const paid = await base(retry.clone());
      if (paid.status !== 402 || attempt > retries) return paid;
      const refusal = (await paid.clone().json().catch(() => null)) as { error?: string } | null;
      if (refusal?.error !== 'payment_unconfirmed') return paid;
      opts.onEvent?.({ kind: 'waiting', reason: refusal.error, attempt });
      await new Promise((r) => setTimeout(r, 1_000));
    }
  };
}

export interface PaycallClient {
  /** Every operation of openapi.yaml, typed. */
  api: Client<paths>;
  /** A paid call with a raw body (a document for the built-ins, JSON for seller endpoints). */
  call(path: string, body: Uint8Array | string, contentType: string): Promise<Response>;
}

export function createPaycallClient(opts: PaycallClientOptions): PaycallClient {
  const pay = payingFetch(opts);
  const baseUrl = opts.baseUrl.replace(/\/+$/, '');
  return {
    api: createClient<paths>({ baseUrl, fetch: pay }),
    call: (path, body, contentType) => pay(new Request(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body })),
  };
}
