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

export const USDC_DECIMALS = 6;

/** EIP-712 domain of FiatToken v2 (Base and Polygon native USDC answer name() "USD Coin", version() "2"). */
export const USDC_EIP712_NAME = 'USD Coin';
export const USDC_EIP712_VERSION = '2';

export const CHAIN_IDS = { base: 8453, polygon: 137 } as const;
