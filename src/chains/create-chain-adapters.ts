/**
 * Builds the three chain adapters from configuration. The devnet profile passes the devnet's
 * URLs and keys, production passes mainnet RPC URLs: the code paths are the same.
 */
import type { ChainsConfig } from '../config.ts';
import type { Logger } from '../log.ts';
import type { EvmChainAdapter, SolanaChainAdapter } from './chain-adapter.ts';
import { createEvmAdapter } from './evm-adapter.ts';
import { createSolanaAdapter } from './solana-adapter.ts';

export interface ChainAdapterSet {
  base: EvmChainAdapter;
  polygon: EvmChainAdapter;
  solana: SolanaChainAdapter;
}

export interface ChainAdapterTuning {
  /** Bound on waiting for the service's own transactions (default 30 s). */
  confirmTimeoutMs?: number;
  /** Receipt / status polling interval (defaults: EVM 1 s, Solana 400 ms). */
  pollIntervalMs?: number;
  /** Blocks an EVM payment needs, its own included, before it counts (default 1). */
  evmConfirmations?: number;
  /** Most the Solana fee payer spends on priority fees per co-signed transfer (default 10,000 lamports). */
  maxPriorityFeeLamports?: bigint;
  /** Highest compute-unit limit of a co-signed transfer (default 200,000). */
  maxComputeUnits?: bigint;
}

export function createChainAdapters(chains: ChainsConfig, log: Logger, tuning: ChainAdapterTuning = {}): ChainAdapterSet {
  const evm = (network: 'base' | 'polygon') =>
    createEvmAdapter({
      network,
      config: chains[network],
      relayerKey: chains.signers.evmRelayerKey,
      treasuryKey: chains.signers.evmTreasuryKey,
      log,
      receiptTimeoutMs: tuning.confirmTimeoutMs,
      pollingIntervalMs: tuning.pollIntervalMs,
      confirmations: tuning.evmConfirmations,
    });
  return {
    base: evm('base'),
    polygon: evm('polygon'),
    solana: createSolanaAdapter({
      config: chains.solana,
      feePayerKey: chains.signers.solanaFeePayerKey,
      treasuryKey: chains.signers.solanaTreasuryKey,
      log,
      confirmTimeoutMs: tuning.confirmTimeoutMs,
      pollIntervalMs: tuning.pollIntervalMs,
      maxPriorityFeeLamports: tuning.maxPriorityFeeLamports,
      maxComputeUnits: tuning.maxComputeUnits,
    }),
  };
}
