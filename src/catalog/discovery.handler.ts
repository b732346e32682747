/**
 * The catalog in the x402 discovery (Bazaar, @x402/extensions 2.27) shape, so x402 discovery
 * clients, facilitators and indexers can index and search it:
 * - GET /discovery/resources: every built-in and every live seller endpoint, paged by offset;
 * - GET /discovery/search?query=: the same items ranked by text relevance (full-text search in
 *   the database), `{resources, partialResults, pagination: {limit, cursor}}`.
 * Each item has the accepts of one unit, the Bazaar fields (`serviceName`, `tags`,
 * `routeTemplate`, `lastUpdated` as ISO time, `extensions.bazaar`) and our `metadata`.
 * Both filter on `payTo`, `scheme` and `network` (our name or CAIP-2): an item stays when one
 * of its accepts matches, and shows only the accepts that match.
 */
import type { Handler } from '../http/server.ts';
import type { CatalogEntry } from './meta.ts';
import type { BazaarExtension } from './bazaar.ts';
import type { AcceptEntry, PaymentQuote } from '../payments/quote.ts';
import { CAIP2 } from '../payments/x402-v2.ts';
import { AppError } from '../http/app-error.ts';
import { BUILTIN_TOOLS, sellerTool } from '../mcp/mcp-tools.ts';
import { BUILTINS } from './builtins.ts';

export interface DiscoveryEntry extends CatalogEntry {
  updatedAt: Date;
  bazaar: BazaarExtension;
  serviceName: string;
  tags: string[];
  /** Seller endpoints: the sample body their MCP tool's input schema is read from. */
  sampleBody?: unknown;
}

export interface DiscoveryDeps {
  publicBaseUrl: () => string;
  /**
   * The catalog (built-ins first) or, with a query, its matches best first; at most `limit`.
   * Never a pending, suspended or deleted seller endpoint.
   */
  listEntries: (query: string | null, limit: number) => Promise<DiscoveryEntry[]>;
  /** The quote of one unit of an entry, or null when payments are not configured. */
  quoteOf: (entry: DiscoveryEntry) => PaymentQuote | null;
}

/** How many matches a search ranks at most; beyond, the answer says partialResults. */
export const SEARCH_WINDOW = 500;

const invalid = (name: string, message: string) => new AppError('invalid_input', 400, `${name} ${message}.`, { issues: [{ path: `query.${name}`, message }] });

const int = (raw: string | undefined, name: string, fallback: number, max: number) => {
  if (raw === undefined) return fallback;
  if (!/^\d{1,7}$/.test(raw) || Number(raw) > max) throw invalid(name, `must be an integer from 0 to ${max}`);
  return Number(raw);
};

/** The search cursor is the offset of the next page, opaque to clients. */
const encodeCursor = (offset: number) => Buffer.from(`o:${offset}`).toString('base64url');
function decodeCursor(raw: string | undefined): number {
  if (raw === undefined) return 0;
  const m = /^o:(\d{1,7})$/.exec(Buffer.from(raw, 'base64url').toString());
  if (!m) throw invalid('cursor', 'is not a cursor this service gave');
  return Number(m[1]);
}

interface Filters {
  payTo?: string;
  scheme?: string;
  network?: string;
}

const filtersOf = (q: Record<string, string | undefined>): Filters => ({ payTo: q.payTo?.toLowerCase(), scheme: q.scheme, network: q.network });

const acceptMatches = (a: AcceptEntry, f: Filters) =>
  (f.payTo === undefined || a.payTo.toLowerCase() === f.payTo) &&
  (f.scheme === undefined || a.scheme === f.scheme) &&
  (f.network === undefined || a.network === f.network || CAIP2[a.network] === f.network);

const filtering = (f: Filters) => f.payTo !== undefined || f.scheme !== undefined || f.network !== undefined;

/** An entry as the MCP tool that sells it (mcp/mcp-tools.ts): its name and input schema. */
function toolOf(e: DiscoveryEntry) {
  const builtin = BUILTINS.findIndex((b) => b.path === e.path);
  if (builtin >= 0) return BUILTIN_TOOLS[builtin]!;
  const [slug = '', suffix = ''] = e.path.split('/').slice(2);
  return sellerTool({ slug, path_suffix: suffix, desc: e.description, price: e.price, unit: e.unit, mode: e.mode, sample_body: e.sampleBody ?? null });
}

function itemsOf(deps: DiscoveryDeps, entries: DiscoveryEntry[], f: Filters, type: Listed) {
  const items = [];
  for (const e of entries) {
    const all = deps.quoteOf(e)?.accepts ?? [];
    const accepts = filtering(f) ? all.filter((a) => acceptMatches(a, f)) : all;
    if (filtering(f) && accepts.length === 0) continue;
    const tool = type === 'mcp' ? toolOf(e) : null;
    items.push({
      // Type mcp: the same entry as the tool of the paid MCP server (one item per tool).
      resource: tool ? `${deps.publicBaseUrl()}/mcp` : `${deps.publicBaseUrl()}${e.path}`,
      type,
      ...(tool ? { toolName: tool.name, inputSchema: tool.inputSchema } : {}),
      x402Version: 1,
      accepts,
      lastUpdated: e.updatedAt.toISOString(),
      description: e.description,
      mimeType: 'application/json',
      serviceName: e.serviceName,
      tags: e.tags,
      routeTemplate: tool ? '/mcp' : e.path,
      extensions: { bazaar: e.bazaar },
      metadata: {
        description: e.description,
        seller: e.seller,
        price: e.price,
        unit: e.unit,
        mode: e.mode,
        status: e.status,
        bazaar: e.bazaar,
        ...(e.reliability === undefined ? {} : { reliability: e.reliability }),
      },
    });
  }
  return items;
}

// Every entry is an HTTP endpoint and, asked for type mcp, an MCP tool; another type lists nothing.
// Without a type the listing stays HTTP only (as before), so each entry is listed once.
type Listed = 'http' | 'mcp';
const typeListed = (type: string | undefined): Listed | null => (type === undefined || type === 'http' ? 'http' : type === 'mcp' ? 'mcp' : null);

export const discoveryHandler =
  (deps: DiscoveryDeps): Handler =>
  async (ctx) => {
    const limit = Math.max(1, int(ctx.query.limit, 'limit', 20, 100));
    const offset = int(ctx.query.offset, 'offset', 0, 1_000_000);
    const type = typeListed(ctx.query.type);
    const all = type ? itemsOf(deps, await deps.listEntries(null, 1_000_000), filtersOf(ctx.query), type) : [];
    const items = all.slice(offset, offset + limit);
    return { status: 200, headers: { 'cache-control': 'public, max-age=10' }, body: { x402Version: 1, items, pagination: { limit, offset, total: all.length } } };
  };

export const discoverySearchHandler =
  (deps: DiscoveryDeps): Handler =>
  async (ctx) => {
    const query = (ctx.query.query ?? '').trim();
    if (query.length === 0 || query.length > 256) throw invalid('query', 'must be 1 to 256 characters');
    const limit = Math.max(1, int(ctx.query.limit, 'limit', 20, 100));
    const offset = decodeCursor(ctx.query.cursor);
    const type = typeListed(ctx.query.type);
    const entries = type ? await deps.listEntries(query, SEARCH_WINDOW + 1) : [];
    const partialResults = entries.length > SEARCH_WINDOW;
    const matches = type ? itemsOf(deps, entries.slice(0, SEARCH_WINDOW), filtersOf(ctx.query), type) : [];
    const resources = matches.slice(offset, offset + limit);
    const cursor = offset + limit < matches.length ? encodeCursor(offset + limit) : null;
    return {
      status: 200,
      headers: { 'cache-control': 'public, max-age=10' },
      body: { x402Version: 1, resources, partialResults, pagination: { limit, cursor }, ...(cursor ? { cursor } : {}) },
    };
  };
