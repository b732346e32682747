/**
 * Starts the local chains: two `hardhat node` processes (Base 8453, Polygon 137) with the test
 * USDC at the mainnet USDC addresses, and a LiteSVM-backed Solana JSON-RPC server (in this
 * process) with a USDC mint at the mainnet mint address. Writes `<dataDir>/devnet.json` in
 * the shape DESIGN.md section 4 fixes (what buyers and outside checks read) and the signer
 * secrets to `<dataDir>/devnet-signers.json` (what the service needs; kept out of devnet.json).
 *
 * The payout-only chains (Arbitrum 42161, Optimism 10, Avalanche 43114) are hardhat nodes too,
 * set up the same way, but started on first use (ensureChain): only sellers paid there need
 * them, and three more nodes would slow every `npm start` and test start. devnet.json lists
 * them under `payoutChains` once started.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { privateKeyToAccount } from 'viem/accounts';
import type { Address } from 'viem';
import type { ChainsConfig, SignerConfig } from '../src/config.ts';
import type { Logger } from '../src/log.ts';
import { CHAIN_IDS, PAYOUT_ONLY_CHAINS, PAYOUT_ONLY_USDC_ADDRESSES, USDC_ADDRESSES, USDC_DECIMALS, type PayoutOnlyChain } from '../src/chains/usdc-addresses.ts';
import { createSerialQueue } from '../src/chains/serial-queue.ts';
import { readTestUsdcArtifact } from './contracts/compile-test-usdc.ts';
import { devnetKeys } from './devnet-keys.ts';
import { acquireDirLock } from '../src/lib/dir-lock.ts';
import { startHardhatNode, type HardhatNode } from './evm/hardhat-node.ts';
import { setupEvmChain } from './evm/setup-evm-chain.ts';
import { seedSolana } from './solana/setup-solana.ts';
import { startSolanaRpcServer, type SolanaRpcServer } from './solana/solana-rpc-server.ts';
import { createSvmLedger, type SvmLedger } from './solana/svm-ledger.ts';

/** The public devnet description: `<dataDir>/devnet.json`, exactly DESIGN.md's shape. */
export interface DevnetInfo {
  baseUrl: string;
  chains: {
    base: { rpcUrl: string; chainId: number; usdc: string; payTo: string };
    polygon: { rpcUrl: string; chainId: number; usdc: string; payTo: string };
    solana: { rpcUrl: string; usdcMint: string; payTo: string; feePayer: string };
  };
  accounts: { evmPrivateKey: string; solanaSecretKey: string }[];
  /** The payout-only chains started so far (an addition to DESIGN's shape; absent until one starts). */
  payoutChains?: Partial<Record<PayoutOnlyChain, DevnetPayoutChain>>;
}

/** A started payout-only chain: the treasury (and the buyer accounts) hold gas and USDC there. */
export interface DevnetPayoutChain {
  rpcUrl: string;
  chainId: number;
  usdc: string;
}

/** Devnet-only facts for tests and tools; in the handle and devnet-signers.json, never in devnet.json. */
export interface DevnetExtras {
  /** A second token per chain (same contract / same decimals, another address): a wrong asset. */
  fakeUsdc: { base: string; polygon: string; solana: string } & Partial<Record<PayoutOnlyChain, string>>;
  /** masterMinter of both EVM test USDC contracts. */
  evmMinterKey: string;
  /** Mint authority of both SPL mints (base58 secret key). */
  solanaMintAuthorityKey: string;
  /** The Solana WebSocket endpoint (also HTTP port + 1, web3.js's default). */
  solanaWsUrl: string;
  /** Relayer / treasury / fee-payer public addresses. */
  addresses: { evmRelayer: string; evmTreasury: string; solanaFeePayer: string; solanaTreasury: string; solanaTreasuryUsdcAccount: string };
}

export interface DevnetHandle {
  info: DevnetInfo;
  signers: SignerConfig;
  chains: ChainsConfig;
  extras: DevnetExtras;
  /** Paths of the files written. */
  files: { devnetJson: string; signersJson: string };
  /** Child process ids (the hardhat nodes; a payout-only chain's once started). */
  pids: { base: number; polygon: number } & Partial<Record<PayoutOnlyChain, number>>;
  /**
   * Starts a payout-only chain's node once (concurrent callers share the start; a failed start
   * is tried again by the next call) and answers its endpoint. chains.payoutChains calls it.
   */
  ensureChain(name: PayoutOnlyChain): Promise<DevnetPayoutChain>;
  /** Moves the Solana chain `slots` slots ahead at once (tests: a blockhash expires after 150). */
  advanceSolanaSlots(slots: number): void;
  stop(): Promise<void>;
}

export interface StartDevnetOptions {
  dataDir: string;
  log: Logger;
  /** The service URL written into devnet.json (default http://127.0.0.1:4020). */
  baseUrl?: string;
  /** Fixed ports; 0 or absent picks free ones. Solana also uses port + 1 for WebSocket. */
  ports?: { base?: number; polygon?: number; solana?: number } & Partial<Record<PayoutOnlyChain, number>>;
  /** Number of funded buyer accounts (default 5). */
  buyers?: number;
  /** Solana slot interval without traffic (default 400 ms). */
  solanaSlotMs?: number;
}

const NATIVE_EACH = 10_000n * 10n ** 18n;
const LAMPORTS_EACH = 1_000n * 1_000_000_000n;
const USDC_EACH = 1_000_000n * 10n ** 6n;

async function writeJsonAtomic(path: string, value: unknown, mode?: number): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(value, null, 2) + '\n', { mode });
  await rename(tmp, path);
}

export async function startDevnet(opts: StartDevnetOptions): Promise<DevnetHandle> {
  const log = opts.log.child({ component: 'devnet' });
  const started = performance.now();
  await mkdir(opts.dataDir, { recursive: true });
  // Before anything is started or written: a second devnet on this directory would rewrite
  // devnet.json under the running one (DirectoryInUseError names the process holding it).
  const lock = acquireDirLock(join(opts.dataDir, 'devnet.lock'), { role: 'paycall devnet', dir: opts.dataDir });
  const keys = devnetKeys(opts.buyers ?? 5);
  const artifact = readTestUsdcArtifact();

  const evmRelayer = privateKeyToAccount(keys.evmRelayerKey).address;
  const evmTreasury = privateKeyToAccount(keys.evmTreasuryKey).address;
  const evmBuyers = keys.buyers.map((b) => privateKeyToAccount(b.evmPrivateKey).address);

  const nodes: HardhatNode[] = [];
  let ledger: SvmLedger | null = null;
  let solanaServer: SolanaRpcServer | null = null;
  const lazyStarts = new Map<PayoutOnlyChain, Promise<DevnetPayoutChain>>();
  let stopped = false;
  // Children must not outlive this process, even when it exits without calling stop().
  const killOnExit = () => nodes.forEach((n) => n.killNow());
  process.once('exit', killOnExit);

  const teardown = async () => {
    stopped = true;
    process.off('exit', killOnExit);
    try {
      // A payout-only chain still starting would come up after its node was missed here.
      await Promise.allSettled(lazyStarts.values());
      await Promise.all([...nodes.map((n) => n.stop()), solanaServer?.close()]);
      ledger?.close();
    } finally {
      lock.release();
    }
  };

  try {
    const startNode = async (name: 'base' | 'polygon' | PayoutOnlyChain) => {
      const node = await startHardhatNode({ chainId: CHAIN_IDS[name], name, workDir: join(opts.dataDir, 'hardhat', name), log, port: opts.ports?.[name] });
      nodes.push(node);
      const usdc = (name === 'base' || name === 'polygon' ? USDC_ADDRESSES[name] : PAYOUT_ONLY_USDC_ADDRESSES[name]) as Address;
      try {
        const { fakeUsdc } = await setupEvmChain({
          rpcUrl: node.rpcUrl,
          chainId: CHAIN_IDS[name],
          name,
          usdc,
          artifact,
          minterKey: keys.evmMinterKey,
          gasFor: [...evmBuyers, evmRelayer, evmTreasury],
          usdcFor: [...evmBuyers, evmTreasury],
          nativeEach: NATIVE_EACH,
          usdcEach: USDC_EACH,
          log,
        });
        return { node, fakeUsdc, usdc };
      } catch (e) {
        // Not left running: a lazily started chain is started afresh by the next ensureChain.
        nodes.splice(nodes.indexOf(node), 1);
        await node.stop();
        throw e;
      }
    };

    const startSolana = async () => {
      ledger = createSvmLedger({ log: log.child({ chain: 'solana' }), slotMs: opts.solanaSlotMs });
      seedSolana(ledger, {
        usdcMint: USDC_ADDRESSES.solana,
        fakeMint: keys.solanaFakeMint.publicKey.toBase58(),
        mintAuthority: keys.solanaMintAuthority.publicKey,
        solOnly: [keys.solanaFeePayer.publicKey],
        holders: [...keys.buyers.map((b) => b.solana.publicKey), keys.solanaTreasury.publicKey],
        lamportsEach: LAMPORTS_EACH,
        usdcEach: USDC_EACH,
        decimals: USDC_DECIMALS,
      });
      solanaServer = await startSolanaRpcServer({ ledger, log: log.child({ chain: 'solana' }), port: opts.ports?.solana });
      return solanaServer;
    };

    // allSettled, not all: on a failure every part must have finished starting before the
    // teardown, or a node that comes up late would be left running.
    const settled = await Promise.allSettled([startNode('base'), startNode('polygon'), startSolana()] as const);
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    const [base, polygon, solana] = settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as [
      Awaited<ReturnType<typeof startNode>>,
      Awaited<ReturnType<typeof startNode>>,
      SolanaRpcServer,
    ];

    const info: DevnetInfo = {
      baseUrl: opts.baseUrl ?? 'http://127.0.0.1:4020',
      chains: {
        base: { rpcUrl: base.node.rpcUrl, chainId: CHAIN_IDS.base, usdc: USDC_ADDRESSES.base, payTo: evmTreasury },
        polygon: { rpcUrl: polygon.node.rpcUrl, chainId: CHAIN_IDS.polygon, usdc: USDC_ADDRESSES.polygon, payTo: evmTreasury },
        solana: {
          rpcUrl: solana.url,
          usdcMint: USDC_ADDRESSES.solana,
          payTo: keys.solanaTreasury.publicKey.toBase58(),
          feePayer: keys.solanaFeePayer.publicKey.toBase58(),
        },
      },
      accounts: keys.buyers.map((b) => ({ evmPrivateKey: b.evmPrivateKey, solanaSecretKey: bs58.encode(b.solana.secretKey) })),
    };
    const signers: SignerConfig = {
      evmRelayerKey: keys.evmRelayerKey,
      evmTreasuryKey: keys.evmTreasuryKey,
      solanaFeePayerKey: bs58.encode(keys.solanaFeePayer.secretKey),
      solanaTreasuryKey: bs58.encode(keys.solanaTreasury.secretKey),
    };
    const pids: DevnetHandle['pids'] = { base: base.node.pid, polygon: polygon.node.pid };
    const files = { devnetJson: join(opts.dataDir, 'devnet.json'), signersJson: join(opts.dataDir, 'devnet-signers.json') };
    // One writer at a time: both files are rewritten whenever a payout-only chain starts.
    const writes = createSerialQueue();
    const writeFiles = () =>
      writes(async () => {
        await writeJsonAtomic(files.devnetJson, info);
        await writeJsonAtomic(files.signersJson, { signers, extras }, 0o600);
      });

    const ensureChain = (name: PayoutOnlyChain): Promise<DevnetPayoutChain> => {
      if (stopped) return Promise.reject(new Error(`the devnet is stopped; ${name} was not started`));
      let started = lazyStarts.get(name);
      if (!started) {
        const t0 = performance.now();
        started = startNode(name).then(async ({ node, fakeUsdc, usdc }) => {
          const chain: DevnetPayoutChain = { rpcUrl: node.rpcUrl, chainId: CHAIN_IDS[name], usdc };
          info.payoutChains = { ...info.payoutChains, [name]: chain };
          extras.fakeUsdc[name] = fakeUsdc;
          pids[name] = node.pid;
          await writeFiles();
          log.info('devnet payout chain started', { chain: name, chainId: chain.chainId, rpcUrl: chain.rpcUrl, ms: Math.round(performance.now() - t0) });
          return chain;
        });
        started.catch(() => lazyStarts.delete(name));
        lazyStarts.set(name, started);
      }
      return started;
    };

    const chains: ChainsConfig = {
      base: { ...info.chains.base },
      polygon: { ...info.chains.polygon },
      solana: { rpcUrl: info.chains.solana.rpcUrl, usdcMint: info.chains.solana.usdcMint, payTo: info.chains.solana.payTo },
      signers,
      payoutChains: Object.fromEntries(
        PAYOUT_ONLY_CHAINS.map((name) => [name, { chainId: CHAIN_IDS[name], usdc: PAYOUT_ONLY_USDC_ADDRESSES[name], rpcUrl: async () => (await ensureChain(name)).rpcUrl }]),
      ),
    };
    const extras: DevnetExtras = {
      fakeUsdc: { base: base.fakeUsdc, polygon: polygon.fakeUsdc, solana: keys.solanaFakeMint.publicKey.toBase58() },
      evmMinterKey: keys.evmMinterKey,
      solanaMintAuthorityKey: bs58.encode(keys.solanaMintAuthority.secretKey),
      solanaWsUrl: solana.wsUrl,
      addresses: {
        evmRelayer,
        evmTreasury,
        solanaFeePayer: info.chains.solana.feePayer,
        solanaTreasury: info.chains.solana.payTo,
        solanaTreasuryUsdcAccount: getAssociatedTokenAddressSync(new PublicKey(USDC_ADDRESSES.solana), keys.solanaTreasury.publicKey).toBase58(),
      },
    };

    await writeFiles();
    log.info('devnet ready', {
      ms: Math.round(performance.now() - started),
      devnetJson: files.devnetJson,
      base: info.chains.base.rpcUrl,
      polygon: info.chains.polygon.rpcUrl,
      solana: info.chains.solana.rpcUrl,
    });

    let stopping: Promise<void> | null = null;
    return {
      info,
      signers,
      chains,
      extras,
      files,
      pids,
      ensureChain,
      advanceSolanaSlots(slots: number) {
        for (let i = 0; i < slots; i++) ledger?.advanceSlot();
      },
      stop() {
        stopping ??= teardown().then(() => log.info('devnet stopped'));
        return stopping;
      },
    };
  } catch (e) {
    await teardown().catch((err: unknown) => log.warn('devnet teardown after failed start', { error: err }));
    throw e;
  }
}
