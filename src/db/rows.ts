/**
 * The rows raw SQL returns (the stores' `select ... returning` shapes), in one place beside the
 * entities whose tables they read. They differ from the entities on purpose: snake_case column
 * names as SQL returns them, times as Unix seconds, amounts as decimal text (numeric(78,0) never
 * goes through a float). Each store owns the column list that produces its row.
 */
import type { PayoutChain } from '../chains/payout-sender.ts';
import type { EndpointMode, EndpointStatus, PayoutStatus, ProbeResult, SellerStatus } from './entities.ts';

/** A seller (seller-store.ts). */
export interface SellerRow {
  id: number;
  wallet: string;
  slug: string;
  payout_chain: string;
  status: SellerStatus;
  created_at: string;
}

/** A seller endpoint (endpoint-store.ts). */
export interface EndpointRow {
  id: number;
  seller_id: number;
  slug: string;
  path_suffix: string;
  upstream_url: string;
  atomic_price: string;
  unit: string;
  desc: string;
  mode: string;
  sample_body: unknown;
  status: EndpointStatus;
  consecutive_failures: number;
  consecutive_successes: number;
  probe_attempts: number;
  degraded_at_s: string | null;
  last_probe: ProbeResult | null;
  created_at: string;
  deleted_at: string | null;
}

/** The columns a paid call needs of its endpoint (seller-store.ts findLiveEndpoint). */
export interface LiveEndpoint {
  id: number;
  seller_id: number;
  status: string;
  mode: EndpointMode;
  upstream_url: string;
  atomic_price: string;
  desc: string;
  sample_body: unknown;
}

/** A payout as the worker reads it (payout-store.ts; amount as decimal text). */
export interface PayoutRow {
  id: number;
  seller_id: number;
  wallet: string;
  chain: PayoutChain;
  amount: string;
  status: PayoutStatus;
  tx: string | null;
  raw: string | null;
  valid_until: string | null;
  error: string | null;
  settlement_day: string | null;
  attempts: number;
  /** Seconds since the transaction was broadcast (null: not broadcast yet). */
  broadcast_age_s: number | null;
  created_at: string;
}

/** A consumed receipt as the gate reads it (receipt-store.ts; the primary receipt when the key was an alias). */
export interface ReceiptRow {
  receipt_key: string;
  fingerprint: string;
  alias_of: string | null;
  state: string;
  payment_id: string | null;
  lease_active: boolean;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: Buffer | Uint8Array | null;
}
