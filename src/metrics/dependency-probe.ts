/**
 * What the scrape-time gauges of metrics.ts report about shared dependencies: the database,
 * each chain's RPC and the balances of the service's own wallets (EVM relayer and treasury,
 * Solana fee payer and treasury).
 *
 * Cheap by construction: nothing runs in the background; a scrape (every 15 s per Prometheus)
 * triggers at most one refresh per `maxAgeMs`, concurrent scrapes share it, and each check is
 * bounded by `timeoutMs`, so a hung RPC slows no scrape by more than that and reports 0.
 */
import { createPublicClient, erc20Abi, http, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import bs58 from 'bs58';
import type { ChainsConfig } from '../config.ts';
import type { ChainAdapterSet } from '../chains/create-chain-adapters.ts';
import type { DependencySnapshot } from './metrics.ts';

export interface DependencyProbeDeps {
  pingDatabase: () => Promise<{ ok: boolean }>;
  adapters: ChainAdapterSet | null;
  chains: ChainsConfig | null;
  maxAgeMs: number;
  timeoutMs: number;
}

const bounded = <T>(work: Promise<T>, ms: number): Promise<T | null> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      () => {
        clearTimeout(timer);
        resolve(null);
      },
    );
  });

/** Whole units from atomic ones; a float is fine for a gauge compared against a threshold. */
const units = (atomic: bigint, decimals: number) => Number(atomic) / 10 ** decimals;

type Balance = DependencySnapshot['balances'][number];

/**
 * The treasuries are not behind an adapter method (payouts only send): read them here with the
 * same RPC URLs. Payout-only chains count when their endpoint is a URL; the devnet's start on
 * first use, and a scrape must not be what starts them.
 */
function treasuryReaders(chains: ChainsConfig): (() => Promise<Balance[]>)[] {
  const evmTreasury = privateKeyToAccount(chains.signers.evmTreasuryKey as `0x${string}`).address;
  const evm = (chain: string, c: { rpcUrl: string; usdc: string }, treasury: Address) => {
    const client = createPublicClient({ transport: http(c.rpcUrl, { retryCount: 0 }) });
    return async (): Promise<Balance[]> => {
      const [native, usdc] = await Promise.all([
        client.getBalance({ address: treasury }),
        client.readContract({ address: c.usdc as Address, abi: erc20Abi, functionName: 'balanceOf', args: [treasury] }),
      ]);
      return [
        { chain, role: 'treasury', asset: 'native', value: units(native, 18) },
        { chain, role: 'treasury', asset: 'usdc', value: units(usdc, 6) },
      ];
    };
  };
  const payoutOnly = Object.entries(chains.payoutChains ?? {}).flatMap(([chain, c]) => {
    const rpcUrl = c?.rpcUrl;
    if (typeof rpcUrl !== 'string') return [];
    const treasury = c!.treasuryKey ? privateKeyToAccount(c!.treasuryKey as `0x${string}`).address : evmTreasury;
    return [evm(chain, { rpcUrl, usdc: c!.usdc }, treasury)];
  });
  const solanaTreasury = Keypair.fromSecretKey(bs58.decode(chains.signers.solanaTreasuryKey)).publicKey;
  const connection = new Connection(chains.solana.rpcUrl, 'confirmed');
  const tokenAccount = getAssociatedTokenAddressSync(new PublicKey(chains.solana.usdcMint), solanaTreasury, true);
  const solana = async (): Promise<Balance[]> => {
    const [lamports, token] = await Promise.all([
      connection.getBalance(solanaTreasury),
      // No token account yet means no USDC, not an error.
      connection.getTokenAccountBalance(tokenAccount).then((r) => BigInt(r.value.amount), () => 0n),
    ]);
    return [
      { chain: 'solana', role: 'treasury', asset: 'native', value: units(BigInt(lamports), 9) },
      { chain: 'solana', role: 'treasury', asset: 'usdc', value: units(token, 6) },
    ];
  };
  return [evm('base', chains.base, evmTreasury), evm('polygon', chains.polygon, evmTreasury), ...payoutOnly, solana];
}

export function createDependencyProbe(deps: DependencyProbeDeps): () => Promise<DependencySnapshot> {
  const treasuries = deps.chains ? treasuryReaders(deps.chains) : [];
  let last: { at: number; snapshot: DependencySnapshot } | null = null;
  let running: Promise<DependencySnapshot> | null = null;

  const refresh = async (): Promise<DependencySnapshot> => {
    const t = deps.timeoutMs;
    const a = deps.adapters;
    const [db, rpc, facilitators, treasury] = await Promise.all([
      bounded(deps.pingDatabase(), t),
      a ? Promise.all((['base', 'polygon', 'solana'] as const).map(async (chain) => [chain, (await bounded(a[chain].health(), t))?.ok === true] as const)) : Promise.resolve([]),
      a
        ? Promise.all(
            (['base', 'polygon', 'solana'] as const).map(async (chain): Promise<Balance | null> => {
              const h = await bounded(a[chain].facilitatorHealth(), t);
              if (h?.balance === undefined) return null;
              return chain === 'solana'
                ? { chain, role: 'fee_payer', asset: 'native', value: units(BigInt(h.balance), 9) }
                : { chain, role: 'relayer', asset: 'native', value: units(BigInt(h.balance), 18) };
            }),
          )
        : Promise.resolve([]),
      Promise.all(treasuries.map(async (read) => (await bounded(read(), t)) ?? [])),
    ]);
    return {
      database: db?.ok === true,
      rpc: Object.fromEntries(rpc),
      balances: [...facilitators.filter((b): b is Balance => b !== null), ...treasury.flat()],
    };
  };

  return async () => {
    if (last && Date.now() - last.at < deps.maxAgeMs) return last.snapshot;
    running ??= refresh().then(
      (snapshot) => {
        last = { at: Date.now(), snapshot };
        running = null;
        return snapshot;
      },
      (e) => {
        running = null;
        throw e;
      },
    );
    return running;
  };
}
