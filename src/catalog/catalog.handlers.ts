/**
 * The catalog's operations: the built-in tools (sold through the payments port), the catalog
 * itself (/v1/_meta) and its x402 discovery listing. Seller endpoints are called through
 * sellers/seller-call.handlers.ts; here they are only listed.
 */
import type { OperationId } from '../generated/operation-ids.ts';
import type { Handler } from '../http/server.ts';
import { createLru } from '../lib/lru.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { Payments } from '../payments/sellable.ts';
import type { DocumentKind } from '../tools/inspect-document.ts';
import type { ToolPool } from '../tools/tool-pool.ts';
import { builtinBazaar } from './bazaar.ts';
import { builtinHandler } from './builtin.handler.ts';
import { BUILTINS } from './builtins.ts';
import { discoveryHandler } from './discovery.handler.ts';
import { builtinEntries, getMetaHandler, type MetaDeps } from './meta.ts';

export interface CatalogHandlerDeps extends MetaDeps {
  /** The contract, dereferenced: the built-ins' bazaar extensions are read from it. */
  definition: Parameters<typeof builtinBazaar>[0];
  publicBaseUrl: () => string;
  /** The payments port; null when no chain is configured. */
  payments: Payments | null;
  pool: ToolPool;
  limits: { maxBodyBytes: number; maxPages: number };
  metrics?: Metrics;
}

export function createCatalogHandlers(deps: CatalogHandlerDeps): Partial<Record<OperationId, Handler>> {
  const handlers: Partial<Record<OperationId, Handler>> = {};
  // Inspections by request fingerprint: every paid document arrives at least twice (quote, then paid retry).
  const inspected = createLru<string, { kind: DocumentKind; pages: number }>(4096);
  const bazaar = new Map(BUILTINS.map((b) => [b.path, builtinBazaar(deps.definition, b.path)]));
  for (const b of BUILTINS) handlers[b.operationId] = builtinHandler({ payments: deps.payments, pool: deps.pool, limits: deps.limits, inspected, metrics: deps.metrics }, b, bazaar.get(b.path));
  handlers.getMeta = getMetaHandler(deps);
  const startedAt = new Date();
  handlers.listDiscoveryResources = discoveryHandler({
    publicBaseUrl: deps.publicBaseUrl,
    // Built-ins change with the service's version: their lastUpdated is this process's start.
    listEntries: async () => builtinEntries(deps.serviceName).map((e) => ({ ...e, updatedAt: startedAt, bazaar: bazaar.get(e.path)! })),
    quoteOf: (e) => deps.payments && deps.payments.quoteForUnit({ path: e.path, description: e.description, price: BigInt(e.price) }),
  });
  return handlers;
}
