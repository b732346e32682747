/**
 * Selling one run of a built-in tool on a document, whoever asks: the HTTP operations
 * (builtin.handler.ts) and MCP tools/call (src/mcp/) build the same Sellable here, so both go
 * through one price rule (pages x per-page price, or per request), one payee and one run.
 * The document is inspected before any quote (nobody pays for a file we cannot read).
 */
import type { Lru } from '../lib/lru.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { requireChains } from '../payments/require-chains.ts';
import type { Payments, SaleRequest, SoldAnswer } from '../payments/sellable.ts';
import type { DocumentKind } from '../tools/inspect-document.ts';
import type { ToolPool } from '../tools/tool-pool.ts';
import type { ToolOptions } from '../tools/tool-types.ts';
import type { BazaarExtension } from './bazaar.ts';
import type { BuiltinEndpoint } from './builtins.ts';

export interface BuiltinDeps {
  /** The payments port; null when no chain is configured (nothing can be sold). */
  payments: Payments | null;
  pool: ToolPool;
  limits: { maxBodyBytes: number; maxPages: number };
  /** Inspections by request fingerprint: every paid document arrives at least twice (quote, then paid retry). */
  inspected: Lru<string, { kind: DocumentKind; pages: number }>;
  metrics?: Metrics;
}

export interface BuiltinCall {
  /** The document; owns its whole ArrayBuffer (the pool transfers it to a worker). */
  bytes: Buffer;
  /** SaleRequest.fingerprint, also the key of the inspection cache. */
  fingerprint: string;
  requestId: string;
  log: Logger;
  /** The buyer's options for the run (pdf-md's page anchors); absent: the defaults. */
  options?: ToolOptions;
}

export async function sellBuiltin(deps: BuiltinDeps, builtin: BuiltinEndpoint, bazaar: BazaarExtension | undefined, call: BuiltinCall, request: SaleRequest): Promise<SoldAnswer> {
  let doc = deps.inspected.get(call.fingerprint);
  if (!doc) {
    doc = await deps.pool.inspect(builtin.tool, call.bytes, { maxPages: deps.limits.maxPages });
    deps.inspected.set(call.fingerprint, doc);
  }
  const payments = requireChains(deps.payments);
  const pages = doc.pages;
  return payments.sell(
    {
      path: builtin.path,
      description: builtin.description,
      mimeType: builtin.mimeType,
      endpointKey: builtin.tool,
      price: { unitPrice: builtin.price, unit: builtin.unit, pages },
      payee: { kind: 'service' },
      bazaar,
      // A method, not `run: async () => ...`: under tsx (npm start) a named arrow is named by an
      // Object.defineProperty call on every unpaid 402 too (see readChunks in http/read-body.ts).
      async run() {
        const started = performance.now();
        const result = await deps.pool.run(builtin.tool, call.bytes, { requestId: call.requestId, options: call.options });
        const ms = performance.now() - started;
        deps.metrics?.toolDuration.observe({ tool: builtin.tool }, ms / 1000);
        call.log.info('tool finished', { tool: builtin.tool, pages, duration_ms: Math.round(ms) });
        return { status: 200, body: result };
      },
    },
    request,
  );
}
