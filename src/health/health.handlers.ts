/**
 * GET /v1/_health: database round trip, chain RPCs and the facilitators (EVM relayer,
 * Solana fee payer). The database down means the service is down (503); a chain down
 * degrades it (buyers on other chains can still pay).
 *
 * The public answer is the status of each dependency only (ok, latency, block number). The
 * full report (error texts, which can name internal hosts or an RPC URL with its key; the
 * signers' addresses and balances) is the operator listener's GET /health/details
 * (src/metrics/operator-server.ts).
 */
import type { Handler } from '../http/server.ts';
import type { OperationId } from '../generated/operation-ids.ts';
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

export interface HealthReport {
  status: 'ok' | 'degraded' | 'down';
  version: string;
  checks: { database: CheckResult; rpc: Record<string, CheckResult>; facilitators: Record<string, CheckResult> };
}

/** Runs every check (each bounded by checkTimeoutMs); 503 when the database is down. */
export const createHealthCheck =
  (deps: HealthDeps) =>
  async (): Promise<{ status: number; body: HealthReport }> => {
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
    return { status: db.ok ? 200 : 503, body: { status, version: deps.version, checks: { database: db, rpc, facilitators } } };
  };

/** What anyone may see of a check: whether it passed, how long it took, the chain's head. */
const publicCheck = (c: CheckResult) => ({ ok: c.ok, latency_ms: c.latency_ms, ...(typeof c.block_number === 'string' ? { block_number: c.block_number } : {}) });
const publicChecks = (checks: Record<string, CheckResult>) => Object.fromEntries(Object.entries(checks).map(([name, c]) => [name, publicCheck(c)]));

export function publicHealth(report: HealthReport) {
  const { database, rpc, facilitators } = report.checks;
  return { status: report.status, version: report.version, checks: { database: publicCheck(database), rpc: publicChecks(rpc), facilitators: publicChecks(facilitators) } };
}

export const getHealthHandler =
  (check: () => Promise<{ status: number; body: HealthReport }>): Handler =>
  async () => {
    const { status, body } = await check();
    return { status, headers: { 'cache-control': 'no-store' }, body: publicHealth(body) };
  };

/** The health feature's handler map (app.ts merges it with the others). */
export const createHealthHandlers = (check: () => Promise<{ status: number; body: HealthReport }>): Partial<Record<OperationId, Handler>> => ({ getHealth: getHealthHandler(check) });
