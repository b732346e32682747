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
import type { Hex } from 'viem';
import { addEndpointPayload } from '../src/http/wallet-signature.ts';
import { evmActionSigner, solanaActionSigner, type ActionSigner } from '../sdk/action-signer.ts';

const service = process.env.SERVICE_NAME || 'paycall';
const [action, arg] = process.argv.slice(2);
if (!action || arg === undefined) {
  console.error('usage: tsx scripts/seller-sign.ts <action> <payload | slug | endpoint.json>');
  process.exit(2);
}

// The SDK's signers: the same signatures as `paycall seller` and the tests.
function signer(): ActionSigner {
  const solKey = process.env.SELLER_SOLANA_KEY;
  if (solKey) return solanaActionSigner(solKey, service);
  let evmKey = process.env.SELLER_EVM_KEY as Hex | undefined;
  if (!evmKey && existsSync('.data/devnet.json')) evmKey = JSON.parse(readFileSync('.data/devnet.json', 'utf8')).accounts?.[0]?.evmPrivateKey;
  if (!evmKey) throw new Error('set SELLER_EVM_KEY or SELLER_SOLANA_KEY (or start the devnet)');
  return evmActionSigner(evmKey, service);
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
