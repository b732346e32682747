/**
 * POST /v1/pdf-md | pdf-text | pdf-json | invoice-extract. The document is read and
 * inspected before any quote (nobody pays for a file we cannot read); the price is pages x
 * per-page price, or per request; the tool runs in the worker pool once the payment holds.
 */
import { requireChains } from '../payments/require-chains.ts';
import type { Handler } from '../http/server.ts';
import { readUpload } from '../tools/read-upload.ts';
import type { DocumentKind } from '../tools/inspect-document.ts';
import type { Lru } from '../lib/lru.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { ToolPool } from '../tools/tool-pool.ts';
import { requestFingerprint } from '../payments/fingerprint.ts';
import type { Payments } from '../payments/sellable.ts';
import { saleRequestOf } from './sale-request.ts';
import type { BuiltinEndpoint } from './builtins.ts';
import type { BazaarExtension } from './bazaar.ts';

export interface BuiltinDeps {
  /** The payments port; null when no chain is configured (nothing can be sold). */
  payments: Payments | null;
  pool: ToolPool;
  limits: { maxBodyBytes: number; maxPages: number };
  /** Inspections by request fingerprint: every paid document arrives at least twice (quote, then paid retry). */
  inspected: Lru<string, { kind: DocumentKind; pages: number }>;
  metrics?: Metrics;
}

export const builtinHandler =
  (deps: BuiltinDeps, builtin: BuiltinEndpoint, bazaar?: BazaarExtension): Handler =>
  async (ctx) => {
    const upload = await readUpload(ctx.req, { maxBytes: deps.limits.maxBodyBytes });
    const fingerprint = requestFingerprint('POST', builtin.path, upload.contentType, upload.bytes);
    let doc = deps.inspected.get(fingerprint);
    if (!doc) {
      doc = await deps.pool.inspect(builtin.tool, upload.bytes, { maxPages: deps.limits.maxPages });
      deps.inspected.set(fingerprint, doc);
    }
    const payments = requireChains(deps.payments);
    const pages = doc.pages;
    return payments.sell({
      path: builtin.path,
      description: builtin.description,
      mimeType: builtin.mimeType,
      endpointKey: builtin.tool,
      price: { unitPrice: builtin.price, unit: builtin.unit, pages },
      payee: { kind: 'service' },
      bazaar,
      run: async () => {
        const started = performance.now();
        const result = await deps.pool.run(builtin.tool, upload.bytes, { requestId: ctx.requestId });
        const ms = performance.now() - started;
        deps.metrics?.toolDuration.observe({ tool: builtin.tool }, ms / 1000);
        ctx.log.info('tool finished', { tool: builtin.tool, pages, duration_ms: Math.round(ms) });
        return { status: 200, body: result };
      },
    }, saleRequestOf(ctx, fingerprint));
  };

