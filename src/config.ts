/**
 * Configuration from environment variables. main.ts is the only caller with process.env;
 * tests pass their own objects. A bad value throws ConfigError naming the variable, and
 * main prints that one line and exits.
 */
import { CHAIN_IDS, PAYOUT_ONLY_CHAINS, PAYOUT_ONLY_USDC_ADDRESSES, type PayoutOnlyChain } from './chains/usdc-addresses.ts';
import { parseTrustedProxies, type TrustedProxy } from './lib/client-address.ts';

export type { PayoutOnlyChain };
export type Profile = 'devnet' | 'production';

export interface EvmChainConfig {
  rpcUrl: string;
  chainId: number;
  usdc: string;
  payTo: string;
}
export interface SolanaChainConfig {
  rpcUrl: string;
  usdcMint: string;
  payTo: string;
}
/** Secrets that sign on-chain: the EVM relayer (gas for EIP-3009 settlement), the treasury keys (payouts), the Solana fee payer. */
export interface SignerConfig {
  evmRelayerKey: string;
  evmTreasuryKey: string;
  solanaFeePayerKey: string;
  solanaTreasuryKey: string;
}
export interface PayoutChainConfig {
  chainId: number;
  usdc: string;
  /**
   * The RPC URL; a function when the endpoint only exists once asked for (the devnet starts
   * these nodes on first use, so `npm start` does not wait for three more chains).
   */
  rpcUrl: string | (() => Promise<string>);
  /** 0x key of the treasury on this chain; absent: signers.evmTreasuryKey. */
  treasuryKey?: string;
}

export interface ChainsConfig {
  base: EvmChainConfig;
  polygon: EvmChainConfig;
  solana: SolanaChainConfig;
  signers: SignerConfig;
  /** Payout-only chains this deployment can pay on; a chain absent here cannot be a seller's payout_chain. */
  payoutChains?: Partial<Record<PayoutOnlyChain, PayoutChainConfig>>;
}

export interface Config {
  profile: Profile;
  host: string;
  port: number;
  publicBaseUrl: string;
  serviceName: string;
  /** PostgreSQL URL; null means the embedded PGlite database in pgliteDir. */
  databaseUrl: string | null;
  pgliteDir: string;
  dataDir: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** Chain endpoints; null in the devnet profile until the devnet has started and filled them. */
  chains: ChainsConfig | null;
  payments: {
    /** How long an unseen transaction is polled before payment_unconfirmed. */
    pollTimeoutMs: number;
    pollIntervalMs: number;
    /** Run attempts one receipt buys (a failed run may be retried, up to this many in all). */
    maxRuns: number;
    /**
     * A paid run's lease (RUN_LEASE_SECONDS, default 5 s), renewed every third of it while the
     * instance lives: a dead instance's run is taken over by a retry within this long.
     */
    runLeaseMs: number;
    /** Tolerated difference between block timestamps and this server's clock, in seconds. */
    clockSkewSeconds: number;
    /** Smallest USDC transfer (atomic) POST /v1/_facilitator/solana co-signs: it must cover the fee payer's cost several times. */
    facilitatorMinAtomic: bigint;
  };
  tools: {
    workers: number;
    jobTimeoutMs: number;
    jobMemoryMb: number;
    maxBodyBytes: number;
    maxPages: number;
  };
  shutdownTimeoutMs: number;
  /** MCP at /mcp: tools per tools/list page (MCP_TOOLS_PAGE_SIZE). */
  mcp: { toolsPageSize: number };
  sellers: SellersConfig;
  proxy: ProxyConfig;
  settlement: SettlementConfig;
  /** devnet profile: start the local chains with the service (PAYCALL_START_DEVNET=0 to skip, e.g. when one runs already). */
  startDevnet: boolean;
  /** Rate limits per bucket (RATE_LIMITS); null when off. */
  rateLimits: RateLimits | null;
  /** Redis for rate limits shared by every instance (REDIS_URL); null: each process counts alone, in memory. */
  redisUrl: string | null;
  /** Reverse proxies in front of the service that append to X-Forwarded-For (TRUST_PROXY_HOPS); 0: the socket peer is the client. */
  trustProxyHops: number;
  apiKeys: ApiKeysConfig;
  /**
   * The operator listener: /metrics and /health/details, off the public port (METRICS_HOST,
   * default 127.0.0.1; METRICS_PORT, default 9464, 0 picks a free one).
   */
  metrics: { host: string; port: number };
}

/** Bearer API keys (src/accounts/). */
export interface ApiKeysConfig {
  /**
   * HMAC secret keys are stored under (API_KEY_SECRET, at least 32 characters). Required in
   * production; null in the devnet profile means: generated once into `<dataDir>/api-key-secret`.
   * Changing it invalidates every issued key.
   */
  secret: string | null;
  /** How often the batched last_used_at times are written (API_KEY_USAGE_FLUSH_MS). */
  usageFlushMs: number;
}

/** Seller marketplace: upstream safety, probes and the endpoint lifecycle (every threshold here so tests can shrink them). */
export interface SellersConfig {
  /** devnet only: endpoints may point at http(s)://127.0.0.1 / localhost. Always false in production. */
  allowLocalUpstreams: boolean;
  /** Extra PEM CA certificates trusted for upstream TLS (UPSTREAM_CA_FILE), e.g. a test's self-signed certificate. */
  upstreamCaFile: string | null;
  /** Region labels of the activation probes; one probe per label, in parallel. */
  probeRegions: string[];
  probeTimeoutMs: number;
  /** pending -> active needs every activation probe ok and their p95 latency under this. */
  activationP95Ms: number;
  /** pending: retry the activation probes after base x 2^attempt, capped. */
  pendingRetryBaseMs: number;
  pendingRetryMaxMs: number;
  /** Period of health probes of active and degraded endpoints. */
  healthIntervalMs: number;
  degradeAfterFailures: number;
  recoverAfterSuccesses: number;
  suspendAfterFailures: number;
  suspendAfterDegradedMs: number;
  /** How often each instance looks for due probe jobs (0 disables the scheduler on this instance). */
  schedulerTickMs: number;
  /** Tests only (no environment variable): a DNS lookup used instead of the system resolver. */
  lookup?: import('node:net').LookupFunction;
}

/**
 * Daily settlement and payouts (src/settlement/). The settlement time is the spec's 00:00 UTC and
 * not configurable; tests move the clock instead (createApp's `now`).
 */
export interface SettlementConfig {
  /** A seller whose unsettled net earnings are below this (atomic USDC) is carried over to a later day. */
  minAtomic: bigint;
  /** A seller may request a payout at most once per this many seconds. */
  requestIntervalSeconds: number;
  /** A payout broadcast this long ago and still not confirmed is reported (log, payout error, age gauge). */
  confirmTimeoutSeconds: number;
  /** A failed payout is tried again after base x 2^(attempts - 1), capped at retryMaxMs. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** How soon an unconfirmed payout transaction is looked up again. */
  pollMs: number;
  /**
   * An instance working on a payout (or running the day's settlement) holds it this long; after
   * a crash another instance (or the restarted one) takes it over once it has passed.
   */
  leaseMs: number;
}

/** Paid forwarding to sellers' upstreams (proxy and paywall modes). */
export interface ProxyConfig {
  /** Request bodies of seller calls (spec: 50 MB); 413 as soon as it is passed. */
  maxBodyBytes: number;
  /** No answer headers within this long: 504 upstream_timeout (spec: 30 s). */
  upstreamTimeoutMs: number;
  /** Proxy mode retries an upstream 5xx for this long (spec: 60 s), then 502 upstream_5xx. */
  retryWindowMs: number;
  retryBaseMs: number;
  /** Answers up to this size are stored for replays of the same receipt. */
  maxStoredAnswerBytes: number;
  /** Ed25519 key that signs forwarded calls (PEM or base64 seed); null: the devnet key in the data directory. */
  signingKey: string | null;
  signingKeyId: string;
  /**
   * Load balancers in front of the service (TRUSTED_PROXIES: IPs and CIDR ranges). A call
   * whose socket peer is one keeps the Forwarded / X-Forwarded-For chain it wrote, extended
   * with the peer, on its way to the upstream; anyone else's such headers are replaced.
   */
  trustedProxies: TrustedProxy[];
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const str = (env: Env, name: string, fallback: string): string => {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  return v;
};

const int = (env: Env, name: string, fallback: number, min: number, max: number): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(name, `must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
};

const oneOf = <T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T => {
  const raw = str(env, name, fallback);
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
};

const url = (env: Env, name: string, fallback: string | null, protocols: string[]): string | null => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be a URL, got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  return raw;
};

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const EVM_KEY = /^0x[0-9a-fA-F]{64}$/;
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,88}$/;

const required = (env: Env, name: string, pattern: RegExp, what: string): string => {
  const v = env[name];
  if (v === undefined || v === '') throw new ConfigError(name, `is required in the production profile (${what})`);
  if (!pattern.test(v)) throw new ConfigError(name, `must be ${what}`);
  return v;
};

const trustedProxies = (env: Env): TrustedProxy[] => {
  try {
    return parseTrustedProxies(env.TRUSTED_PROXIES);
  } catch (e) {
    throw new ConfigError('TRUSTED_PROXIES', (e as Error).message);
  }
};

const apiKeySecret = (env: Env): string | null => {
  const v = env.API_KEY_SECRET;
  if (v === undefined || v === '') return null;
  if (v.length < 32) throw new ConfigError('API_KEY_SECRET', 'must be at least 32 characters of random text');
  return v;
};

/** Chain settings for production: every value must be given. */
function productionChains(env: Env): ChainsConfig {
  const evm = (prefix: 'BASE' | 'POLYGON', chainId: number): EvmChainConfig => ({
    rpcUrl: url(env, `${prefix}_RPC_URL`, null, ['http:', 'https:']) ?? required(env, `${prefix}_RPC_URL`, /./, 'an http(s) URL'),
    chainId,
    usdc: required(env, `${prefix}_USDC`, EVM_ADDRESS, '0x + 40 hex'),
    payTo: required(env, `${prefix}_PAY_TO`, EVM_ADDRESS, '0x + 40 hex'),
  });
  /**
   * A payout-only chain is configured by its RPC URL alone: USDC defaults to the native USDC
   * address, the treasury to EVM_TREASURY_KEY (one address on every EVM chain, simplest to fund
   * and watch) unless <CHAIN>_TREASURY_KEY gives it its own.
   */
  const payoutOnly = (chain: PayoutOnlyChain): PayoutChainConfig | undefined => {
    const prefix = chain.toUpperCase();
    const rpcUrl = url(env, `${prefix}_RPC_URL`, null, ['http:', 'https:']);
    if (!rpcUrl) {
      for (const name of [`${prefix}_USDC`, `${prefix}_TREASURY_KEY`]) {
        if (env[name]) throw new ConfigError(name, `is set but ${prefix}_RPC_URL is not (${chain} payouts need its RPC URL)`);
      }
      return undefined;
    }
    return {
      chainId: CHAIN_IDS[chain],
      usdc: env[`${prefix}_USDC`] ? required(env, `${prefix}_USDC`, EVM_ADDRESS, '0x + 40 hex') : PAYOUT_ONLY_USDC_ADDRESSES[chain],
      rpcUrl,
      ...(env[`${prefix}_TREASURY_KEY`] ? { treasuryKey: required(env, `${prefix}_TREASURY_KEY`, EVM_KEY, '0x + 64 hex private key') } : {}),
    };
  };
  const payoutChains: Partial<Record<PayoutOnlyChain, PayoutChainConfig>> = {};
  for (const chain of PAYOUT_ONLY_CHAINS) {
    const c = payoutOnly(chain);
    if (c) payoutChains[chain] = c;
  }
  return {
    base: evm('BASE', CHAIN_IDS.base),
    polygon: evm('POLYGON', CHAIN_IDS.polygon),
    solana: {
      rpcUrl: url(env, 'SOLANA_RPC_URL', null, ['http:', 'https:']) ?? required(env, 'SOLANA_RPC_URL', /./, 'an http(s) URL'),
      usdcMint: required(env, 'SOLANA_USDC_MINT', BASE58, 'a base58 address'),
      payTo: required(env, 'SOLANA_PAY_TO', BASE58, 'a base58 address'),
    },
    signers: {
      evmRelayerKey: required(env, 'EVM_RELAYER_KEY', EVM_KEY, '0x + 64 hex private key'),
      evmTreasuryKey: required(env, 'EVM_TREASURY_KEY', EVM_KEY, '0x + 64 hex private key'),
      solanaFeePayerKey: required(env, 'SOLANA_FEE_PAYER_KEY', BASE58, 'a base58 secret key'),
      solanaTreasuryKey: required(env, 'SOLANA_TREASURY_KEY', BASE58, 'a base58 secret key'),
    },
    payoutChains,
  };
}

function sellersConfig(env: Env, profile: Profile): SellersConfig {
  const allowLocal = oneOf(env, 'ALLOW_LOCAL_UPSTREAMS', ['0', '1'] as const, profile === 'devnet' ? '1' : '0') === '1';
  if (allowLocal && profile === 'production') throw new ConfigError('ALLOW_LOCAL_UPSTREAMS', 'is always 0 in the production profile (local upstreams are a devnet convenience)');
  const regions = str(env, 'PROBE_REGIONS', 'us-east,eu-central,ap-southeast')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  if (!regions.length || regions.some((r) => !/^[a-z0-9-]{1,32}$/.test(r))) throw new ConfigError('PROBE_REGIONS', 'must be a comma-separated list of region labels ([a-z0-9-]{1,32})');
  const degrade = int(env, 'ENDPOINT_DEGRADE_AFTER_FAILURES', 5, 1, 1000);
  const suspend = int(env, 'ENDPOINT_SUSPEND_AFTER_FAILURES', 20, 1, 100_000);
  if (suspend < degrade) throw new ConfigError('ENDPOINT_SUSPEND_AFTER_FAILURES', `must be at least ENDPOINT_DEGRADE_AFTER_FAILURES (${degrade})`);
  const base = int(env, 'PROBE_RETRY_BASE_MS', 5_000, 1, 3_600_000);
  return {
    allowLocalUpstreams: allowLocal,
    upstreamCaFile: str(env, 'UPSTREAM_CA_FILE', '') || null,
    probeRegions: regions,
    probeTimeoutMs: int(env, 'PROBE_TIMEOUT_MS', 10_000, 1, 120_000),
    activationP95Ms: int(env, 'PROBE_ACTIVATION_P95_MS', 5_000, 1, 120_000),
    pendingRetryBaseMs: base,
    pendingRetryMaxMs: Math.max(base, int(env, 'PROBE_RETRY_MAX_MS', 600_000, 1, 86_400_000)),
    healthIntervalMs: int(env, 'HEALTH_PROBE_INTERVAL_MS', 60_000, 1, 86_400_000),
    degradeAfterFailures: degrade,
    recoverAfterSuccesses: int(env, 'ENDPOINT_RECOVER_AFTER_SUCCESSES', 3, 1, 1000),
    suspendAfterFailures: suspend,
    suspendAfterDegradedMs: int(env, 'ENDPOINT_SUSPEND_AFTER_DEGRADED_MS', 30 * 60_000, 1, 7 * 86_400_000),
    schedulerTickMs: int(env, 'SCHEDULER_TICK_MS', 1_000, 0, 3_600_000),
  };
}

function settlementConfig(env: Env): SettlementConfig {
  const retryBaseMs = int(env, 'PAYOUT_RETRY_BASE_MS', 60_000, 1, 86_400_000);
  return {
    minAtomic: BigInt(int(env, 'PAYOUT_MIN_ATOMIC', 10_000, 1, 1_000_000_000_000)),
    requestIntervalSeconds: int(env, 'PAYOUT_REQUEST_INTERVAL_SECONDS', 3_600, 0, 30 * 86_400),
    confirmTimeoutSeconds: int(env, 'PAYOUT_CONFIRM_TIMEOUT_SECONDS', 1_800, 1, 7 * 86_400),
    retryBaseMs,
    retryMaxMs: Math.max(retryBaseMs, int(env, 'PAYOUT_RETRY_MAX_MS', 3_600_000, 1, 7 * 86_400_000)),
    pollMs: int(env, 'PAYOUT_POLL_MS', 5_000, 1, 3_600_000),
    leaseMs: int(env, 'PAYOUT_LEASE_MS', 300_000, 100, 3_600_000),
  };
}

// --- Rate limits (RATE_LIMITS, REDIS_URL) ----------------------------------------------------

/** quote: unpaid calls to paid endpoints, per client address; facilitator: POST /v1/_facilitator/solana, per address; seller, keys, payout: per wallet. */
export const RATE_LIMIT_BUCKETS = ['quote', 'facilitator', 'seller', 'keys', 'payout'] as const;
export type RateLimitBucket = (typeof RATE_LIMIT_BUCKETS)[number];
/** `points` requests per `durationSeconds` window, per key. */
export type RateLimits = Record<RateLimitBucket, { points: number; durationSeconds: number }>;

export const DEFAULT_RATE_LIMITS = 'quote=600/60s,facilitator=60/60s,seller=120/60s,keys=30/60s,payout=10/60s';
const WINDOW_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600 };

/** `bucket=requests/window[,...]` (window: 60s, 5m, 1h); buckets not named keep their default; `off` disables them all. */
export function parseRateLimits(raw: string | undefined): RateLimits | null {
  const text = raw === undefined || raw.trim() === '' ? DEFAULT_RATE_LIMITS : raw.trim();
  if (text === 'off') return null;
  const parse = (entries: string, into: Partial<RateLimits>) => {
    for (const entry of entries.split(',').map((e) => e.trim()).filter(Boolean)) {
      const m = /^([a-z]+)=(\d{1,9})\/(\d{1,6})([smh])$/.exec(entry);
      if (!m) throw new ConfigError('RATE_LIMITS', `"${entry}" is not bucket=requests/window (e.g. quote=600/60s), nor "off"`);
      const bucket = m[1] as RateLimitBucket;
      if (!RATE_LIMIT_BUCKETS.includes(bucket)) throw new ConfigError('RATE_LIMITS', `unknown bucket "${m[1]}" (buckets: ${RATE_LIMIT_BUCKETS.join(', ')})`);
      const points = Number(m[2]);
      const durationSeconds = Number(m[3]) * WINDOW_UNITS[m[4]];
      if (points < 1 || durationSeconds < 1) throw new ConfigError('RATE_LIMITS', `"${entry}": requests and window must be at least 1`);
      into[bucket] = { points, durationSeconds };
    }
  };
  const limits: Partial<RateLimits> = {};
  parse(DEFAULT_RATE_LIMITS, limits);
  parse(text, limits);
  return limits as RateLimits;
}

// ----------------------------------------------------------------------------------------------

export function loadConfig(env: Env): Config {
  const profile = oneOf(env, 'PAYCALL_PROFILE', ['devnet', 'production'] as const, 'devnet');
  const host = str(env, 'HOST', '127.0.0.1');
  const port = int(env, 'PORT', 4020, 0, 65535);
  const dataDir = str(env, 'PAYCALL_DATA_DIR', '.data');
  const databaseUrl = url(env, 'DATABASE_URL', null, ['postgres:', 'postgresql:']);
  if (profile === 'production' && !databaseUrl) throw new ConfigError('DATABASE_URL', 'is required in the production profile (PGlite is for development only)');
  const serviceName = str(env, 'SERVICE_NAME', 'paycall');
  if (!/^[\x20-\x7e]{1,64}$/.test(serviceName)) throw new ConfigError('SERVICE_NAME', 'must be 1 to 64 printable ASCII characters');
  const publicBaseUrl = (url(env, 'PUBLIC_BASE_URL', null, ['http:', 'https:']) ?? `http://${host}:${port}`).replace(/\/+$/, '');
  const metricsPort = int(env, 'METRICS_PORT', 9464, 0, 65535);
  if (metricsPort !== 0 && metricsPort === port) throw new ConfigError('METRICS_PORT', `must differ from PORT (${port}): operator data stays off the public port`);
  return {
    profile,
    host,
    port,
    publicBaseUrl,
    serviceName,
    databaseUrl,
    pgliteDir: str(env, 'PGLITE_DIR', `${dataDir}/pglite`),
    dataDir,
    logLevel: oneOf(env, 'LOG_LEVEL', ['debug', 'info', 'warn', 'error', 'silent'] as const, 'info'),
    chains: profile === 'production' ? productionChains(env) : null,
    payments: {
      pollTimeoutMs: int(env, 'PAYMENT_POLL_TIMEOUT_MS', 10_000, 0, 120_000),
      pollIntervalMs: int(env, 'PAYMENT_POLL_INTERVAL_MS', 500, 50, 10_000),
      maxRuns: int(env, 'PAYMENT_MAX_RUNS', 3, 1, 100),
      runLeaseMs: int(env, 'RUN_LEASE_SECONDS', 5, 1, 300) * 1000,
      clockSkewSeconds: int(env, 'PAYMENT_CLOCK_SKEW_SECONDS', 5, 0, 300),
      facilitatorMinAtomic: BigInt(int(env, 'FACILITATOR_MIN_ATOMIC', 10_000, 1, 1_000_000_000_000)),
    },
    tools: {
      workers: int(env, 'TOOL_WORKERS', 0, 0, 64),
      jobTimeoutMs: int(env, 'TOOL_JOB_TIMEOUT_MS', 120_000, 10, 3_600_000),
      jobMemoryMb: int(env, 'TOOL_JOB_MEMORY_MB', 1024, 64, 16_384),
      maxBodyBytes: int(env, 'TOOL_MAX_BODY_BYTES', 50 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      maxPages: int(env, 'TOOL_MAX_PAGES', 2000, 1, 100_000),
    },
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    mcp: { toolsPageSize: int(env, 'MCP_TOOLS_PAGE_SIZE', 100, 1, 1000) },
    sellers: sellersConfig(env, profile),
    proxy: {
      maxBodyBytes: int(env, 'PROXY_MAX_BODY_BYTES', 50 * 1024 * 1024, 1, 1024 * 1024 * 1024),
      upstreamTimeoutMs: int(env, 'UPSTREAM_TIMEOUT_MS', 30_000, 1, 600_000),
      retryWindowMs: int(env, 'UPSTREAM_RETRY_WINDOW_MS', 60_000, 0, 600_000),
      retryBaseMs: int(env, 'UPSTREAM_RETRY_BASE_MS', 500, 1, 60_000),
      maxStoredAnswerBytes: int(env, 'PROXY_MAX_STORED_BYTES', 10 * 1024 * 1024, 0, 1024 * 1024 * 1024),
      signingKey: profile === 'production' ? required(env, 'FORWARD_SIGNING_KEY', /./, 'an Ed25519 key (PKCS#8 PEM or a base64 32-byte seed)') : (env.FORWARD_SIGNING_KEY || null),
      signingKeyId: str(env, 'FORWARD_SIGNING_KEY_ID', 'paycall-1'),
      trustedProxies: trustedProxies(env),
    },
    settlement: settlementConfig(env),
    startDevnet: profile === 'devnet' && oneOf(env, 'PAYCALL_START_DEVNET', ['0', '1'] as const, '1') === '1',
    rateLimits: parseRateLimits(env.RATE_LIMITS),
    redisUrl: url(env, 'REDIS_URL', null, ['redis:', 'rediss:']),
    trustProxyHops: int(env, 'TRUST_PROXY_HOPS', 0, 0, 10),
    apiKeys: {
      secret: profile === 'production' ? required(env, 'API_KEY_SECRET', /^.{32,}$/, 'at least 32 characters of random text') : apiKeySecret(env),
      usageFlushMs: int(env, 'API_KEY_USAGE_FLUSH_MS', 5_000, 10, 3_600_000),
    },
    metrics: { host: str(env, 'METRICS_HOST', '127.0.0.1'), port: metricsPort },
  };
}

