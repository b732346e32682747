/**
 * `npm run devnet`: the local chains on their own, until Ctrl-C / SIGTERM.
 *
 * Environment (all optional): PAYCALL_DATA_DIR (default .data), PUBLIC_BASE_URL (written as
 * devnet.json baseUrl; default http://HOST:PORT with HOST 127.0.0.1, PORT 4020),
 * DEVNET_BASE_PORT / DEVNET_POLYGON_PORT / DEVNET_SOLANA_PORT (default: free ports),
 * LOG_LEVEL (default info).
 */
import { resolve } from 'node:path';
import { createLogger, type LogLevel } from '../src/log.ts';
import { startDevnet } from './start-devnet.ts';
import { DirectoryInUseError } from '../src/lib/dir-lock.ts';

const env = process.env;
const port = (name: string): number | undefined => {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    process.stderr.write(`${name}: must be a port number, got "${raw}"\n`);
    process.exit(2);
  }
  return n;
};

const level = (env.LOG_LEVEL ?? 'info') as LogLevel;
const log = createLogger(['debug', 'info', 'warn', 'error', 'silent'].includes(level) ? level : 'info');
const dataDir = resolve(env.PAYCALL_DATA_DIR || '.data');
const baseUrl = (env.PUBLIC_BASE_URL || `http://${env.HOST || '127.0.0.1'}:${env.PORT || '4020'}`).replace(/\/+$/, '');

const t0 = performance.now();
let devnet: Awaited<ReturnType<typeof startDevnet>>;
try {
  devnet = await startDevnet({
    dataDir,
    log,
    baseUrl,
    ports: { base: port('DEVNET_BASE_PORT'), polygon: port('DEVNET_POLYGON_PORT'), solana: port('DEVNET_SOLANA_PORT') },
  });
} catch (e) {
  // One clear line, nothing touched: the running devnet keeps its devnet.json.
  if (!(e instanceof DirectoryInUseError)) throw e;
  process.stderr.write(`paycall devnet: the data directory ${e.message}\n`);
  process.exit(1);
}
const seconds = ((performance.now() - t0) / 1000).toFixed(1);
const c = devnet.info.chains;
process.stdout.write(
  [
    `paycall devnet up in ${seconds} s`,
    `  devnet.json    ${devnet.files.devnetJson}`,
    `  signers        ${devnet.files.signersJson}`,
    `  base    (8453) ${c.base.rpcUrl}  USDC ${c.base.usdc}  payTo ${c.base.payTo}`,
    `  polygon  (137) ${c.polygon.rpcUrl}  USDC ${c.polygon.usdc}  payTo ${c.polygon.payTo}`,
    `  solana         ${c.solana.rpcUrl} (ws ${devnet.extras.solanaWsUrl})  USDC ${c.solana.usdcMint}  payTo ${c.solana.payTo}`,
    `  buyers         ${devnet.info.accounts.length} funded accounts (keys in devnet.json)`,
    'Ctrl-C to stop.',
    '',
  ].join('\n'),
);

let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  log.info('stopping devnet', { signal });
  devnet.stop().then(
    () => process.exit(0),
    (e: unknown) => {
      log.error('devnet stop failed', { error: e });
      process.exit(1);
    },
  );
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => shutdown(signal));
