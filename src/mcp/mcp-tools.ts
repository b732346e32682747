/**
 * The catalog as MCP tools (tools/list): the four built-ins first, then every live seller
 * endpoint (active and degraded, as /v1/_meta lists them), paged with the MCP cursor.
 *
 * Names: a built-in is its tool name (`pdf-md`); a seller endpoint is `<slug>.<path_suffix>`.
 * Slugs and suffixes are `[a-z0-9-]` (openapi.yaml), so the name is already inside MCP's
 * `[A-Za-z0-9_.-]{1,128}` and splits back at its one dot: no table maps names to endpoints.
 *
 * Price: `_meta.x402` says what a call costs before the agent calls it (per page for the PDF
 * tools, whose quote counts the document's pages; per request otherwise).
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { NETWORKS } from '../chains/chain-adapter.ts';
import type { BuiltinEndpoint } from '../catalog/builtins.ts';
import { BUILTINS } from '../catalog/builtins.ts';
import { CAIP2 } from '../payments/x402-v2.ts';
import type { Reliability } from '../sellers/reliability.ts';

const SLUG = /^[a-z0-9-]{3,32}$/;
const SUFFIX = /^[a-z0-9-]{3,64}$/;

export type ToolTarget = { kind: 'builtin'; builtin: BuiltinEndpoint } | { kind: 'seller'; slug: string; pathSuffix: string };

/** What a tool name calls, or null when it names nothing the catalog could hold. */
export function toolTarget(name: string): ToolTarget | null {
  const builtin = BUILTINS.find((b) => b.tool === name);
  if (builtin) return { kind: 'builtin', builtin };
  const dot = name.indexOf('.');
  const [slug, pathSuffix] = [name.slice(0, dot), name.slice(dot + 1)];
  return dot > 0 && SLUG.test(slug) && SUFFIX.test(pathSuffix) ? { kind: 'seller', slug, pathSuffix } : null;
}

export const sellerToolName = (slug: string, pathSuffix: string) => `${slug}.${pathSuffix}`;

const priceMeta = (price: string, unit: string) => ({
  x402: { x402Version: 2, price, unit, asset: 'USDC', decimals: 6, networks: NETWORKS.map((n) => CAIP2[n]) },
});

/** A built-in takes its document inline, base64 (MCP tool arguments are JSON; a URL would make us fetch for the buyer). */
const BUILTIN_INPUT = {
  type: 'object',
  properties: {
    document: { type: 'string', contentEncoding: 'base64', description: 'The document, base64 (PDF; PNG or JPEG too for invoice-extract).' },
    filename: { type: 'string', maxLength: 255, description: 'Its file name, for your own records (not used to detect the type).' },
  },
  required: ['document'],
  additionalProperties: false,
} as const;

export const builtinTool = (b: BuiltinEndpoint): Tool => ({
  name: b.tool,
  title: b.tool,
  description: `${b.description} Price: ${b.price} USDC atomic units per ${b.unit}; pay per x402 (unpaid calls answer PaymentRequired).`,
  inputSchema: BUILTIN_INPUT as unknown as Tool['inputSchema'],
  annotations: { readOnlyHint: true, openWorldHint: false },
  _meta: priceMeta(b.price.toString(), b.unit),
});

/**
 * A JSON schema that the endpoint's sample body satisfies: types and properties read from the
 * sample, nothing required and nothing closed (a sample shows one valid body, not all of them).
 */
export function schemaOfSample(sample: unknown): Record<string, unknown> {
  if (sample === null) return { type: 'null' };
  if (Array.isArray(sample)) return sample.length ? { type: 'array', items: schemaOfSample(sample[0]) } : { type: 'array' };
  switch (typeof sample) {
    case 'string':
      return { type: 'string', examples: [sample] };
    case 'number':
      return { type: Number.isInteger(sample) ? 'integer' : 'number', examples: [sample] };
    case 'boolean':
      return { type: 'boolean' };
    case 'object':
      return { type: 'object', properties: Object.fromEntries(Object.entries(sample as Record<string, unknown>).map(([k, v]) => [k, schemaOfSample(v)])) };
    default:
      return {};
  }
}

export interface SellerToolRow {
  slug: string;
  path_suffix: string;
  desc: string;
  price: string;
  unit: string;
  mode: string;
  sample_body: unknown;
}

/** `reliability`: the same figures discovery shows (null before any call or probe is recorded). */
export function sellerTool(r: SellerToolRow, reliability: Reliability | null = null): Tool {
  // MCP arguments are an object: a sample that is not one gives an open object (the arguments are the body sent).
  const fromSample = r.sample_body !== null && typeof r.sample_body === 'object' && !Array.isArray(r.sample_body) ? schemaOfSample(r.sample_body) : { type: 'object' };
  return {
    name: sellerToolName(r.slug, r.path_suffix),
    description: `${r.desc} (seller endpoint /v1/${r.slug}/${r.path_suffix}; the arguments are the JSON body it receives). Price: ${r.price} USDC atomic units per ${r.unit}.`,
    inputSchema: { ...fromSample, type: 'object' } as Tool['inputSchema'],
    annotations: { openWorldHint: true },
    _meta: { ...priceMeta(r.price, r.unit), reliability },
  };
}

/**
 * The cursor is the name of the last tool listed (opaque to clients): the built-ins come first
 * in their fixed order, then the seller endpoints in (slug, path_suffix) order, so a name says
 * where the next page starts whatever the page size, and an endpoint added or removed meanwhile
 * shifts nothing.
 */
export const encodeCursor = (lastToolName: string) => Buffer.from(lastToolName).toString('base64url');

export function decodeCursor(cursor: string): ToolTarget | null {
  const name = Buffer.from(cursor, 'base64url').toString('utf8');
  return encodeCursor(name) === cursor ? toolTarget(name) : null;
}

export const BUILTIN_TOOLS: readonly Tool[] = BUILTINS.map(builtinTool);
