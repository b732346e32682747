/**
 * Native USDC (Circle) on each mainnet. The devnet places its test USDC at these same
 * addresses, so configuration and client code are identical on devnet and mainnet.
 */
import type { Network } from './chain-adapter.ts';

export const USDC_ADDRESSES: Readonly<Record<Network, string>> = {
  base: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  polygon: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
  solana: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
};

/** EVM chains sellers can be paid on that take no payments here (payouts only; DESIGN.md section 5). */
export const PAYOUT_ONLY_CHAINS = ['arbitrum', 'optimism', 'avalanche'] as const;
export type PayoutOnlyChain = (typeof PAYOUT_ONLY_CHAINS)[number];

/** Native USDC on the payout-only chains: the defaults of ARBITRUM_USDC / OPTIMISM_USDC / AVALANCHE_USDC. */
export const PAYOUT_ONLY_USDC_ADDRESSES: Readonly<Record<PayoutOnlyChain, string>> = {
  arbitrum: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831',
  optimism: '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85',
  avalanche: '0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E',
};

export const USDC_DECIMALS = 6;

/** EIP-712 domain of FiatToken v2 (Base and Polygon native USDC answer name() "USD Coin", version() "2"). */
export const USDC_EIP712_NAME = 'USD Coin';
export const USDC_EIP712_VERSION = '2';

export const CHAIN_IDS = { base: 8453, polygon: 137, arbitrum: 42161, optimism: 10, avalanche: 43114 } as const;
