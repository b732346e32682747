/**
 * The catalog's operations: the built-in tools (sold through the payments port), the catalog
 * itself (/v1/_meta) and its x402 discovery listing. Seller endpoints are called through
 * sellers/seller-call.handlers.ts; here they are only listed.
 */
import type { OperationId } from '../generated/operation-ids.ts';
import type { Handler } from '../http/server.ts';
import { NETWORKS } from '../chains/chain-adapter.ts';
import { createLru } from '../lib/lru.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { Payments } from '../payments/sellable.ts';
import type { DocumentKind } from '../tools/inspect-document.ts';
import type { ToolPool } from '../tools/tool-pool.ts';
import { builtinBazaar, sellerBazaar } from './bazaar.ts';
import type { DiscoveryRow, SearchableBuiltin } from '../sellers/endpoint-store.ts';
import type { Reliability, ReliabilityCache } from '../sellers/reliability.ts';
import { builtinHandler } from './builtin.handler.ts';
import { BUILTINS } from './builtins.ts';
import { discoveryHandler, discoverySearchHandler, type DiscoveryDeps, type DiscoveryEntry } from './discovery.handler.ts';
import { builtinEntries, getMetaHandler, type MetaDeps } from './meta.ts';
import { wellKnownX402Handler } from './well-known.ts';

export interface CatalogHandlerDeps extends MetaDeps {
  /** The contract, dereferenced: the built-ins' bazaar extensions are read from it. */
  definition: Parameters<typeof builtinBazaar>[0];
  publicBaseUrl: () => string;
  /** The payments port; null when no chain is configured. */
  payments: Payments | null;
  pool: ToolPool;
  limits: { maxBodyBytes: number; maxPages: number };
  metrics?: Metrics;
  /** The discovery rows (sellers/endpoint-store.ts discoveryRows): the catalog, or a search's ranked matches. */
  discoveryRows: (p: { builtins: SearchableBuiltin[]; query: string | null; limit: number }) => Promise<DiscoveryRow[]>;
  /** Seller endpoints' reliability figures, cached per process. */
  reliability: ReliabilityCache;
}

/** Short topical tags of the built-ins (Bazaar `tags`), searched with weight B. */
export const BUILTIN_TAGS: Record<string, string[]> = {
  '/v1/pdf-md': ['pdf', 'markdown', 'document', 'conversion'],
  '/v1/pdf-text': ['pdf', 'text', 'document', 'extraction'],
  '/v1/pdf-json': ['pdf', 'json', 'layout', 'document'],
  '/v1/invoice-extract': ['invoice', 'ocr', 'pdf', 'accounting'],
};

/** The built-ins as discoveryRows searches them (sellers/endpoint-store.ts), in catalog order. */
export const searchableBuiltins = (serviceName: string): SearchableBuiltin[] =>
  BUILTINS.map((b, ord) => ({ path: b.path, ord, name: `${serviceName} ${b.tool}`, desc: b.description, tags: (BUILTIN_TAGS[b.path] ?? []).join(' ') }));

export function createCatalogHandlers(deps: CatalogHandlerDeps): Partial<Record<OperationId, Handler>> {
  const handlers: Partial<Record<OperationId, Handler>> = {};
  // Inspections by request fingerprint: every paid document arrives at least twice (quote, then paid retry).
  const inspected = createLru<string, { kind: DocumentKind; pages: number }>(4096);
  const bazaar = new Map(BUILTINS.map((b) => [b.path, builtinBazaar(deps.definition, b.path)]));
  for (const b of BUILTINS) handlers[b.operationId] = builtinHandler({ payments: deps.payments, pool: deps.pool, limits: deps.limits, inspected, metrics: deps.metrics }, b, bazaar.get(b.path));
  handlers.getMeta = getMetaHandler(deps);
  handlers.getWellKnownX402 = wellKnownX402Handler(deps);
  // Built-ins change with the service's version: their lastUpdated is this process's start.
  const startedAt = new Date();
  const builtins = new Map(builtinEntries(deps.serviceName).map((e) => [e.path, e]));
  const searchable = searchableBuiltins(deps.serviceName);
  const entryOf = (r: DiscoveryRow, figures: Map<number, Reliability>): DiscoveryEntry =>
    r.kind === 'builtin'
      ? { ...builtins.get(r.path)!, updatedAt: startedAt, bazaar: bazaar.get(r.path)!, serviceName: deps.serviceName, tags: BUILTIN_TAGS[r.path] ?? [] }
      : {
          path: r.path,
          seller: String(r.wallet),
          method: 'POST',
          price: String(r.price),
          unit: String(r.unit),
          description: r.desc,
          networks: [...NETWORKS],
          mode: r.mode as 'paywall' | 'proxy',
          status: String(r.status),
          updatedAt: new Date(Number(r.updated_at_ms)),
          bazaar: sellerBazaar(r.sample_body),
          serviceName: String(r.slug),
          tags: [String(r.slug), String(r.mode)],
          reliability: figures.get(Number(r.endpoint_id)) ?? null,
          sampleBody: r.sample_body,
        };
  const discovery: DiscoveryDeps = {
    publicBaseUrl: deps.publicBaseUrl,
    listEntries: async (query, limit) => {
      const [rows, figures] = await Promise.all([deps.discoveryRows({ builtins: searchable, query, limit }), deps.reliability.byEndpoint()]);
      return rows.map((r) => entryOf(r, figures));
    },
    quoteOf: (e) => deps.payments && deps.payments.quoteForUnit({ path: e.path, description: e.description, price: BigInt(e.price) }),
  };
  handlers.listDiscoveryResources = discoveryHandler(discovery);
  handlers.searchDiscoveryResources = discoverySearchHandler(discovery);
  return handlers;
}
