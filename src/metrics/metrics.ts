/**
 * Prometheus metrics. One registry per app (createApp builds it), so tests running several
 * apps in one process never share counters.
 *
 * Counters and histograms count what this process did; Prometheus sums them over instances.
 * Gauges that describe shared state (the database, the chains, wallet balances) read it at
 * scrape time through `sources`, which createApp fills: every instance reports the same figure
 * and the rules and dashboards combine them with max(). prometheus/ and grafana/ use only the
 * names and labels defined here (test/metrics/metrics-names.test.ts checks it).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What the scrape-time gauges read; each is optional (a test app without chains has no balances). */
export interface MetricSources {
  toolPool?: () => { workers: number; busy: number; queued: number };
  /** Database and chain reachability plus wallet balances, cached by the caller (see dependency-probe.ts). */
  dependencies?: () => Promise<DependencySnapshot>;
  /** Payouts and settlement runs as the database has them (src/settlement/payout-store.ts). */
  settlement?: () => Promise<SettlementSnapshot>;
}

export interface SettlementSnapshot {
  /** Broadcast, not confirmed: count and age of the oldest, by chain. */
  unconfirmed: { chain: string; count: number; oldest_s: number }[];
  /** Unfinished payouts whose last attempt failed (retried with back-off), by chain. */
  retrying: { chain: string; count: number }[];
  /** The last finished daily settlement. */
  lastRun: { finished_s: number; sellers: number; total_atomic: string } | null;
}

export interface DependencySnapshot {
  database: boolean;
  /** Per chain: its RPC answered with the configured chain. */
  rpc: Record<string, boolean>;
  /** Balances in whole units (ETH / POL / SOL, USDC), by chain, wallet role and asset. */
  balances: { chain: string; role: WalletRole; asset: 'native' | 'usdc'; value: number }[];
}

/** relayer: pays EVM gas for EIP-3009 settlement; fee_payer: pays Solana fees for buyers; treasury: sends payouts. */
export type WalletRole = 'relayer' | 'fee_payer' | 'treasury';

export interface Metrics {
  registry: Registry;
  sources: MetricSources;
  httpRequests: Counter<'operation' | 'status'>;
  httpDuration: Histogram<'operation'>;
  payments: Counter<'network' | 'result'>;
  quotes: Counter<'endpoint'>;
  toolDuration: Histogram<'tool'>;
  /** Errors that escaped every handler: uncaught exceptions and unhandled promise rejections. */
  processErrors: Counter<'kind'>;
  /** From proof received to settled or refused: chain reads, polling and settlement included. */
  paymentVerification: Histogram<'network' | 'rail' | 'outcome'>;
  /** USDC (atomic units) the chain shows arrived for paid calls (replays count once). */
  moneyIn: Counter<'network' | 'endpoint'>;
  paidCalls: Counter<'network' | 'endpoint'>;
  rateLimited: Counter<'bucket'>;
  /** MCP tools/call at /mcp by tool and outcome (payment_required, paid, replay, refused, failed, error). */
  mcpCalls: Counter<'tool' | 'outcome'>;
  /** Forwarded seller calls (proxy / paywall): outcome ok, http_4xx, http_5xx, timeout, error. */
  upstreamRequests: Counter<'endpoint' | 'outcome'>;
  upstreamDuration: Histogram<'endpoint'>;
  /** Daily settlement (src/settlement/): one run per day, exactly one instance runs it. */
  settlementRuns: Counter<'outcome'>;
  settlementDuration: Histogram<never>;
  settlementLastSuccess: Gauge<never>;
  /** USDC (atomic units) paid to sellers, by payout chain. */
  settlementPaidOut: Counter<'chain'>;
  /** Payouts by chain and outcome: sent, confirmed, failed, carried_over. */
  payouts: Counter<'chain' | 'outcome'>;
  /** Payouts sent whose transaction is not confirmed yet (read from the database at scrape time). */
  payoutsUnconfirmed: Gauge<'chain'>;
}

/**
 * A gauge read from the settlement source at scrape time; a database outage (or no source)
 * keeps the previous figures.
 */
const settlementGaugeOf =
  (sources: MetricSources, registers: Registry[]) =>
  <L extends string>(name: string, help: string, labelNames: L[], read: (s: SettlementSnapshot) => (readonly [Partial<Record<L, string>>, number])[]): Gauge<L> =>
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        let s: SettlementSnapshot | undefined;
        try {
          s = await sources.settlement?.();
        } catch {
          return;
        }
        if (!s) return;
        this.reset();
        for (const [labels, value] of read(s)) this.set(labels, value);
      },
    });

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'paycall_' });
  const sources: MetricSources = {};
  const registers = [registry];

  new Gauge({
    name: 'paycall_tool_queue_depth',
    help: 'Paid tool jobs waiting for a worker on this instance',
    registers,
    collect() {
      const s = sources.toolPool?.();
      if (s) this.set(s.queued);
    },
  });
  new Gauge({
    name: 'paycall_tool_workers',
    help: 'Tool workers on this instance by state (busy, idle)',
    labelNames: ['state'],
    registers,
    collect() {
      const s = sources.toolPool?.();
      if (!s) return;
      this.set({ state: 'busy' }, s.busy);
      this.set({ state: 'idle' }, s.workers - s.busy);
    },
  });
  new Gauge({
    name: 'paycall_database_up',
    help: '1 when the database answered the last check (cached a few seconds), else 0',
    registers,
    async collect() {
      const d = await sources.dependencies?.();
      if (d) this.set(d.database ? 1 : 0);
    },
  });
  new Gauge({
    name: 'paycall_rpc_up',
    help: '1 when the chain RPC answered the last check with the configured chain, else 0',
    labelNames: ['chain'],
    registers,
    async collect() {
      const d = await sources.dependencies?.();
      for (const [chain, ok] of Object.entries(d?.rpc ?? {})) this.set({ chain }, ok ? 1 : 0);
    },
  });
  new Gauge({
    name: 'paycall_wallet_balance',
    help: "The service's wallets in whole units (native gas token or USDC) by chain, role (relayer, fee_payer, treasury) and asset",
    labelNames: ['chain', 'role', 'asset'],
    registers,
    async collect() {
      const d = await sources.dependencies?.();
      // A balance that could not be read is left out (stale values would hide an RPC outage; paycall_rpc_up shows that).
      this.reset();
      for (const b of d?.balances ?? []) this.set({ chain: b.chain, role: b.role, asset: b.asset }, b.value);
    },
  });

  // Settlement state for operators (docs/settlement.md): how long payouts wait for their chain,
  // which ones are being retried, and what the last daily run paid.
  const byChain = <R extends { chain: string }>(rows: R[], value: (r: R) => number) => rows.map((r) => [{ chain: r.chain }, value(r)] as const);
  const settlementGauge = settlementGaugeOf(sources, registers);
  settlementGauge('paycall_payouts_unconfirmed_age_seconds', 'Age of the oldest payout transaction broadcast and not confirmed yet, by chain', ['chain'], (s) =>
    byChain(s.unconfirmed, (u) => u.oldest_s),
  );
  settlementGauge('paycall_payouts_retrying', 'Unfinished payouts whose last attempt failed (retried with back-off), by chain', ['chain'], (s) =>
    byChain(s.retrying, (r) => r.count),
  );
  settlementGauge('paycall_settlement_last_run_sellers', 'Sellers paid by the last finished daily settlement', [], (s) => [[{}, s.lastRun?.sellers ?? 0]]);
  settlementGauge('paycall_settlement_last_run_atomic', 'USDC (atomic units) the last finished daily settlement paid out', [], (s) => [[{}, Number(s.lastRun?.total_atomic ?? 0)]]);

  return {
    registry,
    sources,
    httpRequests: new Counter({ name: 'paycall_http_requests_total', help: 'HTTP requests by operation and status', labelNames: ['operation', 'status'], registers }),
    httpDuration: new Histogram({
      name: 'paycall_http_request_duration_seconds',
      help: 'HTTP request duration by operation',
      labelNames: ['operation'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    payments: new Counter({ name: 'paycall_payments_total', help: 'Payment attempts by network and result (accepted, replay or the refusal reason)', labelNames: ['network', 'result'], registers }),
    quotes: new Counter({ name: 'paycall_quotes_total', help: '402 quotes issued by endpoint', labelNames: ['endpoint'], registers }),
    toolDuration: new Histogram({
      name: 'paycall_tool_duration_seconds',
      help: 'Paid built-in tool runs by tool (queueing included)',
      labelNames: ['tool'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    }),
    processErrors: new Counter({
      name: 'paycall_process_errors_total',
      help: 'Errors that escaped every request handler, by kind (uncaught_exception: the process drains and exits; unhandled_rejection: it stays up)',
      labelNames: ['kind'],
      registers: [registry],
    }),
    paymentVerification: new Histogram({
      name: 'paycall_payment_verification_duration_seconds',
      help: 'Payment proof verification and settlement by network, rail (evm-tx, evm-authorization, solana-tx, solana-transaction) and outcome (accepted, replay, refused)',
      labelNames: ['network', 'rail', 'outcome'],
      // Polling an unseen transaction lasts up to PAYMENT_POLL_TIMEOUT_MS (10 s by default).
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 12, 20, 30],
      registers,
    }),
    moneyIn: new Counter({ name: 'paycall_money_in_atomic_total', help: 'USDC received for paid calls (atomic units, 6 decimals) by network and endpoint', labelNames: ['network', 'endpoint'], registers }),
    paidCalls: new Counter({ name: 'paycall_paid_calls_total', help: 'Paid calls accepted (replays excluded) by network and endpoint', labelNames: ['network', 'endpoint'], registers }),
    mcpCalls: new Counter({ name: 'paycall_mcp_calls_total', help: 'MCP tools/call by tool and outcome (payment_required, paid, replay, refused, failed, error)', labelNames: ['tool', 'outcome'], registers }),
    rateLimited: new Counter({ name: 'paycall_rate_limited_total', help: 'Requests answered 429 rate_limited by bucket', labelNames: ['bucket'], registers }),
    upstreamRequests: new Counter({ name: 'paycall_upstream_requests_total', help: 'Forwarded seller calls by endpoint and outcome (ok, http_4xx, http_5xx, timeout, error)', labelNames: ['endpoint', 'outcome'], registers }),
    upstreamDuration: new Histogram({
      name: 'paycall_upstream_duration_seconds',
      help: 'Seller upstream answer time by endpoint (retries included)',
      labelNames: ['endpoint'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    settlementRuns: new Counter({ name: 'paycall_settlement_runs_total', help: 'Daily settlement runs by outcome (success, failure)', labelNames: ['outcome'], registers }),
    settlementDuration: new Histogram({ name: 'paycall_settlement_duration_seconds', help: 'Daily settlement run time (payouts written; sending follows)', buckets: [0.1, 1, 5, 15, 60, 300, 900, 1800, 3600], registers }),
    settlementLastSuccess: settlementGauge(
      'paycall_settlement_last_success_timestamp_seconds',
      'Unix time the last daily settlement finished (from the database: every instance reports it; 0: never)',
      [],
      (s) => [[{}, s.lastRun?.finished_s ?? 0]],
    ),
    settlementPaidOut: new Counter({ name: 'paycall_settlement_paid_out_atomic_total', help: 'USDC paid to sellers (atomic units) by payout chain', labelNames: ['chain'], registers }),
    payouts: new Counter({ name: 'paycall_payouts_total', help: 'Seller payouts by chain and outcome (sent, confirmed, failed, carried_over)', labelNames: ['chain', 'outcome'], registers }),
    payoutsUnconfirmed: settlementGauge('paycall_payouts_unconfirmed', 'Payouts sent whose transaction is not confirmed yet, by chain', ['chain'], (s) =>
      byChain(s.unconfirmed, (u) => u.count),
    ),
  };
}

/**
 * Metrics another feature registers on the same registry (src/sellers/ creates them with its
 * lifecycle). The rules and dashboards use them; when that feature is not wired into this
 * build, declareMissing registers them empty so /metrics still names them with their labels.
 * A definition with other labels than these fails at start, so a rename cannot silently
 * break an alert.
 */
export const ELSEWHERE_DEFINED = [
  { name: 'paycall_seller_endpoints', type: 'gauge', help: 'Seller endpoints (not deleted) by status', labelNames: ['status'] },
  { name: 'paycall_seller_probes_total', type: 'counter', help: 'Upstream probes by region and outcome', labelNames: ['region', 'outcome'] },
  { name: 'paycall_seller_endpoint_transitions_total', type: 'counter', help: 'Endpoint lifecycle transitions', labelNames: ['from', 'to'] },
  { name: 'paycall_signature_refusals_total', type: 'counter', help: 'Wallet signatures refused, by reason', labelNames: ['reason'] },
] as const;

/** Call after every feature has registered its metrics (end of createApp). */
export function declareMissing(registry: Registry): void {
  for (const m of ELSEWHERE_DEFINED) {
    const existing = registry.getSingleMetric(m.name) as { labelNames?: string[] } | undefined;
    if (existing) {
      const have = [...(existing.labelNames ?? [])].sort().join(',');
      const want = [...m.labelNames].sort().join(',');
      if (have !== want) throw new Error(`metric ${m.name} has labels [${have}]; prometheus/ and grafana/ expect [${want}]`);
      continue;
    }
    const spec = { name: m.name, help: m.help, labelNames: [...m.labelNames], registers: [registry] };
    if (m.type === 'gauge') new Gauge(spec);
    else new Counter(spec);
  }
}
