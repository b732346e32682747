/**
 * GET /.well-known/x402: the origin's x402 discovery document as x402scan reads it
 * (`version`, `resources`: the URL of every paid operation). x402scan then asks each URL for
 * its 402 to learn the price, so the document carries no accepts of its own and cannot drift.
 *
 * `ownershipProofs` is left out: a proof is the origin signed by a `payTo` key, and a seller
 * endpoint's `payTo` is the seller's own wallet, whose key we never hold.
 */
import type { Handler } from '../http/server.ts';
import { BUILTINS } from './builtins.ts';
import type { CatalogEntry } from './meta.ts';

export interface WellKnownDeps {
  publicBaseUrl: () => string;
  listSellerEntries: () => Promise<CatalogEntry[]>;
}

export const wellKnownX402Handler =
  (deps: WellKnownDeps): Handler =>
  async () => {
    const base = deps.publicBaseUrl();
    const sellers = await deps.listSellerEntries();
    return {
      status: 200,
      headers: { 'cache-control': 'public, max-age=10' },
      body: {
        version: 1,
        // Built-ins, the paid MCP server, then every live seller endpoint (as /v1/_meta lists them).
        resources: [...BUILTINS.map((b) => `${base}${b.path}`), `${base}/mcp`, ...sellers.map((e) => `${base}${e.path}`)],
        instructions: `Paid per call over x402 v2 (USDC). Catalog with prices: ${base}/discovery/resources; MCP tools: ${base}/mcp.`,
      },
    };
  };
