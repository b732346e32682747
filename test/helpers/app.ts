/** Starts the real app on port 0 against a given database; returns its base URL. */
import { loadConfig, type Config } from '../../src/config.ts';
import { createApp, type App } from '../../src/app.ts';
import { createLogger, type Logger } from '../../src/log.ts';

export interface TestApp {
  app: App;
  baseUrl: string;
  close(): Promise<void>;
}

export function testConfig(env: Record<string, string | undefined>): Config {
  return loadConfig({ PORT: '0', LOG_LEVEL: 'silent', ...env });
}

export async function startTestApp(config: Config, log: Logger = createLogger(process.env.TEST_LOG_LEVEL === 'debug' ? 'debug' : 'silent')): Promise<TestApp> {
  const app = await createApp(config, log);
  const address = await app.listen();
  const baseUrl = `http://127.0.0.1:${address.port}`;
  return { app, baseUrl, close: () => app.close() };
}
