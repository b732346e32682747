/** GET /v1/_meta: the live catalog (built-ins now; seller endpoints join it when published). */
import type { Handler } from '../http/server.ts';
import { BUILTINS } from './builtins.ts';
import { NETWORKS } from '../chains/chain-adapter.ts';

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
}

export interface MetaDeps {
  serviceName: string;
  version: string;
  /** Seller endpoints that are live in the catalog; empty until the marketplace lands. */
  listSellerEntries: () => Promise<CatalogEntry[]>;
  signingPublicKey: string | null;
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
      signing_public_key: deps.signingPublicKey,
      endpoints: [...builtinEntries(deps.serviceName), ...(await deps.listSellerEntries())],
    },
  });
