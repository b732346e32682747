/**
 * The port through which a feature sells something: it describes what this request costs, who is
 * paid and how to run it (a Sellable), and hands it with the buyer's request (proof +
 * fingerprint) to `payments.sell`. Payments owns the rest: the quote, verification on every rail,
 * exactly-once, the replay store, the ledger row with its take rate, fee and net, and the rule
 * that a seller is paid only for calls its upstream served.
 *
 * Nothing here is HTTP: a SaleRequest is what any caller can build (src/catalog/sale-request.ts
 * builds it from an HTTP request; an MCP tools/call would build it from a payment in `_meta`),
 * and what `sell` returns is a status, headers and a buffered or streamed body. Failures are
 * AppErrors, the one thing payments shares with HTTP.
 */
import type { Readable } from 'node:stream';
import type { Network } from '../chains/chain-adapter.ts';
import type { Logger } from '../log.ts';
import type { PaymentQuote } from './quote.ts';
import type { SellerMode } from './take-rate.ts';

/** Who is paid: the service itself (a built-in tool) or a seller's endpoint at its mode's take rate. */
export type Payee = { kind: 'service' } | { kind: 'seller'; sellerId: number; endpointId: number; mode: SellerMode };

/** The payment that bought a run; `receipt` is the receipt's key, which names its ledger row. */
export interface PaymentMade {
  tx: string;
  payer: string;
  network: Network;
  receipt: string;
}

/** What a run answers: a body object is sent as JSON; a Buffer or string as is; a Readable is streamed. */
export interface RunAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface Sellable {
  /** Path of the resource (the quote's `resource` is the full public URL of it). */
  path: string;
  description: string;
  mimeType: string;
  /** The metrics label of what is sold (a tool, or `slug/path_suffix`). */
  endpointKey: string;
  /** Per unit (USDC atomic units); a `page` unit is charged `pages` times, a `request` unit once. */
  price: { unitPrice: bigint; unit: 'page' | 'request'; pages: number };
  payee: Payee;
  /** The x402 `bazaar` extension sent with the quote (catalog/bazaar.ts builds it). */
  bazaar?: object;
  /**
   * The work the buyer pays for; runs at most once per receipt (bounded attempts if it fails).
   * A seller's run reports its upstream's outcome by its answer's status or the AppError it
   * throws; payments decides from it whether the seller is paid (delivery.ts).
   */
  run: (payment: PaymentMade) => Promise<RunAnswer>;
}

/** The payment proof as the buyer sent it (the X-PAYMENT, PAYMENT-SIGNATURE or X-Session-Token form). */
export interface PaymentProof {
  kind: 'x-payment' | 'payment-signature' | 'session-token';
  value: string;
}

export interface SaleRequest {
  /** Names the request (method, path, content type, body digest): a receipt buys one request. */
  fingerprint: string;
  /** None: the buyer gets the quote (402). */
  proof?: PaymentProof;
  /** The buyer's wallet (walletKey form) when a `pay` API key named it; the proof still pays. */
  buyerWallet: string | null;
  requestId: string;
  log: Logger;
}

/** What a sale answers: the quote (402), the run's answer, or a replay of the stored one. */
export interface SoldAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer | Readable;
}

export interface Payments {
  sell(sellable: Sellable, request: SaleRequest): Promise<SoldAnswer>;
  /** The quote of one unit of an endpoint (discovery lists these). */
  quoteForUnit(e: { path: string; description: string; price: bigint; mimeType?: string }): PaymentQuote;
}
