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

/**
 * The real service process (src/main.ts) on free ports (API and operator listener); resolves
 * once it logs "listening", with both URLs.
 */
export function startServiceProcess(env: Record<string, string>, opts: { nodeArgs?: string[] } = {}): Promise<{ child: ChildProcess; url: string; metricsUrl: string; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...(opts.nodeArgs ?? []), 'src/main.ts'], { env: { ...process.env, PORT: '0', METRICS_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /"msg":"listening".*?"url":"(http:[^"]+)"/.exec(out);
      const metrics = /"msg":"metrics listening".*?"url":"(http:[^"]+)"/.exec(out);
      if (m && metrics) resolve({ child, url: m[1], metricsUrl: metrics[1], output: () => out });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`src/main.ts exited ${code}: ${out}`)));
  });
}
