/**
 * prometheus/: the real promtool checks the config and the rules and runs the rule unit tests
 * (every alert must have one that makes it fire), then a real Prometheus, started here on a
 * free port with a temporary data directory and our rule files, scrapes a running paycall (real
 * PostgreSQL) and answers queries for paycall metrics. Debian's `prometheus` package provides
 * both binaries (.ci/run installs it); where it cannot be installed the suite is skipped.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const have = (bin: string) => spawnSync(bin, ['--version'], { encoding: 'utf8' }).status === 0;
const missing = ['promtool', 'prometheus'].filter((b) => !have(b));
const skip = missing.length ? `${missing.join(' and ')} not installed (apt-get install prometheus; .ci/run does): Prometheus checks skipped` : false;

const promtool = (...args: string[]) => {
  const r = spawnSync('promtool', args, { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, `promtool ${args.join(' ')}\n${r.stdout}\n${r.stderr}`);
  return r.stdout + r.stderr;
};
const ruleFiles = () => readdirSync(join(root, 'prometheus/rules')).filter((f) => f.endsWith('.yml')).map((f) => `prometheus/rules/${f}`);
const testFiles = () => readdirSync(join(root, 'prometheus/tests')).filter((f) => f.endsWith('.yml')).map((f) => `prometheus/tests/${f}`);

describe('promtool', { skip }, () => {
  test('check config: prometheus/prometheus.yml and the rule files it loads', () => {
    assert.match(promtool('check', 'config', 'prometheus/prometheus.yml'), /SUCCESS/);
  });

  test('check rules: every rule file', () => {
    assert.match(promtool('check', 'rules', ...ruleFiles()), /SUCCESS/);
  });

  test('test rules: the unit tests pass, and every alert has a test that makes it fire', () => {
    assert.match(promtool('test', 'rules', ...testFiles()), /SUCCESS/);
    const alerts = ruleFiles().flatMap((f) => parseYaml(readFileSync(join(root, f), 'utf8')).groups.flatMap((g: any) => g.rules.filter((r: any) => r.alert).map((r: any) => r.alert as string)));
    assert.ok(alerts.length >= 14, `alerts: ${alerts.join(', ')}`);
    const fired = new Set<string>();
    for (const f of testFiles()) {
      for (const t of parseYaml(readFileSync(join(root, f), 'utf8')).tests) for (const a of t.alert_rule_test ?? []) if (a.exp_alerts?.length) fired.add(a.alertname);
    }
    for (const alert of alerts) assert.ok(fired.has(alert), `alert ${alert} has no unit test that makes it fire`);
  });

  test('a broken rule is refused (the checks above are not vacuous)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paycall-rules-'));
    try {
      writeFileSync(join(dir, 'bad.yml'), 'groups:\n  - name: bad\n    rules:\n      - alert: Bad\n        expr: sum(rate(paycall_http_requests_total[5m]) > \n');
      assert.notEqual(spawnSync('promtool', ['check', 'rules', join(dir, 'bad.yml')]).status, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

describe('a real Prometheus scrapes a running paycall', { skip }, () => {
  let db: TestDatabase;
  let app: TestApp;
  let prometheus: ChildProcess;
  let promUrl: string;
  let dataDir: string;
  let output = '';

  before(async () => {
    db = await createTestDatabase('ops_prom');
    app = await startTestApp(testConfig({ DATABASE_URL: db.url }));
    // Something to count: an unknown path and the health check.
    await fetch(`${app.baseUrl}/v1/_health`);
    await fetch(`${app.baseUrl}/v1/nothing-here`, { method: 'POST' });
    dataDir = mkdtempSync(join(tmpdir(), 'paycall-prometheus-'));
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    // Our rules as they are; the scrape target is this test's paycall (its operator listener,
    // as prometheus.yml scrapes METRICS_PORT) instead of Compose's DNS name.
    const config = {
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      rule_files: ruleFiles().map((f) => join(root, f)),
      scrape_configs: [{ job_name: 'paycall', metrics_path: '/metrics', static_configs: [{ targets: [new URL(app.metricsUrl).host] }] }],
    };
    writeFileSync(join(dataDir, 'prometheus.yml'), JSON.stringify(config));
    prometheus = spawn('prometheus', [`--config.file=${join(dataDir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dataDir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    prometheus.stdout!.on('data', (c: Buffer) => (output += c));
    prometheus.stderr!.on('data', (c: Buffer) => (output += c));
  });

  after(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((r) => prometheus.once('exit', r));
      prometheus.kill('SIGTERM');
      await exited;
    }
    await app?.close();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** Asks until Prometheus has an answer (its first scrapes take a moment); the suite's timeout bounds it. */
  const query = async (expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> => {
    for (;;) {
      assert.equal(prometheus.exitCode, null, `prometheus exited: ${output}`);
      const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`).catch(() => null);
      if (res?.ok) {
        const body = (await res.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
        if (body.data.result.length) return body.data.result;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  test('the target is up and paycall metrics answer queries', { timeout: 60_000 }, async () => {
    const [up] = await query('up{job="paycall"} == 1');
    assert.equal(up.metric.instance, new URL(app.metricsUrl).host);
    const health = await query('sum by (operation, status) (paycall_http_requests_total{operation="getHealth"})');
    assert.equal(health[0].metric.status, '200');
    assert.ok(Number(health[0].value[1]) >= 1);
    const notFound = await query('paycall_http_requests_total{status="404"}');
    assert.equal(notFound[0].metric.operation, 'unknown');
    // A scrape-time gauge read from the real database.
    const [database] = await query('paycall_database_up');
    assert.equal(database.value[1], '1');
  });

  test('Prometheus loaded every rule group and evaluates them without errors', { timeout: 60_000 }, async () => {
    type Group = { name: string; rules: { name: string; health: string; lastError?: string }[] };
    let groups: Group[] = [];
    for (;;) {
      const res = await fetch(`${promUrl}/api/v1/rules`);
      groups = ((await res.json()) as { data: { groups: Group[] } }).data.groups;
      // Wait until each rule has been evaluated once.
      if (groups.length && groups.every((g) => g.rules.every((r) => r.health !== 'unknown'))) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const expected = ruleFiles().flatMap((f) => parseYaml(readFileSync(join(root, f), 'utf8')).groups.map((g: { name: string }) => g.name));
    assert.deepEqual(groups.map((g) => g.name).sort(), expected.sort());
    for (const g of groups) for (const r of g.rules) assert.equal(r.health, 'ok', `${r.name}: ${r.lastError}`);
  });
});
