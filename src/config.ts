/**
 * Configuration from environment variables. main.ts is the only caller with process.env;
 * tests pass their own objects. A bad value throws ConfigError naming the variable, and
 * main prints that one line and exits.
 */
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
export interface ChainsConfig {
  base: EvmChainConfig;
  polygon: EvmChainConfig;
  solana: SolanaChainConfig;
  signers: SignerConfig;
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
  };
  tools: {
    workers: number;
    jobTimeoutMs: number;
    jobMemoryMb: number;
    maxBodyBytes: number;
    maxPages: number;
  };
  shutdownTimeoutMs: number;
  /** devnet profile: start the local chains with the service (PAYCALL_START_DEVNET=0 to skip, e.g. when one runs already). */
  startDevnet: boolean;
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

/** Chain settings for production: every value must be given. */
function productionChains(env: Env): ChainsConfig {
  const evm = (prefix: 'BASE' | 'POLYGON', chainId: number): EvmChainConfig => ({
    rpcUrl: url(env, `${prefix}_RPC_URL`, null, ['http:', 'https:']) ?? required(env, `${prefix}_RPC_URL`, /./, 'an http(s) URL'),
    chainId,
    usdc: required(env, `${prefix}_USDC`, EVM_ADDRESS, '0x + 40 hex'),
    payTo: required(env, `${prefix}_PAY_TO`, EVM_ADDRESS, '0x + 40 hex'),
  });
  return {
    base: evm('BASE', 8453),
    polygon: evm('POLYGON', 137),
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
  };
}

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
    },
    tools: {
      workers: int(env, 'TOOL_WORKERS', 0, 0, 64),
      jobTimeoutMs: int(env, 'TOOL_JOB_TIMEOUT_MS', 120_000, 1_000, 3_600_000),
      jobMemoryMb: int(env, 'TOOL_JOB_MEMORY_MB', 1024, 64, 16_384),
      maxBodyBytes: int(env, 'TOOL_MAX_BODY_BYTES', 50 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      maxPages: int(env, 'TOOL_MAX_PAGES', 2000, 1, 100_000),
    },
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    startDevnet: profile === 'devnet' && oneOf(env, 'PAYCALL_START_DEVNET', ['0', '1'] as const, '1') === '1',
  };
}

