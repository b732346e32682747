/**
 * The catalog as a page for people: GET / (server-rendered HTML, no framework, no build step)
 * and GET /assets/{asset} (its stylesheet, script and icon, from this folder). Works without
 * JavaScript: the search is a GET form answered here with the same full-text search as
 * /discovery/search; the script only adds copy buttons and filtering as one types.
 *
 * GET / answers HTML to browsers. A client that asks for JSON (Accept names application/json
 * and not text/html: fetch() with that header, an agent probing the root) gets a short JSON
 * pointer to the catalog's machine-readable URLs instead of a page it cannot use.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { OperationId } from '../generated/operation-ids.ts';
import { AppError } from '../http/app-error.ts';
import type { Handler, HandlerResult } from '../http/server.ts';
import { createLru } from '../lib/lru.ts';
import { BUILTINS } from '../catalog/builtins.ts';
import { searchableBuiltins } from '../catalog/catalog.handlers.ts';
import type { DiscoveryRow } from '../sellers/endpoint-store.ts';
import type { Reliability, ReliabilityCache } from '../sellers/reliability.ts';
import { renderPage, type PageEntry } from './render-page.ts';
import { PAGE_SECURITY_HEADERS } from '../lib/html.ts';

export interface CatalogPageDeps {
  serviceName: string;
  publicBaseUrl: () => string;
  /** sellers/endpoint-store.ts discoveryRows: the catalog, or a search's ranked matches, in one statement. */
  discoveryRows: (p: { builtins: ReturnType<typeof searchableBuiltins>; query: string | null; limit: number }) => Promise<DiscoveryRow[]>;
  /** The reliability figures /v1/_meta and discovery use (one statement, cached 30 s per process). */
  reliability: ReliabilityCache;
  /** How long a rendered page is reused; 5 s in the app. */
  ttlMs: number;
  now?: () => number;
}

/** Entries a page lists at most; past that it says so and the search narrows it. */
export const PAGE_LIMIT = 500;

/**
 * Strict: nothing inline, nothing from another host. The page has no inline script or style
 * at all, so it needs neither a nonce nor any 'unsafe-*'; the form may only submit here.
 */
export const CATALOG_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const ASSET_FILES = [
  { file: 'catalog.css', type: 'text/css; charset=utf-8' },
  { file: 'catalog.js', type: 'text/javascript; charset=utf-8' },
  { file: 'icon.svg', type: 'image/svg+xml' },
] as const;

/** The assets, read once, each named by a hash of its content (a changed file is a new URL). */
function loadAssets() {
  const byName = new Map<string, { type: string; body: Buffer }>();
  const names: Record<string, string> = {};
  for (const a of ASSET_FILES) {
    const body = readFileSync(new URL(`./assets/${a.file}`, import.meta.url));
    const [stem, ext] = a.file.split('.');
    const name = `${stem}-${createHash('sha256').update(body).digest('hex').slice(0, 12)}.${ext}`;
    byName.set(name, { type: a.type, body });
    names[a.file] = name;
  }
  return { byName, links: { css: names['catalog.css']!, js: names['catalog.js']!, icon: names['icon.svg']! } };
}

/** Asks for JSON and not for HTML: `*\/*` (curl's default) and browsers get the page. */
export const wantsJson = (accept: string | undefined) => !!accept && /application\/json/i.test(accept) && !/text\/html/i.test(accept);

function entryOf(r: DiscoveryRow, serviceName: string, figures: Map<number, Reliability>): PageEntry {
  if (r.kind === 'builtin') {
    const b = BUILTINS.find((x) => x.path === r.path)!;
    return { kind: 'builtin', name: b.tool, path: b.path, description: b.description, price: b.price.toString(), unit: b.unit, mode: 'builtin', seller: serviceName, status: 'active', reliability: null };
  }
  const slug = String(r.slug);
  return {
    kind: 'seller',
    name: `${slug}.${r.path.split('/').slice(3).join('/')}`,
    path: r.path,
    description: r.desc,
    price: String(r.price),
    unit: String(r.unit),
    mode: r.mode === 'paywall' ? 'paywall' : 'proxy',
    seller: slug,
    status: String(r.status),
    reliability: figures.get(Number(r.endpoint_id)) ?? null,
    sampleBody: r.sample_body,
  };
}

export function createCatalogPageHandlers(deps: CatalogPageDeps): Partial<Record<OperationId, Handler>> {
  const now = deps.now ?? Date.now;
  const assets = loadAssets();
  const builtins = searchableBuiltins(deps.serviceName);

  // Fast: a page is one discoveryRows statement (the reliability figures come from their own
  // 30 s cache), and the rendered HTML is kept per search for `ttlMs` (5 s in the app), so a
  // burst of visitors costs one query per distinct search every 5 s. It simply expires: a new
  // endpoint shows up within 5 s, and no write path has to know this cache exists. Bounded
  // to 64 searches, least recently used first out.
  const pages = createLru<string, { at: number; html: Promise<string> }>(64);
  const build = async (query: string) => {
    const [rows, figures] = await Promise.all([deps.discoveryRows({ builtins, query: query || null, limit: PAGE_LIMIT + 1 }), deps.reliability.byEndpoint()]);
    return renderPage({
      serviceName: deps.serviceName,
      baseUrl: deps.publicBaseUrl(),
      query,
      entries: rows.slice(0, PAGE_LIMIT).map((r) => entryOf(r, deps.serviceName, figures)),
      truncated: rows.length > PAGE_LIMIT,
      assets: assets.links,
    });
  };
  const pageFor = (query: string) => {
    const hit = pages.get(query);
    if (hit && now() - hit.at < deps.ttlMs) return hit.html;
    const entry = { at: now(), html: build(query) };
    // A failed read is not kept: the next visitor tries again.
    entry.html.catch(() => {
      entry.at = -Infinity;
    });
    pages.set(query, entry);
    return entry.html;
  };

  return {
    getCatalogPage: async (ctx): Promise<HandlerResult> => {
      if (wantsJson(ctx.req.headers.accept)) {
        return {
          status: 200,
          headers: { vary: 'Accept', 'cache-control': 'public, max-age=60' },
          body: {
            service: deps.serviceName,
            message: 'This page is HTML; the catalog as JSON is at the URLs below.',
            catalog: '/discovery/resources',
            search: '/discovery/search?query=',
            meta: '/v1/_meta',
            docs: '/docs',
            openapi: '/openapi.yaml',
          },
        };
      }
      const query = (ctx.query.q ?? '').trim().replace(/\s+/g, ' ');
      return {
        status: 200,
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': CATALOG_CSP,
          'cache-control': `public, max-age=${Math.round(deps.ttlMs / 1000)}`,
          vary: 'Accept',
          ...PAGE_SECURITY_HEADERS,
          'x-frame-options': 'DENY',
        },
        body: await pageFor(query),
      };
    },
    getCatalogAsset: async (ctx) => {
      const asset = assets.byName.get(ctx.params.asset ?? '');
      if (!asset) throw new AppError('asset_not_found', 404, `No file ${ctx.params.asset} under /assets`, { hint: 'GET / links the current files.' });
      return {
        status: 200,
        // The name carries the content's hash: this URL's bytes never change.
        headers: { 'content-type': asset.type, 'cache-control': 'public, max-age=31536000, immutable', ...PAGE_SECURITY_HEADERS },
        body: asset.body,
      };
    },
  };
}
