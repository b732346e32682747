/** GET /v1/_meta: the live catalog: built-ins, then active and degraded seller endpoints. */
import bs58 from 'bs58';
import type { Handler } from '../http/server.ts';
import type { ForwardSigner } from '../proxy/forward-signature.ts';
import { BUILTINS } from './builtins.ts';
import { NETWORKS } from '../chains/chain-adapter.ts';
import type { Reliability } from '../sellers/reliability.ts';

export interface CatalogEntry {
  path: string;
  seller: string;
  method: string;
  price: string;
  unit: string;
  description: string;
  networks: string[];
  mode: 'builtin' | 'paywall' | 'proxy';
  status: string;
  /** Seller endpoints: measured upstream latency and success rate over the last 24 h (null without data). */
  p50_latency_ms?: number | null;
  p99_latency_ms?: number | null;
  success_rate_24h?: number | null;
  /** Seller endpoints: paid-call success rate, latency and uptime (sellers/reliability.ts); null without figures yet. */
  reliability?: Reliability | null;
}

export interface MetaDeps {
  serviceName: string;
  version: string;
  /** Seller endpoints that are live in the catalog (active and degraded). */
  listSellerEntries: () => Promise<CatalogEntry[]>;
  /** Signs forwarded calls; sellers verify with the key published here. */
  signer: Pick<ForwardSigner, 'keyid' | 'publicKey'> | null;
}

export function builtinEntries(serviceName: string): CatalogEntry[] {
  return BUILTINS.map((b) => ({
    path: b.path,
    seller: serviceName,
    method: 'POST',
    price: b.price.toString(),
    unit: b.unit,
    description: b.description,
    networks: [...NETWORKS],
    mode: 'builtin' as const,
    status: 'active',
  }));
}

export const getMetaHandler =
  (deps: MetaDeps): Handler =>
  async () => ({
    status: 200,
    headers: { 'cache-control': 'public, max-age=10' },
    body: {
      service: deps.serviceName,
      version: deps.version,
      x402Version: 1,
      networks: [...NETWORKS],
      signing_public_key: deps.signer ? bs58.encode(Buffer.from(deps.signer.publicKey, 'base64url')) : null,
      forward_signing: deps.signer ? { keyid: deps.signer.keyid, alg: 'ed25519', public_key: deps.signer.publicKey } : null,
      endpoints: [...builtinEntries(deps.serviceName), ...(await deps.listSellerEntries())],
    },
  });
