/**
 * Writes the operator dashboards of grafana/dashboards/ (provisioned by grafana/provisioning/).
 * Each dashboard answers a few questions; each panel's description says which. Edit here, then
 *   npx tsx grafana/build-dashboards.ts          (test/ops-dashboards.test.ts fails when the JSON drifts)
 * paycall.json, the request overview, is kept by hand.
 *
 * Counters are per instance: panels sum them. Gauges about shared state (wallets, endpoints,
 * settlement) are the same on every instance: panels take max().
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface Target {
  expr: string;
  legend: string;
}
interface PanelSpec {
  title: string;
  description: string;
  unit: string;
  targets: Target[];
  type?: 'timeseries' | 'stat' | 'bargauge';
  width?: number;
}
interface DashboardSpec {
  file: string;
  uid: string;
  title: string;
  description: string;
  panels: PanelSpec[];
}

const USDC = 1e6;

export const DASHBOARDS: DashboardSpec[] = [
  {
    file: 'paycall-money.json',
    uid: 'paycall-money',
    title: 'paycall / money in',
    description: 'What buyers pay, on which chain, for which endpoint; how many quotes turn into payments; what is refused.',
    panels: [
      {
        title: 'Money in per chain (USDC per hour)',
        description: 'How much USDC arrives on each chain? Amounts are what the chain shows arrived, not what was claimed.',
        unit: 'currencyUSD',
        targets: [{ expr: `sum by (network) (increase(paycall_money_in_atomic_total[1h])) / ${USDC}`, legend: '{{network}}' }],
      },
      {
        title: 'Money in per endpoint (USDC per hour)',
        description: 'Which endpoints earn? Built-in tools by name, seller endpoints by their key.',
        unit: 'currencyUSD',
        targets: [{ expr: `sum by (endpoint) (increase(paycall_money_in_atomic_total[1h])) / ${USDC}`, legend: '{{endpoint}}' }],
      },
      {
        title: 'Money in, last 24 hours (USDC)',
        description: 'Total received in the last day, all chains.',
        unit: 'currencyUSD',
        type: 'stat',
        width: 8,
        targets: [{ expr: `sum(increase(paycall_money_in_atomic_total[24h])) / ${USDC}`, legend: 'USDC' }],
      },
      {
        title: 'Paid calls per chain (per second)',
        description: 'Accepted payments (replays excluded) by chain.',
        unit: 'reqps',
        width: 16,
        targets: [{ expr: 'sum by (network) (rate(paycall_paid_calls_total[5m]))', legend: '{{network}}' }],
      },
      {
        title: 'Quote-to-paid conversion by endpoint',
        description: 'Of the 402 quotes an endpoint issued, what share came back paid? A drop after a release or price change shows here first.',
        unit: 'percentunit',
        targets: [{ expr: 'sum by (endpoint) (rate(paycall_paid_calls_total[1h])) / sum by (endpoint) (rate(paycall_quotes_total[1h]))', legend: '{{endpoint}}' }],
      },
      {
        title: 'Payment refusals by reason',
        description: 'Why are proofs refused? payment_unconfirmed points at RPCs, amount_mismatch / quote_expired at buyers, invalid_payment at clients.',
        unit: 'reqps',
        targets: [{ expr: 'sum by (result) (rate(paycall_payments_total{result!~"accepted|replay"}[5m]))', legend: '{{result}}' }],
      },
      {
        title: 'MCP tool calls by tool and outcome',
        description: 'tools/call at /mcp: payment_required (unpaid quote), paid, replay, refused (payment refused), failed (paid run failed), error (before any sale: unknown tool, bad arguments).',
        unit: 'reqps',
        targets: [{ expr: 'sum by (tool, outcome) (rate(paycall_mcp_calls_total[5m]))', legend: '{{tool}} {{outcome}}' }],
      },
      {
        title: 'Rate-limited requests by bucket',
        description: 'Requests answered 429 rate_limited (RATE_LIMITS). Paid calls are never limited.',
        unit: 'reqps',
        targets: [{ expr: 'sum by (bucket) (rate(paycall_rate_limited_total[5m]))', legend: '{{bucket}}' }],
      },
      {
        title: 'Error answers by status',
        description: 'All 4xx/5xx answers: 402 quotes and refusals, 429 limits, 5xx failures.',
        unit: 'reqps',
        targets: [{ expr: 'sum by (status) (rate(paycall_http_requests_total{status=~"4..|5.."}[5m]))', legend: '{{status}}' }],
      },
    ],
  },
  {
    file: 'paycall-payments.json',
    uid: 'paycall-payments',
    title: 'paycall / payment verification',
    description: 'How long proving a payment takes on each network and rail, and how often it fails.',
    panels: [
      ...([0.5, 0.95, 0.99] as const).map(
        (q): PanelSpec => ({
          title: `Verification latency p${q * 100} by network and rail`,
          description: `p${q * 100} time from proof received to settled or refused, per network and rail (evm-tx, evm-authorization, solana-tx, solana-transaction). Includes polling for unseen transactions and the relayer's own settlement.`,
          unit: 's',
          width: 8,
          targets: [{ expr: `histogram_quantile(${q}, sum by (le, network, rail) (rate(paycall_payment_verification_duration_seconds_bucket[5m])))`, legend: '{{network}} {{rail}}' }],
        }),
      ),
      {
        title: 'Verification outcomes by network',
        description: 'accepted, replay (same proof, same request: the stored answer) and refused.',
        unit: 'reqps',
        targets: [{ expr: 'sum by (network, outcome) (rate(paycall_payment_verification_duration_seconds_count[5m]))', legend: '{{network}} {{outcome}}' }],
      },
      {
        title: 'Refusals by network and reason',
        description: 'Which network refuses what?',
        unit: 'reqps',
        targets: [{ expr: 'sum by (network, result) (rate(paycall_payments_total{result!~"accepted|replay"}[5m]))', legend: '{{network}} {{result}}' }],
      },
      {
        title: 'Chain RPC reachable',
        description: '1 when the RPC of the chain answers with the configured chain (checked at scrape time, at most every 30 s).',
        unit: 'bool',
        targets: [{ expr: 'max by (chain) (paycall_rpc_up)', legend: '{{chain}}' }],
      },
      {
        title: 'Database reachable per instance',
        description: '1 when the instance reaches PostgreSQL.',
        unit: 'bool',
        targets: [{ expr: 'min by (instance) (paycall_database_up)', legend: '{{instance}}' }],
      },
    ],
  },
  {
    file: 'paycall-tools.json',
    uid: 'paycall-tools',
    title: 'paycall / built-in tools',
    description: 'How long the paid document tools take and whether the workers keep up.',
    panels: [
      {
        title: 'Tool run time p50 / p95 by tool',
        description: 'Paid runs of pdf-md, pdf-text, pdf-json and invoice-extract, queueing included.',
        unit: 's',
        targets: [
          { expr: 'histogram_quantile(0.5, sum by (le, tool) (rate(paycall_tool_duration_seconds_bucket[5m])))', legend: 'p50 {{tool}}' },
          { expr: 'histogram_quantile(0.95, sum by (le, tool) (rate(paycall_tool_duration_seconds_bucket[5m])))', legend: 'p95 {{tool}}' },
        ],
      },
      {
        title: 'Tool runs per second by tool',
        description: 'How much paid tool work arrives.',
        unit: 'reqps',
        targets: [{ expr: 'sum by (tool) (rate(paycall_tool_duration_seconds_count[5m]))', legend: '{{tool}}' }],
      },
      {
        title: 'Queue depth by instance',
        description: 'Paid documents waiting for a worker. A queue that keeps growing needs more instances or TOOL_WORKERS; a full queue answers 503 tools_busy.',
        unit: 'short',
        targets: [{ expr: 'sum by (instance) (paycall_tool_queue_depth)', legend: '{{instance}}' }],
      },
      {
        title: 'Workers busy / idle',
        description: 'Tool workers over all instances.',
        unit: 'short',
        targets: [{ expr: 'sum by (state) (paycall_tool_workers)', legend: '{{state}}' }],
      },
    ],
  },
  {
    file: 'paycall-sellers.json',
    uid: 'paycall-sellers',
    title: 'paycall / seller endpoints',
    description: 'The state of the sellers’ endpoints, what the probes see from each region, and how the upstreams answer.',
    panels: [
      {
        title: 'Endpoints by state',
        description: 'pending (being probed), active, degraded (failing), suspended (410, nobody pays). Read from the database: the same on every instance.',
        unit: 'short',
        targets: [{ expr: 'max by (status) (paycall_seller_endpoints)', legend: '{{status}}' }],
      },
      {
        title: 'Probe outcomes by region',
        description: 'Activation and health probes per region label and outcome.',
        unit: 'reqps',
        targets: [{ expr: 'sum by (region, outcome) (rate(paycall_seller_probes_total[15m]))', legend: '{{region}} {{outcome}}' }],
      },
      {
        title: 'Probe failure share by region',
        description: 'One region failing most probes is our network there, not the sellers.',
        unit: 'percentunit',
        targets: [{ expr: 'sum by (region) (rate(paycall_seller_probes_total{outcome="failed"}[15m])) / sum by (region) (rate(paycall_seller_probes_total[15m]))', legend: '{{region}}' }],
      },
      {
        title: 'Lifecycle transitions',
        description: 'Endpoints moving between states (per hour).',
        unit: 'short',
        targets: [{ expr: 'sum by (from, to) (increase(paycall_seller_endpoint_transitions_total[1h]))', legend: '{{from}} → {{to}}' }],
      },
      {
        title: 'Upstream latency p95 by endpoint',
        description: 'How long sellers’ upstreams take to answer forwarded paid calls (retries included).',
        unit: 's',
        targets: [{ expr: 'histogram_quantile(0.95, sum by (le, endpoint) (rate(paycall_upstream_duration_seconds_bucket[5m])))', legend: '{{endpoint}}' }],
      },
      {
        title: 'Upstream errors by endpoint',
        description: 'Forwarded calls that did not end well: http_5xx, timeout, error (connection), http_4xx.',
        unit: 'reqps',
        targets: [{ expr: 'sum by (endpoint, outcome) (rate(paycall_upstream_requests_total{outcome!="ok"}[5m]))', legend: '{{endpoint}} {{outcome}}' }],
      },
    ],
  },
  {
    file: 'paycall-settlement.json',
    uid: 'paycall-settlement',
    title: 'paycall / settlement and wallets',
    description: 'What the daily settlement paid, how long it took, the payouts by chain and outcome, and the balances of the facilitator and treasury wallets.',
    panels: [
      {
        title: 'Paid out to sellers per chain (USDC per day)',
        description: 'Daily settlement amounts by payout chain.',
        unit: 'currencyUSD',
        targets: [{ expr: `sum by (chain) (increase(paycall_settlement_paid_out_atomic_total[1d])) / ${USDC}`, legend: '{{chain}}' }],
      },
      {
        title: 'Payouts by chain and outcome (per day)',
        description: 'sent, confirmed, failed, carried_over (below the minimum).',
        unit: 'short',
        targets: [{ expr: 'sum by (chain, outcome) (increase(paycall_payouts_total[1d]))', legend: '{{chain}} {{outcome}}' }],
      },
      {
        title: 'Settlement duration',
        description: 'Time of the daily run (mean of the runs in the window).',
        unit: 's',
        width: 8,
        targets: [{ expr: 'sum(increase(paycall_settlement_duration_seconds_sum[1d])) / sum(increase(paycall_settlement_duration_seconds_count[1d]))', legend: 'duration' }],
      },
      {
        title: 'Since the last successful settlement',
        description: 'Over 24.5 hours means today’s settlement is late (alert PaycallSettlementLate).',
        unit: 's',
        type: 'stat',
        width: 8,
        targets: [{ expr: 'time() - max(paycall_settlement_last_success_timestamp_seconds)', legend: 'age' }],
      },
      {
        title: 'Unconfirmed payouts',
        description: 'Payouts sent and not yet confirmed on chain.',
        unit: 'short',
        width: 8,
        targets: [{ expr: 'max by (chain) (paycall_payouts_unconfirmed)', legend: '{{chain}}' }],
      },
      {
        title: 'Oldest unconfirmed payout',
        description: 'Age of the oldest payout transaction broadcast and not confirmed, by chain. Alert PaycallPayoutUnconfirmed after 30 minutes.',
        unit: 's',
        width: 8,
        targets: [{ expr: 'max by (chain) (paycall_payouts_unconfirmed_age_seconds)', legend: '{{chain}}' }],
      },
      {
        title: 'Payouts waiting for a retry',
        description: 'Payouts whose last attempt failed; retried with back-off (the reason is in payout.error).',
        unit: 'short',
        width: 8,
        targets: [{ expr: 'max by (chain) (paycall_payouts_retrying)', legend: '{{chain}}' }],
      },
      {
        title: 'Last settlement: sellers and USDC',
        description: 'What the last finished daily settlement paid.',
        unit: 'short',
        type: 'stat',
        width: 8,
        targets: [
          { expr: 'max(paycall_settlement_last_run_sellers)', legend: 'sellers' },
          { expr: `max(paycall_settlement_last_run_atomic) / ${USDC}`, legend: 'USDC' },
        ],
      },
      {
        title: 'Settlement runs by outcome',
        description: 'success and failure per day.',
        unit: 'short',
        targets: [{ expr: 'sum by (outcome) (increase(paycall_settlement_runs_total[1d]))', legend: '{{outcome}}' }],
      },
      {
        title: 'Gas balances: relayer, fee payer, treasuries',
        description: 'Native balances (ETH on Base, POL on Polygon, SOL) of the wallets that pay fees. Alert PaycallGasLow below a day of traffic.',
        unit: 'short',
        targets: [{ expr: 'max by (chain, role) (paycall_wallet_balance{asset="native"})', legend: '{{chain}} {{role}}' }],
      },
      {
        title: 'Treasury USDC by chain',
        description: 'What the treasuries hold for seller payouts. Alert PaycallTreasuryLow under 100 USDC.',
        unit: 'currencyUSD',
        targets: [{ expr: 'max by (chain) (paycall_wallet_balance{role="treasury", asset="usdc"})', legend: '{{chain}}' }],
      },
    ],
  },
];

/** Grafana's JSON model (schema 39): a 24-column grid, panels flow left to right. */
export function renderDashboard(spec: DashboardSpec): object {
  let x = 0;
  let y = 0;
  const panels = spec.panels.map((p, i) => {
    const w = p.width ?? 12;
    if (x + w > 24) {
      x = 0;
      y += 8;
    }
    const gridPos = { x, y, w, h: 8 };
    x += w;
    return {
      id: i + 1,
      type: p.type ?? 'timeseries',
      title: p.title,
      description: p.description,
      datasource: { type: 'prometheus', uid: 'prometheus' },
      gridPos,
      fieldConfig: { defaults: { unit: p.unit }, overrides: [] },
      options: p.type === 'stat' ? { reduceOptions: { calcs: ['lastNotNull'] } } : { legend: { displayMode: 'list', placement: 'bottom' } },
      targets: p.targets.map((t, j) => ({ refId: String.fromCharCode(65 + j), expr: t.expr, legendFormat: t.legend })),
    };
  });
  return {
    title: spec.title,
    uid: spec.uid,
    description: spec.description,
    schemaVersion: 39,
    version: 1,
    refresh: '30s',
    time: { from: 'now-24h', to: 'now' },
    timezone: 'utc',
    tags: ['paycall'],
    links: [{ type: 'dashboards', tags: ['paycall'], asDropdown: true, title: 'paycall' }],
    panels,
  };
}

export const renderFile = (spec: DashboardSpec) => `${JSON.stringify(renderDashboard(spec), null, 2)}\n`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = fileURLToPath(new URL('./dashboards/', import.meta.url));
  for (const spec of DASHBOARDS) {
    writeFileSync(`${dir}${spec.file}`, renderFile(spec));
    console.log(`wrote grafana/dashboards/${spec.file} (${spec.panels.length} panels)`);
  }
}
