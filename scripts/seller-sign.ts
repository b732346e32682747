/**
 * Signs seller actions for curl, with an EVM key (EIP-712) or a Solana key (Ed25519):
 *
 *   tsx scripts/seller-sign.ts register <slug>                 -> register body (shape B)
 *   tsx scripts/seller-sign.ts add_endpoint <endpoint.json>    -> the endpoint body, signed
 *   tsx scripts/seller-sign.ts <action> <payload text>         -> {wallet, signature, timestamp}
 *       (resume / stats / errors / list_endpoints: the wallet; delete_endpoint: the id)
 *
 * Key: SELLER_EVM_KEY (0x + 64 hex) or SELLER_SOLANA_KEY (base58 secret key); otherwise the
 * first funded account of a running devnet (.data/devnet.json). SERVICE_NAME as the service's.
 */
import { existsSync, readFileSync } from 'node:fs';
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import nacl from 'tweetnacl';
import bs58 from 'bs58';
import { addEndpointPayload, payloadHash, SELLER_ACTION_TYPES, sellerActionDomain, solanaSellerActionText } from '../src/http/wallet-signature.ts';

const service = process.env.SERVICE_NAME || 'paycall';
const [action, arg] = process.argv.slice(2);
if (!action || arg === undefined) {
  console.error('usage: tsx scripts/seller-sign.ts <action> <payload | slug | endpoint.json>');
  process.exit(2);
}

function signer(): { wallet: string; sign: (action: string, payload: string, ts: number) => Promise<string> } {
  let evmKey = process.env.SELLER_EVM_KEY as Hex | undefined;
  const solKey = process.env.SELLER_SOLANA_KEY;
  if (solKey) {
    const pair = nacl.sign.keyPair.fromSecretKey(bs58.decode(solKey));
    const wallet = bs58.encode(pair.publicKey);
    return {
      wallet,
      sign: async (a, p, ts) => bs58.encode(nacl.sign.detached(new TextEncoder().encode(solanaSellerActionText(service, { wallet, action: a, payloadHash: payloadHash(p), timestamp: ts })), pair.secretKey)),
    };
  }
  if (!evmKey && existsSync('.data/devnet.json')) evmKey = JSON.parse(readFileSync('.data/devnet.json', 'utf8')).accounts?.[0]?.evmPrivateKey;
  if (!evmKey) throw new Error('set SELLER_EVM_KEY or SELLER_SOLANA_KEY (or start the devnet)');
  const account = privateKeyToAccount(evmKey);
  return {
    wallet: account.address,
    sign: (a, p, ts) =>
      account.signTypedData({ domain: sellerActionDomain(service), types: SELLER_ACTION_TYPES, primaryType: 'SellerAction', message: { wallet: account.address, action: a, payloadHash: payloadHash(p), timestamp: BigInt(ts) } }),
  };
}

const s = signer();
const timestamp = Math.floor(Date.now() / 1000);
if (action === 'register') {
  console.log(JSON.stringify({ wallet: s.wallet, slug: arg, signature: await s.sign('register', arg, timestamp), timestamp }));
} else if (action === 'add_endpoint') {
  const endpoint = JSON.parse(readFileSync(arg, 'utf8'));
  console.log(JSON.stringify({ ...endpoint, signature: await s.sign('add_endpoint', addEndpointPayload(endpoint), timestamp), timestamp }));
} else {
  console.log(JSON.stringify({ wallet: s.wallet, signature: await s.sign(action, arg, timestamp), timestamp }));
}
