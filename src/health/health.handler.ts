/**
 * GET /v1/_health: database round trip, chain RPCs and the facilitators (EVM relayer,
 * Solana fee payer). The database down means the service is down (503); a chain down
 * degrades it (buyers on other chains can still pay).
 */
import type { Handler } from '../http/server.ts';
import type { ChainHealth, Network } from '../chains/chain-adapter.ts';

export interface CheckResult {
  ok: boolean;
  latency_ms: number;
  error?: string;
  [key: string]: unknown;
}

export interface HealthDeps {
  version: string;
  pingDatabase: () => Promise<{ ok: boolean; latencyMs: number; error?: string }>;
  /** One probe per chain; missing when the chains are not configured. */
  chainHealth: Partial<Record<Network, () => Promise<ChainHealth>>>;
  facilitators: Record<string, () => Promise<CheckResult>>;
  /** Bound for each check so a hung RPC cannot hang the health answer. */
  checkTimeoutMs: number;
}

const withTimeout = async <T>(work: Promise<T>, ms: number, fallback: (msg: string) => T): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work.catch((e: Error) => fallback(e.message)), timeout]);
  } finally {
    clearTimeout(timer);
  }
};

export const getHealthHandler =
  (deps: HealthDeps): Handler =>
  async () => {
    const failed = (error: string): CheckResult => ({ ok: false, latency_ms: deps.checkTimeoutMs, error });
    const db = await withTimeout(
      deps.pingDatabase().then((r) => ({ ok: r.ok, latency_ms: r.latencyMs, ...(r.error ? { error: r.error } : {}) })),
      deps.checkTimeoutMs,
      failed,
    );
    const networks: Network[] = ['base', 'polygon', 'solana'];
    const rpcEntries = await Promise.all(
      networks.map(async (n): Promise<[Network, CheckResult]> => {
        const probe = deps.chainHealth[n];
        if (!probe) return [n, { ok: false, latency_ms: 0, error: 'not configured' }];
        const r = await withTimeout(
          probe().then((h) => ({ ok: h.ok, latency_ms: h.latencyMs, ...(h.blockNumber !== undefined ? { block_number: h.blockNumber } : {}), ...(h.error ? { error: h.error } : {}) })),
          deps.checkTimeoutMs,
          failed,
        );
        return [n, r];
      }),
    );
    const facilitatorEntries = await Promise.all(
      Object.entries(deps.facilitators).map(async ([name, probe]): Promise<[string, CheckResult]> => [name, await withTimeout(probe(), deps.checkTimeoutMs, failed)]),
    );
    const rpc = Object.fromEntries(rpcEntries);
    const facilitators = Object.fromEntries(facilitatorEntries);
    const degraded = rpcEntries.some(([, r]) => !r.ok) || facilitatorEntries.some(([, r]) => !r.ok);
    const status = !db.ok ? 'down' : degraded ? 'degraded' : 'ok';
    return {
      status: db.ok ? 200 : 503,
      headers: { 'cache-control': 'no-store' },
      body: { status, version: deps.version, checks: { database: db, rpc, facilitators } },
    };
  };
