/**
 * The only reader of process.env: loadConfig -> (devnet) -> createApp -> listen.
 * SIGTERM/SIGINT drain in-flight requests and close everything (the devnet last) before exiting.
 */
import { loadConfig, ConfigError, type Config } from './config.ts';
import { createLogger } from './log.ts';
import { createApp } from './app.ts';
import { devnetChains } from './devnet-profile.ts';

let config: Config;
try {
  config = loadConfig(process.env);
} catch (e) {
  if (e instanceof ConfigError) {
    process.stderr.write(`paycall: configuration error: ${e.message}\n`);
    process.exit(1);
  }
  throw e;
}

const log = createLogger(config.logLevel, { service: config.serviceName });
let stopDevnet = async () => {};
if (config.profile === 'devnet') {
  const devnet = await devnetChains(config, log);
  config = { ...config, chains: devnet.chains };
  stopDevnet = devnet.stop;
}
const app = await createApp(config, log);
const address = await app.listen();
log.info('listening', { url: `http://${address.address}:${address.port}`, profile: config.profile, database: config.databaseUrl ? 'postgresql' : `pglite:${config.pgliteDir}` });

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  log.info('shutting down', { signal });
  try {
    await app.close();
    await stopDevnet();
    log.info('stopped');
    process.exit(0);
  } catch (e) {
    log.error('shutdown failed', { err: e });
    process.exit(1);
  }
};
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
