/**
 * Wallet signatures of seller, key and payout actions (openapi.yaml, "Wallet signatures"):
 * EVM keys sign the EIP-712 `SellerAction`, Solana keys sign its text with Ed25519. The
 * domain and text come from the server's own verifier (src/http/wallet-signature.ts), so a
 * client signs exactly what the service checks.
 */
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import nacl from 'tweetnacl';
import bs58 from 'bs58';
import { payloadHash, SELLER_ACTION_TYPES, sellerActionDomain, solanaSellerActionText } from '../src/http/wallet-signature.ts';

export interface ActionSigner {
  kind: 'evm' | 'solana';
  /** The wallet address the signatures name (checksummed EVM address, or base58). */
  wallet: string;
  /** The signature of `action` over the payload text (its keccak-256 is payloadHash). */
  sign(action: string, payload: string, timestamp: number): Promise<string>;
}

/** `serviceName` is the service's SERVICE_NAME (GET /v1/_meta `service`), the signature domain. */
export function evmActionSigner(privateKey: Hex, serviceName = 'paycall'): ActionSigner {
  const account = privateKeyToAccount(privateKey);
  return {
    kind: 'evm',
    wallet: account.address,
    sign: (action, payload, timestamp) =>
      account.signTypedData({
        domain: sellerActionDomain(serviceName),
        types: SELLER_ACTION_TYPES,
        primaryType: 'SellerAction',
        message: { wallet: account.address, action, payloadHash: payloadHash(payload), timestamp: BigInt(timestamp) },
      }),
  };
}

/** `secretKey`: the 64-byte Ed25519 secret key, raw or base58 (as Solana wallets export it). */
export function solanaActionSigner(secretKey: Uint8Array | string, serviceName = 'paycall'): ActionSigner {
  const pair = nacl.sign.keyPair.fromSecretKey(typeof secretKey === 'string' ? bs58.decode(secretKey) : secretKey);
  const wallet = bs58.encode(pair.publicKey);
  return {
    kind: 'solana',
    wallet,
    sign: async (action, payload, timestamp) => {
      const text = solanaSellerActionText(serviceName, { wallet, action, payloadHash: payloadHash(payload), timestamp });
      return bs58.encode(nacl.sign.detached(new TextEncoder().encode(text), pair.secretKey));
    },
  };
}

/** A signer for a key as a wallet exports it: `0x` + 64 hex digits is EVM, base58 is Solana. */
export function actionSignerFromKey(key: string, serviceName = 'paycall'): ActionSigner {
  const k = key.trim();
  if (/^0x[0-9a-fA-F]{64}$/.test(k)) return evmActionSigner(k as Hex, serviceName);
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(k);
  } catch {
    throw new Error('the wallet key is neither an EVM private key (0x + 64 hex digits) nor a base58 Solana secret key');
  }
  if (bytes.length !== 64) throw new Error(`a Solana secret key has 64 bytes; this one has ${bytes.length}`);
  return solanaActionSigner(bytes, serviceName);
}
