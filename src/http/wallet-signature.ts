/**
 * Wallet signatures of seller (and key / payout) actions, verified without any state:
 *  - EVM wallets sign EIP-712 `SellerAction {wallet, action, payloadHash, timestamp}` under the
 *    domain {name: SERVICE_NAME, version: "1", chainId: 8453} (no verifyingContract);
 *  - Solana wallets sign, with Ed25519, the UTF-8 text
 *    "<SERVICE_NAME> SellerAction\nwallet: <w>\naction: <a>\npayloadHash: 0x<hex>\ntimestamp: <t>"
 *    and send the signature in base58.
 * payloadHash is keccak-256 of a per-action UTF-8 text (see payloadText helpers below).
 * Single use and the timestamp window are the wrapper's business (with-seller-signature.ts).
 */
import { getAddress, isHex, keccak256, recoverTypedDataAddress, stringToBytes, type Hex } from 'viem';
import nacl from 'tweetnacl';
import bs58 from 'bs58';
import { PAYOUT_CHAINS, type PayoutChain } from '../chains/payout-sender.ts';

export const SELLER_ACTION_TYPES = {
  SellerAction: [
    { name: 'wallet', type: 'address' },
    { name: 'action', type: 'string' },
    { name: 'payloadHash', type: 'bytes32' },
    { name: 'timestamp', type: 'uint256' },
  ],
} as const;

export const SIGNATURE_CHAIN_ID = 8453;

export type WalletKind = 'evm' | 'solana';

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** The kind of a wallet address, or null when it is neither (a 32-byte base58 key for Solana). */
export function walletKind(wallet: string): WalletKind | null {
  if (EVM_ADDRESS.test(wallet)) return 'evm';
  if (BASE58.test(wallet)) {
    try {
      return bs58.decode(wallet).length === 32 ? 'solana' : null;
    } catch {
      return null;
    }
  }
  return null;
}

/** Lookup key of a wallet: EVM addresses are case-insensitive, base58 is not. */
export const walletKey = (wallet: string): string => (EVM_ADDRESS.test(wallet) ? wallet.toLowerCase() : wallet);

export const payloadHash = (payloadText: string): Hex => keccak256(stringToBytes(payloadText));

export const sellerActionDomain = (serviceName: string) => ({ name: serviceName, version: '1', chainId: SIGNATURE_CHAIN_ID }) as const;

/** The text a Solana wallet signs. */
export function solanaSellerActionText(serviceName: string, m: { wallet: string; action: string; payloadHash: Hex; timestamp: number }): string {
  return `${serviceName} SellerAction\nwallet: ${m.wallet}\naction: ${m.action}\npayloadHash: ${m.payloadHash}\ntimestamp: ${m.timestamp}`;
}

export interface SignedAction {
  wallet: string;
  action: string;
  /** The UTF-8 text whose keccak-256 is payloadHash. */
  payload: string;
  timestamp: number;
  signature: string;
}

/** True when the signature is the claimed wallet's signature of the action. Never throws. */
export async function verifyWalletSignature(serviceName: string, s: SignedAction): Promise<boolean> {
  const kind = walletKind(s.wallet);
  const hash = payloadHash(s.payload);
  if (kind === 'evm') {
    if (!isHex(s.signature) || (s.signature.length !== 132 && s.signature.length !== 130)) return false;
    try {
      const wallet = getAddress(s.wallet.toLowerCase());
      const signer = await recoverTypedDataAddress({
        domain: sellerActionDomain(serviceName),
        types: SELLER_ACTION_TYPES,
        primaryType: 'SellerAction',
        message: { wallet, action: s.action, payloadHash: hash, timestamp: BigInt(s.timestamp) },
        signature: s.signature,
      });
      return signer.toLowerCase() === wallet.toLowerCase();
    } catch {
      return false;
    }
  }
  if (kind === 'solana') {
    try {
      const sig = bs58.decode(s.signature);
      if (sig.length !== 64) return false;
      const text = solanaSellerActionText(serviceName, { wallet: s.wallet, action: s.action, payloadHash: hash, timestamp: s.timestamp });
      return nacl.sign.detached.verify(stringToBytes(text), sig, bs58.decode(s.wallet));
    } catch {
      return false;
    }
  }
  return false;
}

// Payload texts per action (DESIGN.md, Signatures). Compact JSON with keys in the order given.

export interface EndpointFields {
  path_suffix: string;
  upstream_url: string;
  atomic_price: number;
  unit: string;
  desc: string;
  mode: string;
}

/** `register` as the specification has it: the slug alone (shape B, and shape A registering only what shape B would). */
export const registerPayload = (slug: string) => slug;

/** What a shape-A registration sets up: the payout chain is the effective one (given, or the default). */
export interface RegisterBinding {
  slug: string;
  /** chain -> address */
  wallets: Record<string, string>;
  primary_wallet: string;
  payout_chain: string;
}

/**
 * `register` of a shape-A request: compact JSON `{slug, wallets, primary_wallet, payout_chain}`
 * in that order, `wallets` with its chain names sorted (code-unit order), every address in its
 * wallet-key form (EVM lower-case hex, Solana base58 as is), `payout_chain` the effective one.
 * The slug alone would let a lifted signature vouch for wallets and a payout its signer never
 * saw (issue 20, item 3); this payload binds every one of them. Canonical forms, so that the
 * case an EVM address is sent in changes nothing a signer has to know.
 */
export const registerBindingPayload = (r: RegisterBinding) =>
  JSON.stringify({
    slug: r.slug,
    wallets: Object.fromEntries(
      Object.keys(r.wallets)
        .sort()
        .map((chain) => [chain, walletKey(r.wallets[chain])]),
    ),
    primary_wallet: walletKey(r.primary_wallet),
    payout_chain: r.payout_chain,
  });

/** Shape A's default payout chain: the first chain, in PAYOUT_CHAINS order, whose wallet is the primary one. */
export const defaultPayoutChain = (wallets: Record<string, string | undefined>, primary: string): PayoutChain | undefined =>
  PAYOUT_CHAINS.find((c) => wallets[c] !== undefined && walletKey(wallets[c]!) === walletKey(primary));

/** The chain shape B records a wallet under (and pays it on). */
export const shapeBChain = (wallet: string): 'base' | 'solana' | undefined => {
  const kind = walletKind(wallet);
  return kind === 'evm' ? 'base' : kind === 'solana' ? 'solana' : undefined;
};
export const addEndpointPayload = (e: EndpointFields) =>
  JSON.stringify({ path_suffix: e.path_suffix, upstream_url: e.upstream_url, atomic_price: e.atomic_price, unit: e.unit, desc: e.desc, mode: e.mode });
export const updateEndpointPayload = (e: Omit<EndpointFields, 'path_suffix'> & { id: number }) =>
  JSON.stringify({ id: e.id, upstream_url: e.upstream_url, atomic_price: e.atomic_price, unit: e.unit, desc: e.desc, mode: e.mode });
export const idPayload = (id: number | string) => String(id);
export const walletPayload = (wallet: string) => wallet;
export const issueApiKeyPayload = (k: { label: string | null; scopes: readonly string[] }) => JSON.stringify({ label: k.label, scopes: k.scopes });
