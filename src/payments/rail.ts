/**
 * What every payment rail gets and returns. A rail turns one kind of proof into either a
 * settled receipt (held by this request, ledger row written with the amount the chain shows)
 * or a refusal with a reason from REFUSAL_REASONS. Rails never throw for a bad proof.
 */
import type { Network } from '../chains/chain-adapter.ts';
import type { ChainAdapterSet } from '../chains/create-chain-adapters.ts';
import type { Logger } from '../log.ts';
import type { QuoteStore } from './quote-store.ts';
import type { GateOutcome, LedgerEntry, ReceiptGate } from './receipt-gate.ts';
import type { Refusal } from './refusal.ts';
import type { PollOptions } from './verify-payment.ts';

export interface RailDeps {
  adapters: ChainAdapterSet;
  quotes: QuoteStore;
  gate: ReceiptGate;
  poll: PollOptions;
  /** Tolerated difference between block timestamps and this server's clock (seconds). */
  clockSkewSeconds: number;
  log: Logger;
}

/** The request a proof is presented for. */
export interface RailRequest {
  fingerprint: string;
  /** What a quote asks now (USDC atomic units). A payment is judged against the quotes live at its time (judgeOffer). */
  amount: bigint;
  /** The ledger row for a payment that arrived: the amount always comes from the chain, `quotedAmount` from the offer it accepted. */
  ledgerFor(network: Network, tx: string, payer: string, amount: bigint, quotedAmount: bigint): LedgerEntry;
}

export interface Settled {
  ok: true;
  key: string;
  tx: string;
  payer: string;
  network: Network;
  outcome: GateOutcome;
}

/** `finalKey`: the refusal is final for this receipt (stored as its answer, replayed on every retry). */
export type RailResult = Settled | (Refusal & { finalKey?: string });

export const nowSeconds = () => Math.floor(Date.now() / 1000);
