/**
 * The persistent domain. Plain interfaces + EntitySchema (no decorators, no reflection),
 * so the shapes are visible at a glance and the same schemas drive the migrations.
 * Timestamps are timestamptz; the API turns them into Unix seconds.
 */
import { EntitySchema } from '@mikro-orm/core';
import { AtomicAmountType } from './atomic-amount.type.ts';

const amount = () => ({ type: AtomicAmountType, columnType: 'numeric(78,0)' }) as const;
const createdAt = () => ({ type: 'datetime', columnType: 'timestamptz', defaultRaw: 'now()' }) as const;
const nullableTime = () => ({ type: 'datetime', columnType: 'timestamptz', nullable: true }) as const;

export type SellerStatus = 'active' | 'suspended';
export type EndpointStatus = 'pending' | 'active' | 'degraded' | 'suspended';
export type EndpointMode = 'paywall' | 'proxy';

/** One probe of an upstream, as probe-upstream.ts makes it and seller_endpoint.last_probe keeps it (JSON). */
export interface ProbeResult {
  /** Unix seconds. */
  at: number;
  region: string;
  ok: boolean;
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
}

export interface Seller {
  id: number;
  /** Primary wallet as registered (EVM checksummed or Solana base58). */
  wallet: string;
  /** Lookup key: EVM lower-cased, Solana as is. */
  walletKey: string;
  slug: string;
  payoutChain: string;
  status: SellerStatus;
  createdAt: Date;
  suspendedAt: Date | null;
}
export const SellerSchema = new EntitySchema<Seller>({
  name: 'Seller',
  tableName: 'seller',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    wallet: { type: 'string', length: 64 },
    walletKey: { type: 'string', length: 64, unique: 'seller_wallet_key_unique' },
    slug: { type: 'string', length: 32, unique: 'seller_slug_unique' },
    payoutChain: { type: 'string', length: 16 },
    status: { type: 'string', length: 16, default: 'active' },
    createdAt: createdAt(),
    suspendedAt: nullableTime(),
  },
});

/** One receiving wallet of a seller per chain (shape A registers several). */
export interface SellerWallet {
  id: number;
  sellerId: number;
  chain: string;
  address: string;
  addressKey: string;
}
export const SellerWalletSchema = new EntitySchema<SellerWallet>({
  name: 'SellerWallet',
  tableName: 'seller_wallet',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    sellerId: { type: 'integer', index: 'seller_wallet_seller_idx' },
    chain: { type: 'string', length: 16 },
    address: { type: 'string', length: 64 },
    addressKey: { type: 'string', length: 64 },
  },
  uniques: [{ name: 'seller_wallet_chain_address_unique', properties: ['chain', 'addressKey'] }],
});

export interface SellerEndpoint {
  id: number;
  sellerId: number;
  slug: string;
  pathSuffix: string;
  upstreamUrl: string;
  atomicPrice: bigint;
  unit: string;
  desc: string;
  mode: EndpointMode;
  sampleBody: unknown;
  alertEmail: string | null;
  status: EndpointStatus;
  consecutiveFailures: number;
  consecutiveSuccesses: number;
  /** Consecutive failed live (paid) calls; cleared only by a successful live call (lifecycle.ts). */
  callFailures: number;
  degradedAt: Date | null;
  lastProbe: ProbeResult | null;
  /** The probe scheduler's job: due when nextProbeAt has passed (claimed with SKIP LOCKED). */
  nextProbeAt: Date | null;
  /** Failed activation rounds of a pending endpoint (back-off exponent). */
  probeAttempts: number;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}
export const SellerEndpointSchema = new EntitySchema<SellerEndpoint>({
  name: 'SellerEndpoint',
  tableName: 'seller_endpoint',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    sellerId: { type: 'integer', index: 'seller_endpoint_seller_idx' },
    slug: { type: 'string', length: 32 },
    pathSuffix: { type: 'string', length: 64 },
    upstreamUrl: { type: 'text' },
    atomicPrice: amount(),
    unit: { type: 'string', length: 32 },
    desc: { type: 'string', length: 200 },
    mode: { type: 'string', length: 16 },
    sampleBody: { type: 'json', nullable: true },
    alertEmail: { type: 'string', length: 254, nullable: true },
    status: { type: 'string', length: 16, default: 'pending' },
    consecutiveFailures: { type: 'integer', default: 0 },
    consecutiveSuccesses: { type: 'integer', default: 0 },
    callFailures: { type: 'integer', default: 0 },
    degradedAt: nullableTime(),
    lastProbe: { type: 'json', nullable: true },
    nextProbeAt: nullableTime(),
    probeAttempts: { type: 'integer', default: 0 },
    createdAt: createdAt(),
    updatedAt: createdAt(),
    deletedAt: nullableTime(),
  },
});

/** Which seller owns a wallet, across all chains: a wallet owns at most one slug. */
export interface SellerWalletClaim {
  addressKey: string;
  sellerId: number;
}
export const SellerWalletClaimSchema = new EntitySchema<SellerWalletClaim>({
  name: 'SellerWalletClaim',
  tableName: 'seller_wallet_claim',
  properties: {
    addressKey: { type: 'string', length: 64, primary: true },
    sellerId: { type: 'integer', index: 'seller_wallet_claim_seller_idx' },
  },
});

/** One upstream answer seen by a probe (source publish/activation/health) or a live call. */
export interface EndpointObservation {
  id: number;
  endpointId: number;
  at: Date;
  source: string;
  region: string;
  ok: boolean;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
}
export const EndpointObservationSchema = new EntitySchema<EndpointObservation>({
  name: 'EndpointObservation',
  tableName: 'endpoint_observation',
  indexes: [{ name: 'endpoint_observation_endpoint_at_idx', properties: ['endpointId', 'at'] }],
  properties: {
    id: { type: 'bigint', primary: true, autoincrement: true },
    endpointId: { type: 'integer' },
    at: createdAt(),
    source: { type: 'string', length: 16 },
    region: { type: 'string', length: 32 },
    ok: { type: 'boolean' },
    statusCode: { type: 'integer', nullable: true },
    latencyMs: { type: 'integer', nullable: true },
    error: { type: 'text', nullable: true },
  },
});

/**
 * The 402 quotes of a request fingerprint: one row, the last quote's fields, and the recent
 * issue times (a transfer pays only for a request quoted before its block, within the quote's
 * lifetime, so the times around the payment matter, not only the last one).
 */
export interface Quote {
  id: number;
  fingerprint: string;
  resource: string;
  endpointKey: string;
  amount: bigint;
  pages: number | null;
  createdAt: Date;
  quotedTimes: Date[];
  /** The amount each of `quotedTimes` quoted (same order): a live quote is honoured at its price. */
  quotedAmounts: string[];
}
export const QuoteSchema = new EntitySchema<Quote>({
  name: 'Quote',
  tableName: 'quote',
  properties: {
    id: { type: 'bigint', primary: true, autoincrement: true },
    fingerprint: { type: 'string', length: 64, unique: 'quote_fingerprint_unique' },
    resource: { type: 'text' },
    endpointKey: { type: 'string', length: 128 },
    amount: amount(),
    pages: { type: 'integer', nullable: true },
    createdAt: createdAt(),
    quotedTimes: { type: 'json', columnType: 'timestamptz[]', default: "'{}'" },
    quotedAmounts: { type: 'json', columnType: 'numeric(78,0)[]', default: "'{}'" },
  },
});

/** running: reserved or being run; done: answer stored (also a final refusal); alias: a second name of another receipt. */
export type ReceiptState = 'running' | 'done' | 'alias';

/**
 * A consumed payment proof. The primary key is network + tx hash / signature / authorization
 * nonce, so a receipt can be consumed once in the whole cluster. The stored answer lets an
 * identical retry get the same response without running the endpoint again.
 */
export interface ConsumedReceipt {
  receiptKey: string;
  network: string;
  fingerprint: string;
  paymentId: number | null;
  /**
   * Set when this key is a second name of another receipt: an EIP-3009 authorization the
   * service settled is consumed under its nonce and under the settlement tx hash, so the
   * hash cannot buy a second call.
   */
  aliasOf: string | null;
  state: ReceiptState;
  /** A running call holds the receipt until this time; after it a crashed run may be retried. */
  leaseUntil: Date;
  responseStatus: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: Buffer | null;
  /** Runs started under this receipt (PAYMENT_MAX_RUNS bounds them). */
  attempts: number;
  /** While an authorization is being settled: who pays and how much, counted against the payer's balance. */
  payer: string | null;
  amount: bigint | null;
  /** The instance whose heartbeat renews the lease (a random id per process); only it stores the answer. */
  leaseHolder: string | null;
  createdAt: Date;
  completedAt: Date | null;
}
export const ConsumedReceiptSchema = new EntitySchema<ConsumedReceipt>({
  name: 'ConsumedReceipt',
  tableName: 'consumed_receipt',
  properties: {
    receiptKey: { type: 'string', length: 200, primary: true },
    network: { type: 'string', length: 16 },
    fingerprint: { type: 'string', length: 64 },
    paymentId: { type: 'bigint', nullable: true },
    aliasOf: { type: 'string', length: 200, nullable: true },
    state: { type: 'string', length: 16, default: 'running' },
    leaseUntil: { type: 'datetime', columnType: 'timestamptz' },
    responseStatus: { type: 'integer', nullable: true },
    responseHeaders: { type: 'json', nullable: true },
    responseBody: { type: 'blob', columnType: 'bytea', nullable: true },
    attempts: { type: 'integer', default: 0 },
    payer: { type: 'string', length: 64, nullable: true },
    amount: { ...amount(), nullable: true },
    leaseHolder: { type: 'string', length: 64, nullable: true },
    createdAt: createdAt(),
    completedAt: nullableTime(),
  },
});

/** Ledger: one row per verified payment, with the split between the service and the seller. */
export interface Payment {
  id: number;
  network: string;
  tx: string;
  payer: string;
  amount: bigint;
  /** What the quote asked; amount may be higher (overpayment is accepted and recorded). */
  quotedAmount: bigint;
  endpointPath: string;
  sellerId: number | null;
  endpointId: number | null;
  takeBps: number;
  fee: bigint;
  net: bigint;
  /** Settlement reference: the payout that paid this row's net to the seller; null = unsettled. Set only once that payout is confirmed on chain. */
  payoutId: number | null;
  /** The wallet of the `pay` API key the call was made with (its lookup key), beside the paying address; null without a key. */
  buyerWallet: string | null;
  /**
   * Whether the seller's upstream served the call (settlement/payout-store.ts, the money rules):
   * only 'delivered' rows are earned, withdrawable and paid out. 'pending' until the seller call
   * marks it (built-in rows, which no seller is paid for, stay 'pending').
   */
  delivery: PaymentDelivery;
  createdAt: Date;
}
export type PaymentDelivery = 'pending' | 'delivered' | 'undelivered';
export const PaymentSchema = new EntitySchema<Payment>({
  name: 'Payment',
  tableName: 'payment',
  properties: {
    id: { type: 'bigint', primary: true, autoincrement: true },
    network: { type: 'string', length: 16 },
    tx: { type: 'string', length: 128 },
    payer: { type: 'string', length: 64, index: 'payment_payer_idx' },
    amount: amount(),
    quotedAmount: amount(),
    endpointPath: { type: 'string', length: 128 },
    sellerId: { type: 'integer', nullable: true, index: 'payment_seller_idx' },
    endpointId: { type: 'integer', nullable: true },
    takeBps: { type: 'integer' },
    fee: amount(),
    net: amount(),
    payoutId: { type: 'bigint', nullable: true },
    // Indexed where not null, and payer also on lower(payer) (migration api_keys): accounts match EVM payers case-insensitively.
    buyerWallet: { type: 'string', length: 64, nullable: true },
    delivery: { type: 'string', length: 16, default: 'pending' },
    createdAt: createdAt(),
  },
});

export interface ApiKey {
  id: number;
  wallet: string;
  walletKey: string;
  keyPrefix: string;
  /** HMAC-SHA-256 (API_KEY_SECRET) of the full key; the secret itself is never stored. */
  keyHash: string;
  label: string | null;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}
export const ApiKeySchema = new EntitySchema<ApiKey>({
  name: 'ApiKey',
  tableName: 'api_key',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    wallet: { type: 'string', length: 64 },
    walletKey: { type: 'string', length: 64, index: 'api_key_wallet_idx' },
    keyPrefix: { type: 'string', length: 32 },
    keyHash: { type: 'string', length: 64, unique: 'api_key_hash_unique' },
    label: { type: 'string', length: 64, nullable: true },
    scopes: { type: 'json' },
    createdAt: createdAt(),
    lastUsedAt: nullableTime(),
    expiresAt: nullableTime(),
    revokedAt: nullableTime(),
  },
});

/** State-changing wallet signatures are single-use: this table remembers the used ones. */
export interface UsedSignature {
  signatureHash: string;
  wallet: string;
  action: string;
  createdAt: Date;
}
export const UsedSignatureSchema = new EntitySchema<UsedSignature>({
  name: 'UsedSignature',
  tableName: 'used_signature',
  properties: {
    signatureHash: { type: 'string', length: 64, primary: true },
    wallet: { type: 'string', length: 64 },
    action: { type: 'string', length: 32 },
    createdAt: { ...createdAt(), index: 'used_signature_created_idx' },
  },
});

/**
 * pending: written (the intent), being signed, sent or confirmed; sent: confirmed on chain, its
 * rows carry payout_id (final); failed: the last attempt failed, retried at next_attempt_at.
 */
export type PayoutStatus = 'pending' | 'sent' | 'failed';
export interface Payout {
  id: number;
  sellerId: number;
  /** The destination: the seller's registered wallet on `chain`. */
  wallet: string;
  chain: string;
  /** = sum(net) of the payment rows its payout_item rows claim. */
  amount: bigint;
  status: PayoutStatus;
  /** The signed transaction (id, raw bytes, nonce / last valid block height), recorded before broadcast. */
  tx: string | null;
  raw: string | null;
  validUntil: string | null;
  error: string | null;
  /** The UTC day (YYYY-MM-DD) of a daily settlement run, null for a requested payout. */
  settlementDay: string | null;
  /** Failed attempts so far (back-off exponent). */
  attempts: number;
  /** Due for work then; while an instance works on it, the end of its lease. */
  nextAttemptAt: Date;
  broadcastAt: Date | null;
  confirmedAt: Date | null;
  createdAt: Date;
  sentAt: Date | null;
}
export const PayoutSchema = new EntitySchema<Payout>({
  name: 'Payout',
  tableName: 'payout',
  properties: {
    id: { type: 'bigint', primary: true, autoincrement: true },
    sellerId: { type: 'integer', index: 'payout_seller_idx' },
    wallet: { type: 'string', length: 64 },
    chain: { type: 'string', length: 16 },
    amount: amount(),
    status: { type: 'string', length: 16, default: 'pending' },
    tx: { type: 'string', length: 128, nullable: true },
    raw: { type: 'text', nullable: true },
    validUntil: { type: 'string', length: 32, nullable: true },
    error: { type: 'text', nullable: true },
    settlementDay: { type: 'string', length: 10, nullable: true },
    attempts: { type: 'integer', default: 0 },
    nextAttemptAt: { type: 'datetime', columnType: 'timestamptz', defaultRaw: 'now()' },
    broadcastAt: nullableTime(),
    confirmedAt: nullableTime(),
    createdAt: createdAt(),
    sentAt: nullableTime(),
  },
  uniques: [{ name: 'payout_seller_day_unique', properties: ['sellerId', 'settlementDay'] }],
});

/**
 * A payment row claimed by a payout, written with the payout (before anything is sent). The
 * primary key is the payment: a row is claimed by one payout, ever.
 */
export interface PayoutItem {
  paymentId: number;
  payoutId: number;
}
export const PayoutItemSchema = new EntitySchema<PayoutItem>({
  name: 'PayoutItem',
  tableName: 'payout_item',
  properties: {
    paymentId: { type: 'bigint', primary: true },
    payoutId: { type: 'bigint', index: 'payout_item_payout_idx' },
  },
});

/** One daily settlement: its primary key makes one instance the day's runner. */
export interface SettlementRun {
  day: string;
  /** Rows created before this instant are settled by this run (the day boundary, 00:00 UTC). */
  cutoff: Date;
  startedAt: Date;
  /** A runner that died mid-run loses the run to another instance after this. */
  leaseUntil: Date;
  finishedAt: Date | null;
  sellers: number;
  totalAtomic: bigint;
  carriedOver: number;
}
export const SettlementRunSchema = new EntitySchema<SettlementRun>({
  name: 'SettlementRun',
  tableName: 'settlement_run',
  properties: {
    day: { type: 'string', length: 10, primary: true },
    cutoff: { type: 'datetime', columnType: 'timestamptz' },
    startedAt: createdAt(),
    leaseUntil: { type: 'datetime', columnType: 'timestamptz' },
    finishedAt: nullableTime(),
    sellers: { type: 'integer', default: 0 },
    totalAtomic: { ...amount(), default: 0 },
    carriedOver: { type: 'integer', default: 0 },
  },
});

/** Upstream error counts per endpoint and hour, for the seller errors query and lifecycle. */
export interface EndpointErrorCount {
  id: number;
  endpointId: number;
  sellerId: number;
  hour: Date;
  code: string;
  count: number;
}
export const EndpointErrorCountSchema = new EntitySchema<EndpointErrorCount>({
  name: 'EndpointErrorCount',
  tableName: 'endpoint_error_count',
  properties: {
    id: { type: 'bigint', primary: true, autoincrement: true },
    endpointId: { type: 'integer' },
    sellerId: { type: 'integer', index: 'endpoint_error_seller_idx' },
    hour: { type: 'datetime', columnType: 'timestamptz' },
    code: { type: 'string', length: 64 },
    count: { type: 'integer', default: 0 },
  },
  uniques: [{ name: 'endpoint_error_count_unique', properties: ['endpointId', 'hour', 'code'] }],
});

/** x402 payment-identifier ids: the first payload and request each was seen with (payments/payment-identifier.ts). */
export interface PaymentIdentifierRow {
  id: string;
  payloadSha256: Buffer;
  fingerprint: string;
  createdAt: Date;
}
export const PaymentIdentifierSchema = new EntitySchema<PaymentIdentifierRow>({
  name: 'PaymentIdentifier',
  tableName: 'payment_identifier',
  properties: {
    id: { type: 'string', length: 128, primary: true },
    payloadSha256: { type: 'blob', columnType: 'bytea' },
    fingerprint: { type: 'string', length: 64 },
    createdAt: createdAt(),
  },
});

export const allEntities = [
  SellerSchema,
  SellerWalletSchema,
  SellerEndpointSchema,
  SellerWalletClaimSchema,
  EndpointObservationSchema,
  QuoteSchema,
  ConsumedReceiptSchema,
  PaymentSchema,
  ApiKeySchema,
  UsedSignatureSchema,
  PayoutSchema,
  PayoutItemSchema,
  SettlementRunSchema,
  EndpointErrorCountSchema,
  PaymentIdentifierSchema,
];
