/**
 * Deterministic devnet keys: the same addresses on every start, so examples, docs and
 * wallets configured once keep working. They are public by construction: devnet only.
 */
import { createHash } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import { keccak256, stringToBytes, type Hex } from 'viem';

export interface DevnetBuyerKeys {
  evmPrivateKey: Hex;
  solana: Keypair;
}

export interface DevnetKeys {
  buyers: DevnetBuyerKeys[];
  evmRelayerKey: Hex;
  evmTreasuryKey: Hex;
  /** Owns the test USDC contracts (masterMinter) and deploys the fake token. */
  evmMinterKey: Hex;
  solanaFeePayer: Keypair;
  solanaTreasury: Keypair;
  solanaMintAuthority: Keypair;
  /** Address of the second, "wrong asset" SPL mint. */
  solanaFakeMint: Keypair;
}

const evmKey = (role: string): Hex => keccak256(stringToBytes(`paycall devnet evm ${role}`));
const solanaKey = (role: string): Keypair => Keypair.fromSeed(createHash('sha256').update(`paycall devnet solana ${role}`).digest());

export function devnetKeys(buyerCount: number): DevnetKeys {
  return {
    buyers: Array.from({ length: buyerCount }, (_, i) => ({ evmPrivateKey: evmKey(`buyer ${i}`), solana: solanaKey(`buyer ${i}`) })),
    evmRelayerKey: evmKey('relayer'),
    evmTreasuryKey: evmKey('treasury'),
    evmMinterKey: evmKey('minter'),
    solanaFeePayer: solanaKey('fee payer'),
    solanaTreasury: solanaKey('treasury'),
    solanaMintAuthority: solanaKey('mint authority'),
    solanaFakeMint: solanaKey('fake usdc mint'),
  };
}
