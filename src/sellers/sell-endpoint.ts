/**
 * Selling one call of a seller's endpoint, whoever asks: the HTTP operation (seller-call.handlers.ts)
 * and MCP tools/call (src/mcp/) use the same catalog lookup (unknown, deleted or pending: 404;
 * suspended: 410, counted in the seller's errors) and the same Sellable: the endpoint's price
 * per request, the seller paid at its mode's take rate, the run a forward (proxy: retried on
 * 5xx; paywall: once) that feeds the endpoint's lifecycle and error counts.
 *
 * Payments decides from the forward's outcome whether the seller is paid (payments/delivery.ts):
 * this only reports it, by the answer's status or the AppError the forward throws.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Database } from '../db/orm.ts';
import { sqlOf } from '../db/orm.ts';
import { AppError } from '../http/app-error.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { requireChains } from '../payments/require-chains.ts';
import type { Payments, SaleRequest, SoldAnswer } from '../payments/sellable.ts';
import { forwardCall, type ForwardAnswer, type ForwardDeps } from '../proxy/forward.ts';
import type { SpooledBody } from '../proxy/spool-body.ts';
import { sellerBazaar } from '../catalog/bazaar.ts';
import { recordUpstreamOutcome, type LifecycleDeps } from './lifecycle.ts';
import type { LiveEndpoint } from '../db/rows.ts';
import { countError, findLiveEndpoint } from './seller-store.ts';

export interface SellEndpointDeps {
  orm: Database;
  /** The payments port; null when no chain is configured (nothing can be sold). */
  payments: Payments | null;
  forward: ForwardDeps;
  lifecycle: LifecycleDeps;
  log: Logger;
  metrics?: Pick<Metrics, 'upstreamRequests' | 'upstreamDuration'>;
}

/** The endpoint a call names, if it can be sold now; otherwise the 404 / 410 AppError. */
export async function requireSellableEndpoint(deps: Pick<SellEndpointDeps, 'orm'>, slug: string, pathSuffix: string): Promise<LiveEndpoint> {
  const path = `/v1/${slug}/${pathSuffix}`;
  const em = sqlOf(deps.orm);
  const endpoint = await findLiveEndpoint(em, slug, pathSuffix);
  if (!endpoint || endpoint.status === 'pending') {
    throw new AppError('endpoint_not_found', 404, endpoint ? `${path} is not live yet: its upstream is still being probed.` : `No endpoint at ${path}.`, { hint: 'GET /v1/_meta lists the catalog.' });
  }
  if (endpoint.status === 'suspended') {
    // The seller sees refused buyers in its hourly error counts.
    await countError(em, endpoint.id, endpoint.seller_id, 'endpoint_suspended');
    throw new AppError('endpoint_suspended', 410, `${path} is suspended after repeated upstream failures.`, { hint: 'Try again after the seller resumes it.' });
  }
  return endpoint;
}

export interface EndpointCall {
  slug: string;
  pathSuffix: string;
  /** The body to forward (spooled and hashed; the caller discards it once answered). */
  body: SpooledBody;
  /** The buyer's request headers (forward.ts keeps only what may reach the upstream). */
  headers: IncomingHttpHeaders;
  /** The query string to pass on (`?a=b`, or empty). */
  search: string;
  clientIp: string;
  log: Logger;
}

export function sellEndpoint(deps: SellEndpointDeps, endpoint: LiveEndpoint, call: EndpointCall, request: SaleRequest): Promise<SoldAnswer> {
  const payments = requireChains(deps.payments);
  const endpointKey = `${call.slug}/${call.pathSuffix}`;
  return payments.sell(
    {
      path: `/v1/${endpointKey}`,
      description: endpoint.desc,
      mimeType: 'application/json',
      endpointKey,
      price: { unitPrice: BigInt(endpoint.atomic_price), unit: 'request', pages: 1 },
      payee: { kind: 'seller', sellerId: endpoint.seller_id, endpointId: endpoint.id, mode: endpoint.mode },
      bazaar: sellerBazaar(endpoint.sample_body),
      run: async (payment) => {
        const upstreamUrl = call.search ? `${endpoint.upstream_url}${endpoint.upstream_url.includes('?') ? '&' : '?'}${call.search.slice(1)}` : endpoint.upstream_url;
        const started = performance.now();
        const outcome = (ok: boolean, statusCode: number | null, errorCode?: string) => {
          const label = statusCode !== null ? (statusCode >= 500 ? 'http_5xx' : statusCode >= 400 ? 'http_4xx' : 'ok') : errorCode === 'upstream_timeout' ? 'timeout' : errorCode === 'upstream_5xx' ? 'http_5xx' : 'error';
          deps.metrics?.upstreamRequests.inc({ endpoint: endpointKey, outcome: label });
          deps.metrics?.upstreamDuration.observe({ endpoint: endpointKey }, (performance.now() - started) / 1000);
          return recordUpstreamOutcome(deps.lifecycle, endpoint.id, { source: 'call', region: 'live', ok, statusCode, latencyMs: Math.round(performance.now() - started), error: ok ? null : (errorCode ?? null), errorCode }).catch((err: unknown) =>
            deps.log.error('recording an upstream outcome failed', { err, endpoint_id: endpoint.id }),
          );
        };
        let answer: ForwardAnswer;
        try {
          answer = await forwardCall(deps.forward, { mode: endpoint.mode, upstreamUrl, method: 'POST', headers: call.headers, body: call.body, payment, clientIp: call.clientIp });
        } catch (e) {
          if (e instanceof AppError) void outcome(false, null, e.code);
          throw e;
        }
        const ok = answer.status < 500;
        void outcome(ok, answer.status, ok ? undefined : `upstream_${answer.status}`);
        call.log.info('forwarded', { endpoint_id: endpoint.id, mode: endpoint.mode, status: answer.status, attempts: answer.attempts, latency_ms: answer.latencyMs });
        return { status: answer.status, headers: answer.headers, body: answer.body };
      },
    },
    request,
  );
}
