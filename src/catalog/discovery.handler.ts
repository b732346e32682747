/**
 * GET /discovery/resources: the catalog in the x402 discovery (Bazaar) shape, so x402
 * discovery clients and facilitators can index it: every built-in and every live seller
 * endpoint with the accepts of one unit, when it was last changed, and its bazaar extension.
 */
import type { Handler } from '../http/server.ts';
import type { CatalogEntry } from './meta.ts';
import type { BazaarExtension } from './bazaar.ts';
import type { PaymentQuote } from '../payments/quote.ts';
import { AppError } from '../http/app-error.ts';

export interface DiscoveryEntry extends CatalogEntry {
  updatedAt: Date;
  bazaar: BazaarExtension;
}

export interface DiscoveryDeps {
  publicBaseUrl: () => string;
  /** Every resource, built-ins first. */
  listEntries: () => Promise<DiscoveryEntry[]>;
  /** The quote of one unit of an entry, or null when payments are not configured. */
  quoteOf: (entry: DiscoveryEntry) => PaymentQuote | null;
}

const int = (raw: string | undefined, name: string, fallback: number, max: number) => {
  if (raw === undefined) return fallback;
  if (!/^\d{1,6}$/.test(raw) || Number(raw) > max) throw new AppError('invalid_input', 400, `${name} must be an integer from 0 to ${max}.`, { issues: [{ path: `query.${name}`, message: `must be an integer from 0 to ${max}` }] });
  return Number(raw);
};

export const discoveryHandler =
  (deps: DiscoveryDeps): Handler =>
  async (ctx) => {
    const limit = Math.max(1, int(ctx.query.limit, 'limit', 20, 100));
    const offset = int(ctx.query.offset, 'offset', 0, 1_000_000);
    const type = ctx.query.type;
    // Every resource here is an HTTP endpoint; another type lists nothing.
    const all = type === undefined || type === 'http' ? await deps.listEntries() : [];
    const items = all.slice(offset, offset + limit).map((e) => ({
      resource: `${deps.publicBaseUrl()}${e.path}`,
      type: 'http',
      x402Version: 1,
      accepts: deps.quoteOf(e)?.accepts ?? [],
      lastUpdated: Math.floor(e.updatedAt.getTime() / 1000),
      metadata: {
        description: e.description,
        seller: e.seller,
        price: e.price,
        unit: e.unit,
        mode: e.mode,
        status: e.status,
        bazaar: e.bazaar,
      },
    }));
    return { status: 200, headers: { 'cache-control': 'public, max-age=10' }, body: { x402Version: 1, items, pagination: { limit, offset, total: all.length } } };
  };
