/**
 * POST /v1/<slug>/<path_suffix>: a paid call to a seller's endpoint. The catalog lookup comes
 * first (unknown, deleted or not yet active: 404; suspended: 410), before any quote. The body
 * is spooled to disk and hashed (its digest is in the request fingerprint and the forwarded
 * Content-Digest), the quote is the endpoint's price, and once paid the call is forwarded
 * (proxy: retried on 5xx; paywall: once) and its answer streamed back, stored for replays.
 * Every forward feeds the endpoint's lifecycle (5xx or timeout: failure) and error counts.
 *
 * Payments decides from the forward's outcome whether the seller is paid (payments/delivery.ts):
 * this handler only reports it, by the answer's status or the AppError the forward throws.
 */
import type { Database } from '../db/orm.ts';
import { AppError } from '../http/app-error.ts';
import type { Handler } from '../http/server.ts';
import type { OperationId } from '../generated/operation-ids.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { countError, findLiveEndpoint } from './seller-store.ts';
import { sqlOf } from '../db/orm.ts';
import { recordUpstreamOutcome, type LifecycleDeps } from './lifecycle.ts';
import { requestFingerprintOfDigest } from '../payments/fingerprint.ts';
import type { Payments } from '../payments/sellable.ts';
import { saleRequestOf } from '../catalog/sale-request.ts';
import { requireChains } from '../payments/require-chains.ts';
import { forwardCall, type ForwardAnswer, type ForwardDeps } from '../proxy/forward.ts';
import { spoolBody } from '../proxy/spool-body.ts';
import { sellerBazaar } from '../catalog/bazaar.ts';

export interface SellerCallDeps {
  orm: Database;
  /** The payments port; null when no chain is configured (nothing can be sold). */
  payments: Payments | null;
  forward: ForwardDeps;
  lifecycle: LifecycleDeps;
  maxBodyBytes: number;
  log: Logger;
  metrics?: Pick<Metrics, 'upstreamRequests' | 'upstreamDuration'>;
}

export const sellerCallHandler =
  (deps: SellerCallDeps): Handler =>
  async (ctx) => {
    const { slug, path_suffix: pathSuffix } = ctx.params;
    const path = `/v1/${slug}/${pathSuffix}`;
    const em = sqlOf(deps.orm);
    const endpoint = await findLiveEndpoint(em, slug, pathSuffix);
    if (!endpoint || endpoint.status === 'pending') {
      ctx.req.resume();
      throw new AppError('endpoint_not_found', 404, endpoint ? `${path} is not live yet: its upstream is still being probed.` : `No endpoint at ${path}.`, { hint: 'GET /v1/_meta lists the catalog.' });
    }
    if (endpoint.status === 'suspended') {
      ctx.req.resume();
      // The seller sees refused buyers in its hourly error counts.
      await countError(em, endpoint.id, endpoint.seller_id, 'endpoint_suspended');
      throw new AppError('endpoint_suspended', 410, `${path} is suspended after repeated upstream failures.`, { hint: 'Try again after the seller resumes it.' });
    }
    const payments = requireChains(deps.payments);
    const contentType = String(ctx.req.headers['content-type'] ?? 'application/octet-stream');
    const body = await spoolBody(ctx.req, deps.maxBodyBytes);
    try {
      const fingerprint = requestFingerprintOfDigest('POST', path, contentType, body.sha256);
      return await payments.sell({
        path,
        description: endpoint.desc,
        mimeType: 'application/json',
        endpointKey: `${slug}/${pathSuffix}`,
        price: { unitPrice: BigInt(endpoint.atomic_price), unit: 'request', pages: 1 },
        payee: { kind: 'seller', sellerId: endpoint.seller_id, endpointId: endpoint.id, mode: endpoint.mode },
        bazaar: sellerBazaar(endpoint.sample_body),
        run: async (payment) => {
          const search = ctx.url.search;
          const upstreamUrl = search ? `${endpoint.upstream_url}${endpoint.upstream_url.includes('?') ? '&' : '?'}${search.slice(1)}` : endpoint.upstream_url;
          const started = performance.now();
          const endpointLabel = `${slug}/${pathSuffix}`;
          const outcome = (ok: boolean, statusCode: number | null, errorCode?: string) => {
            const label = statusCode !== null ? (statusCode >= 500 ? 'http_5xx' : statusCode >= 400 ? 'http_4xx' : 'ok') : errorCode === 'upstream_timeout' ? 'timeout' : errorCode === 'upstream_5xx' ? 'http_5xx' : 'error';
            deps.metrics?.upstreamRequests.inc({ endpoint: endpointLabel, outcome: label });
            deps.metrics?.upstreamDuration.observe({ endpoint: endpointLabel }, (performance.now() - started) / 1000);
            return recordUpstreamOutcome(deps.lifecycle, endpoint.id, { source: 'call', region: 'live', ok, statusCode, latencyMs: Math.round(performance.now() - started), error: ok ? null : (errorCode ?? null), errorCode }).catch((err: unknown) =>
              deps.log.error('recording an upstream outcome failed', { err, endpoint_id: endpoint.id }),
            );
          };
          let answer: ForwardAnswer;
          try {
            answer = await forwardCall(deps.forward, { mode: endpoint.mode, upstreamUrl, method: 'POST', headers: ctx.req.headers, body, payment, clientIp: ctx.clientIp });
          } catch (e) {
            if (e instanceof AppError) void outcome(false, null, e.code);
            throw e;
          }
          const ok = answer.status < 500;
          void outcome(ok, answer.status, ok ? undefined : `upstream_${answer.status}`);
          ctx.log.info('forwarded', { endpoint_id: endpoint.id, mode: endpoint.mode, status: answer.status, attempts: answer.attempts, latency_ms: answer.latencyMs });
          return { status: answer.status, headers: answer.headers, body: answer.body };
        },
      }, saleRequestOf(ctx, fingerprint));
    } finally {
      // An open read stream keeps the file's data until it closes; nothing else needs it now.
      await body.discard();
    }
  };

/** The seller call as this feature's handler map (app.ts merges it with the others). */
export const createSellerCallHandlers = (deps: SellerCallDeps): Partial<Record<OperationId, Handler>> => ({ callSellerEndpoint: sellerCallHandler(deps) });
