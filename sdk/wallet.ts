/**
 * What a buyer's wallet does, against any RPC URL (the devnet or mainnet): the SDK pays with
 * these, and the tests and demos use them too. Two halves, so that a caller of one chain family
 * does not load the other's libraries: wallet-evm.ts (viem) and wallet-solana.ts
 * (@solana/web3.js); this file names both.
 */
export * from './wallet-evm.ts';
export * from './wallet-solana.ts';
