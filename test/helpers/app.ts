/** Starts the real app on port 0 against a given database; returns its base URL. */
import { spawn, type ChildProcess } from 'node:child_process';
import { loadConfig, type Config } from '../../src/config.ts';
import { createApp, type App, type AppOverrides } from '../../src/app.ts';
import { createLogger, type Logger } from '../../src/log.ts';

export interface TestApp {
  app: App;
  baseUrl: string;
  /** The operator listener: /metrics and /health/details. */
  metricsUrl: string;
  close(): Promise<void>;
}

export const TEST_API_KEY_SECRET = 'test-api-key-secret-0123456789abcdef';

/**
 * Rate limits are off unless a suite sets RATE_LIMITS: suites send many calls from one address.
 * API keys get a fixed secret, so no suite writes one into the data directory. The operator
 * listener takes a free port (suites run beside each other).
 */
export function testConfig(env: Record<string, string | undefined>): Config {
  return loadConfig({ PORT: '0', METRICS_PORT: '0', LOG_LEVEL: 'silent', RATE_LIMITS: 'off', API_KEY_SECRET: TEST_API_KEY_SECRET, ...env });
}

export async function startTestApp(config: Config, log: Logger = createLogger(process.env.TEST_LOG_LEVEL === 'debug' ? 'debug' : 'silent'), overrides: AppOverrides = {}): Promise<TestApp> {
  const app = await createApp(config, log, overrides);
  const address = await app.listen();
  const baseUrl = `http://127.0.0.1:${address.port}`;
  return { app, baseUrl, metricsUrl: `http://127.0.0.1:${app.metricsAddress()!.port}`, close: () => app.close() };
}

/** A spawned service process and what it has printed so far. */
export interface ServiceProcess {
  child: ChildProcess;
  /** Everything it printed (stdout and stderr, in arrival order). */
  output(): string;
  exited: Promise<number | null>;
  /** The API's URL once it logs "listening"; null when it exits first. */
  listening: Promise<string | null>;
  /** Resolves once it logs a line matching `re` after this call. */
  logged(re: RegExp): Promise<void>;
  /** The first group of `re` in everything printed, once it appears; null when it exits first. */
  printed(re: RegExp): Promise<string | null>;
}

/**
 * The one way tests spawn the real service (src/main.ts, as `npm start` runs it): on free
 * ports for the API and the operator listener (METRICS_PORT=0, so instances side by side
 * never meet on 9464), with `env` over this process's environment.
 */
export function spawnService(env: Record<string, string | undefined>, opts: { nodeArgs?: string[] } = {}): ServiceProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', ...(opts.nodeArgs ?? []), 'src/main.ts'], { env: { ...process.env, PORT: '0', METRICS_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    for (const l of [...listeners]) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const match = (re: RegExp, from: number): Promise<string> =>
    new Promise((resolve) => {
      const check = () => {
        const m = re.exec(out.slice(from));
        if (!m) return;
        listeners.delete(check);
        resolve(m[1] ?? m[0]);
      };
      listeners.add(check);
      check();
    });
  const printed = (re: RegExp) => Promise.race([match(re, 0), exited.then(() => null)]);
  return {
    child,
    output: () => out,
    exited,
    listening: printed(/"msg":"listening".*?"url":"(http:[^"]+)"/),
    logged: (re) => match(re, out.length).then(() => undefined),
    printed,
  };
}

/**
 * The real service process on free ports; resolves once both the API and the operator
 * listener are listening, with both URLs. Rejects (with what it printed) when it exits first.
 */
export async function startServiceProcess(env: Record<string, string>, opts: { nodeArgs?: string[] } = {}): Promise<{ child: ChildProcess; url: string; metricsUrl: string; output: () => string }> {
  const svc = spawnService(env, opts);
  const [url, metricsUrl] = await Promise.all([svc.listening, svc.printed(/"msg":"metrics listening".*?"url":"(http:[^"]+)"/)]);
  if (url === null || metricsUrl === null) throw new Error(`src/main.ts exited ${await svc.exited}: ${svc.output()}`);
  return { child: svc.child, url, metricsUrl, output: svc.output };
}
