/**
 * `npm run devnet`: the local chains on their own, until Ctrl-C / SIGTERM.
 *
 * Environment (all optional): PAYCALL_DATA_DIR (default .data), PUBLIC_BASE_URL (written as
 * devnet.json baseUrl; default http://HOST:PORT with HOST 127.0.0.1, PORT 4020),
 * DEVNET_BASE_PORT / DEVNET_POLYGON_PORT / DEVNET_SOLANA_PORT / DEVNET_ARBITRUM_PORT /
 * DEVNET_OPTIMISM_PORT / DEVNET_AVALANCHE_PORT (default: free ports), DEVNET_PAYOUT_CHAINS
 * (payout-only chains to start now rather than on first use: `all` or e.g. `arbitrum,optimism`;
 * a service using this devnet from another process cannot start them itself), LOG_LEVEL
 * (default info).
 */
import { resolve } from 'node:path';
import { createLogger, type LogLevel } from '../src/log.ts';
import { startDevnet } from './start-devnet.ts';
import { DirectoryInUseError } from '../src/lib/dir-lock.ts';
import { PAYOUT_ONLY_CHAINS, type PayoutOnlyChain } from '../src/chains/usdc-addresses.ts';

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

const eagerPayoutChains = ((): PayoutOnlyChain[] => {
  const raw = (env.DEVNET_PAYOUT_CHAINS ?? '').trim();
  if (raw === '') return [];
  if (raw === 'all') return [...PAYOUT_ONLY_CHAINS];
  const names = raw.split(',').map((n) => n.trim());
  const unknown = names.find((n) => !(PAYOUT_ONLY_CHAINS as readonly string[]).includes(n));
  if (unknown !== undefined) {
    process.stderr.write(`DEVNET_PAYOUT_CHAINS: "${unknown}" is not one of ${PAYOUT_ONLY_CHAINS.join(', ')} (or all)\n`);
    process.exit(2);
  }
  return names as PayoutOnlyChain[];
})();

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
    ports: {
      base: port('DEVNET_BASE_PORT'),
      polygon: port('DEVNET_POLYGON_PORT'),
      solana: port('DEVNET_SOLANA_PORT'),
      arbitrum: port('DEVNET_ARBITRUM_PORT'),
      optimism: port('DEVNET_OPTIMISM_PORT'),
      avalanche: port('DEVNET_AVALANCHE_PORT'),
    },
  });
  await Promise.all(eagerPayoutChains.map((name) => devnet.ensureChain(name)));
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
    ...eagerPayoutChains.map((name) => {
      const p = devnet.info.payoutChains![name]!;
      return `  ${name.padEnd(9)}(${p.chainId}) ${p.rpcUrl}  USDC ${p.usdc}  (payouts only)`;
    }),
    `  ${PAYOUT_ONLY_CHAINS.filter((n) => !eagerPayoutChains.includes(n)).join(', ') || 'no other chain'}: started on first use`,
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
