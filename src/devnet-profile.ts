/**
 * The devnet profile's chains: either start the local chains with the service, or use a
 * devnet that `npm run devnet` started already (its .data/devnet.json + devnet-signers.json).
 * devnet/ is imported only from here, and only in the devnet profile.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChainsConfig, Config } from './config.ts';
import type { Logger } from './log.ts';
import type { DevnetInfo } from '../devnet/start-devnet.ts';

export interface DevnetChains {
  chains: ChainsConfig | null;
  stop(): Promise<void>;
}

export async function devnetChains(config: Config, log: Logger): Promise<DevnetChains> {
  if (config.startDevnet) {
    const { startDevnet } = await import('../devnet/start-devnet.ts');
    const devnet = await startDevnet({ dataDir: config.dataDir, log, baseUrl: config.publicBaseUrl });
    return { chains: devnet.chains, stop: () => devnet.stop() };
  }
  const infoFile = join(config.dataDir, 'devnet.json');
  const signersFile = join(config.dataDir, 'devnet-signers.json');
  if (!existsSync(infoFile) || !existsSync(signersFile)) {
    log.warn('no devnet found; paid endpoints answer 503 until chains are configured', { looked_for: infoFile });
    return { chains: null, stop: async () => {} };
  }
  const info = JSON.parse(readFileSync(infoFile, 'utf8')) as DevnetInfo;
  const { signers } = JSON.parse(readFileSync(signersFile, 'utf8'));
  const c = info.chains;
  // Another process owns that devnet: its payout-only chains that are already up are usable,
  // the others cannot be started from here (they are not payout chains for this process).
  const payoutChains = Object.fromEntries(Object.entries(info.payoutChains ?? {}).map(([name, p]) => [name, { rpcUrl: p.rpcUrl, chainId: p.chainId, usdc: p.usdc }]));
  log.info('using the running devnet', { devnet_json: infoFile, payout_chains: Object.keys(payoutChains) });
  return {
    chains: {
      base: { rpcUrl: c.base.rpcUrl, chainId: c.base.chainId, usdc: c.base.usdc, payTo: c.base.payTo },
      polygon: { rpcUrl: c.polygon.rpcUrl, chainId: c.polygon.chainId, usdc: c.polygon.usdc, payTo: c.polygon.payTo },
      solana: { rpcUrl: c.solana.rpcUrl, usdcMint: c.solana.usdcMint, payTo: c.solana.payTo },
      signers,
      payoutChains,
    },
    stop: async () => {},
  };
}
