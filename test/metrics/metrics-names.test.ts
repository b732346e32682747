/**
 * Every alert rule (prometheus/rules/) and every dashboard panel (grafana/dashboards/) uses
 * only metric names and label names that paycall exports: expressions are parsed with
 * Prometheus' own PromQL grammar (@prometheus-io/lezer-promql), so a renamed metric or label
 * fails here instead of leaving a silent alert or an empty panel. Also: the generated
 * dashboards match grafana/build-dashboards.ts, and the real /metrics names the same families.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { parser } from '@prometheus-io/lezer-promql';
import { createMetrics, declareMissing } from '../../src/metrics/metrics.ts';
import { DASHBOARDS, renderFile } from '../../grafana/build-dashboards.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Labels Prometheus adds to every scraped series (prometheus.yml relabels `service`). */
const TARGET_LABELS = ['job', 'instance', 'service'];
/** Series Prometheus makes itself about each target. */
const SYNTHETIC: Record<string, string[]> = { up: [], scrape_duration_seconds: [], scrape_samples_scraped: [] };

/** Every series name the registry exports, with its label names (histograms: _bucket + le, _sum, _count). */
async function exported(): Promise<Map<string, Set<string>>> {
  const metrics = createMetrics();
  declareMissing(metrics.registry);
  const names = new Map<string, Set<string>>();
  for (const m of metrics.registry.getMetricsAsArray() as unknown as { name: string; labelNames?: string[]; type?: string }[]) {
    const json = (await (m as unknown as { get(): Promise<{ type: string }> }).get()) ?? { type: m.type };
    const labels = [...(m.labelNames ?? []), ...TARGET_LABELS];
    if (json.type === 'histogram') {
      names.set(`${m.name}_bucket`, new Set([...labels, 'le']));
      names.set(`${m.name}_sum`, new Set(labels));
      names.set(`${m.name}_count`, new Set(labels));
    } else if (json.type === 'summary') {
      names.set(m.name, new Set([...labels, 'quantile']));
      names.set(`${m.name}_sum`, new Set(labels));
      names.set(`${m.name}_count`, new Set(labels));
    } else names.set(m.name, new Set(labels));
  }
  // Default Node metrics label some series at collection time only (e.g. version, kind, space, type).
  for (const [name, labels] of Object.entries(SYNTHETIC)) names.set(name, new Set([...labels, ...TARGET_LABELS]));
  return names;
}

interface Use {
  where: string;
  expr: string;
  /** Labels a legend or an annotation template reads from the result. */
  templateLabels: string[];
}

function uses(): Use[] {
  const out: Use[] = [];
  for (const file of readdirSync(join(root, 'prometheus/rules')).filter((f) => f.endsWith('.yml'))) {
    for (const group of parseYaml(readFileSync(join(root, 'prometheus/rules', file), 'utf8')).groups) {
      for (const rule of group.rules) {
        const text = Object.values<string>(rule.annotations ?? {}).join(' ');
        out.push({ where: `prometheus/rules/${file}: ${rule.alert ?? rule.record}`, expr: rule.expr, templateLabels: [...text.matchAll(/\$labels\.([a-zA-Z_]\w*)/g)].map((m) => m[1]) });
      }
    }
  }
  for (const file of readdirSync(join(root, 'grafana/dashboards')).filter((f) => f.endsWith('.json'))) {
    const dashboard = JSON.parse(readFileSync(join(root, 'grafana/dashboards', file), 'utf8'));
    for (const panel of dashboard.panels) {
      for (const t of panel.targets ?? []) {
        out.push({ where: `grafana/dashboards/${file}: ${panel.title}`, expr: t.expr, templateLabels: [...String(t.legendFormat ?? '').matchAll(/\{\{\s*([a-zA-Z_]\w*)\s*\}\}/g)].map((m) => m[1]) });
      }
    }
  }
  return out;
}

/** Metric names with the label names each selector matches on, and every label name in by/without/on/ignoring/group_x. */
function analyse(expr: string): { errors: number[]; selectors: { metric: string; labels: string[] }[]; grouping: string[] } {
  const tree = parser.parse(expr);
  const errors: number[] = [];
  const selectors: { metric: string; labels: string[] }[] = [];
  const grouping: string[] = [];
  const text = (from: number, to: number) => expr.slice(from, to);
  tree.iterate({
    enter(node) {
      if (node.type.isError) errors.push(node.from);
      if (node.name === 'VectorSelector') {
        const s = { metric: '', labels: [] as string[] };
        const cursor = node.node.cursor();
        cursor.iterate((n) => {
          if (n.name === 'Identifier' && !s.metric) s.metric = text(n.from, n.to);
          if (n.name === 'LabelName') s.labels.push(text(n.from, n.to));
          if (n.name === 'QuotedLabelName') s.labels.push(JSON.parse(text(n.from, n.to)));
        });
        // {__name__="x"} selects by name
        selectors.push(s);
        return false;
      }
      if (node.name === 'GroupingLabels') {
        node.node.cursor().iterate((n) => {
          if (n.name === 'LabelName') grouping.push(text(n.from, n.to));
        });
        return false;
      }
      return undefined;
    },
  });
  return { errors, selectors, grouping };
}

test('every rule and panel expression parses, and uses only exported metric and label names', async () => {
  const names = await exported();
  const all = uses();
  assert.ok(all.length >= 40, `expressions found: ${all.length}`);
  const problems: string[] = [];
  for (const u of all) {
    const { errors, selectors, grouping } = analyse(u.expr);
    if (errors.length) problems.push(`${u.where}: PromQL syntax error at ${errors[0]} in ${u.expr}`);
    const available = new Set<string>();
    for (const s of selectors) {
      const labels = names.get(s.metric);
      if (!labels) {
        problems.push(`${u.where}: metric ${s.metric} is not exported`);
        continue;
      }
      for (const l of labels) available.add(l);
      for (const l of s.labels) if (l !== '__name__' && !labels.has(l)) problems.push(`${u.where}: ${s.metric} has no label ${l}`);
    }
    for (const l of grouping) if (!available.has(l)) problems.push(`${u.where}: groups by ${l}, a label none of its metrics has`);
    for (const l of u.templateLabels) if (!available.has(l)) problems.push(`${u.where}: shows label ${l}, which none of its metrics has`);
    if (!selectors.length) problems.push(`${u.where}: queries no metric`);
  }
  assert.deepEqual(problems, []);
});

test('the checker catches a wrong metric name, a wrong matcher label and a wrong grouping label', async () => {
  const names = await exported();
  const bad = [
    'sum(rate(paycall_http_request_total[5m]))',
    'sum(rate(paycall_http_requests_total{network="base"}[5m]))',
    'sum by (chain) (rate(paycall_payments_total[5m]))',
  ];
  for (const expr of bad) {
    const { selectors, grouping } = analyse(expr);
    const unknownMetric = selectors.some((s) => !names.has(s.metric));
    const unknownMatcher = selectors.some((s) => s.labels.some((l) => !names.get(s.metric)?.has(l)));
    const available = new Set(selectors.flatMap((s) => [...(names.get(s.metric) ?? [])]));
    const unknownGrouping = grouping.some((l) => !available.has(l));
    assert.ok(unknownMetric || unknownMatcher || unknownGrouping, `not caught: ${expr}`);
  }
  assert.ok(analyse('sum(rate(paycall_http_requests_total[5m])').errors.length > 0, 'a syntax error is reported');
});

test('the dashboards in grafana/dashboards/ are what grafana/build-dashboards.ts writes', () => {
  for (const spec of DASHBOARDS) {
    const committed = readFileSync(join(root, 'grafana/dashboards', spec.file), 'utf8');
    assert.equal(committed, renderFile(spec), `${spec.file} drifted: run npx tsx grafana/build-dashboards.ts`);
  }
  const uids = readdirSync(join(root, 'grafana/dashboards')).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(readFileSync(join(root, 'grafana/dashboards', f), 'utf8')).uid);
  assert.equal(new Set(uids).size, uids.length, 'dashboard uids are unique');
  const datasource = parseYaml(readFileSync(join(root, 'grafana/provisioning/datasources/prometheus.yml'), 'utf8')).datasources[0].uid;
  for (const spec of DASHBOARDS) for (const p of (JSON.parse(renderFile(spec)) as { panels: { datasource: { uid: string } }[] }).panels) assert.equal(p.datasource.uid, datasource);
});

test('the dashboards answer the operator questions of the brief', () => {
  const exprs = uses().filter((u) => u.where.startsWith('grafana')).map((u) => u.expr).join('\n');
  const questions: [string, RegExp][] = [
    ['money in per chain', /sum by \(network\) \(increase\(paycall_money_in_atomic_total/],
    ['money in per endpoint', /sum by \(endpoint\) \(increase\(paycall_money_in_atomic_total/],
    ['quote-to-paid conversion', /paycall_paid_calls_total.*\/.*paycall_quotes_total/],
    ['verification latency p50/p95/p99 by network and rail', /histogram_quantile\(0\.99, sum by \(le, network, rail\)/],
    ['refusals by reason', /sum by \(result\) \(rate\(paycall_payments_total\{result!~/],
    ['tool run time', /paycall_tool_duration_seconds_bucket/],
    ['tool queue depth', /paycall_tool_queue_depth/],
    ['seller endpoint states', /max by \(status\) \(paycall_seller_endpoints\)/],
    ['probe outcomes by region', /sum by \(region, outcome\) \(rate\(paycall_seller_probes_total/],
    ['upstream latency by endpoint', /sum by \(le, endpoint\) \(rate\(paycall_upstream_duration_seconds_bucket/],
    ['upstream errors by endpoint', /sum by \(endpoint, outcome\) \(rate\(paycall_upstream_requests_total/],
    ['settlement amounts', /paycall_settlement_paid_out_atomic_total/],
    ['settlement duration', /paycall_settlement_duration_seconds/],
    ['payouts by chain and outcome', /sum by \(chain, outcome\) \(increase\(paycall_payouts_total/],
    ['facilitator balances', /paycall_wallet_balance\{asset="native"\}/],
    ['treasury balances', /paycall_wallet_balance\{role="treasury", asset="usdc"\}/],
  ];
  for (const [question, pattern] of questions) assert.match(exprs, pattern, question);
});

describe('the running service exports what the checks above assume', () => {
  let db: TestDatabase;
  let app: TestApp;
  before(async () => {
    db = await createTestDatabase('ops_names');
    app = await startTestApp(testConfig({ DATABASE_URL: db.url }));
  });
  after(async () => {
    await app?.close();
    await db?.drop();
  });

  test('/metrics names every metric family the registry defines', async () => {
    const text = await (await fetch(`${app.metricsUrl}/metrics`)).text();
    const families = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    const metrics = createMetrics();
    declareMissing(metrics.registry);
    for (const m of metrics.registry.getMetricsAsArray() as unknown as { name: string }[]) assert.ok(families.has(m.name), `/metrics lacks ${m.name}`);
    // A scrape-time gauge read from the real database.
    assert.match(text, /^paycall_database_up 1$/m);
    assert.match(text, /^paycall_tool_queue_depth 0$/m);
  });
});
