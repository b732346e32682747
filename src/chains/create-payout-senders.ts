/**
 * Builds the PayoutSenders of this deployment from configuration: base, polygon and solana
 * always (the payment chains), arbitrum / optimism / avalanche when ChainsConfig.payoutChains
 * names them. A payout-only chain whose endpoint comes up on first use (the devnet's) gets a
 * sender that resolves it on its first call; its treasury address is known at once.
 */
import { privateKeyToAccount } from 'viem/accounts';
import type { ChainsConfig, PayoutChainConfig } from '../config.ts';
import type { Logger } from '../log.ts';
import { createEvmPayoutSender, type EvmPayoutChain } from './evm-payout-sender.ts';
import type { PayoutChain, PayoutSender, PayoutSenders } from './payout-sender.ts';
import { PAYOUT_CHAINS } from './payout-sender.ts';
import { createSolanaPayoutSender } from './solana-payout-sender.ts';
import { PAYOUT_ONLY_CHAINS, type PayoutOnlyChain } from './usdc-addresses.ts';

const isPayoutOnly = (chain: PayoutChain): chain is PayoutOnlyChain => (PAYOUT_ONLY_CHAINS as readonly string[]).includes(chain);

export interface PayoutSenderTuning {
  /** EVM blocks, the transaction's own included, before a payout counts as confirmed (default 1). */
  evmConfirmations?: number;
  /** Timeout of one RPC call (default 10 s). */
  rpcTimeoutMs?: number;
}

/** The chains this deployment can pay sellers on, in PAYOUT_CHAINS order. */
export function configuredPayoutChains(chains: ChainsConfig | null): PayoutChain[] {
  // Without chains (a devnet profile with no devnet) the payment chains stay accepted at
  // registration, as before payout chains were configurable; nothing is sent then anyway.
  return PAYOUT_CHAINS.filter((c) => !isPayoutOnly(c) || chains?.payoutChains?.[c] !== undefined);
}

/**
 * Brings up, in the background, a payout chain whose endpoint starts on first use (the
 * devnet's), so the first payout on it does not wait for a node to start. No-op otherwise.
 */
export function warmPayoutChain(chains: ChainsConfig | null, chain: PayoutChain, log: Logger): void {
  const rpcUrl = isPayoutOnly(chain) ? chains?.payoutChains?.[chain]?.rpcUrl : undefined;
  if (typeof rpcUrl === 'function') rpcUrl().catch((e: unknown) => log.warn('starting a payout chain failed; its first payout tries again', { chain, err: e }));
}

/**
 * A sender whose chain is resolved on first use; concurrent first calls share one resolution,
 * and a failed one is tried again by the next call.
 */
export function lazyPayoutSender(chain: PayoutChain, treasury: string, resolve: () => Promise<PayoutSender>): PayoutSender {
  let sender: Promise<PayoutSender> | null = null;
  const get = () =>
    (sender ??= resolve().catch((e: unknown) => {
      sender = null;
      throw e;
    }));
  return {
    chain,
    treasury,
    prepare: async (to, amount) => (await get()).prepare(to, amount),
    broadcast: async (p) => (await get()).broadcast(p),
    lookup: async (p) => (await get()).lookup(p),
    treasuryBalance: async () => (await get()).treasuryBalance(),
  };
}

export function createPayoutSenders(chains: ChainsConfig, log: Logger, tuning: PayoutSenderTuning = {}): PayoutSenders {
  const evm = (chain: EvmPayoutChain, c: { chainId: number; usdc: string; rpcUrl: string }, treasuryKey: string) =>
    createEvmPayoutSender({ chain, ...c, treasuryKey, log, confirmations: tuning.evmConfirmations, rpcTimeoutMs: tuning.rpcTimeoutMs });

  const payoutOnly = (chain: PayoutOnlyChain, c: PayoutChainConfig): PayoutSender => {
    const treasuryKey = c.treasuryKey ?? chains.signers.evmTreasuryKey;
    const { rpcUrl } = c;
    if (typeof rpcUrl === 'string') return evm(chain, { chainId: c.chainId, usdc: c.usdc, rpcUrl }, treasuryKey);
    const treasury = privateKeyToAccount(treasuryKey as `0x${string}`).address;
    return lazyPayoutSender(chain, treasury, async () => evm(chain, { chainId: c.chainId, usdc: c.usdc, rpcUrl: await rpcUrl() }, treasuryKey));
  };

  const senders: PayoutSenders = {
    base: evm('base', chains.base, chains.signers.evmTreasuryKey),
    polygon: evm('polygon', chains.polygon, chains.signers.evmTreasuryKey),
    solana: createSolanaPayoutSender({ rpcUrl: chains.solana.rpcUrl, usdcMint: chains.solana.usdcMint, treasuryKey: chains.signers.solanaTreasuryKey, log }),
  };
  for (const [chain, c] of Object.entries(chains.payoutChains ?? {}) as [PayoutOnlyChain, PayoutChainConfig | undefined][]) {
    if (c) senders[chain] = payoutOnly(chain, c);
  }
  return senders;
}
