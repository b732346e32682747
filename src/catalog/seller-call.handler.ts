/**
 * POST /v1/<slug>/<path_suffix>: a paid call to a seller's endpoint. The catalog lookup comes
 * first (unknown, deleted or not yet active: 404; suspended: 410), before any quote. The body
 * is spooled to disk and hashed (its digest is in the request fingerprint and the forwarded
 * Content-Digest), the quote is the endpoint's price, and once paid the call is forwarded
 * (proxy: retried on 5xx; paywall: once) and its answer streamed back, stored for replays.
 * Every forward feeds the endpoint's lifecycle (5xx or timeout: failure) and error counts.
 *
 * A seller earns only for calls its upstream served: the ledger row (written 'pending' with the
 * receipt, before the run) is marked 'delivered' when the upstream answered below 500, and
 * 'undelivered' when the call ends upstream_5xx, upstream_timeout or with an upstream 5xx passed
 * back (paywall). The mark is written before the buyer sees any of the answer: an answer that
 * reached a buyer always has its mark, and a crash before the mark leaves a row that is not
 * paid and a buyer with no answer, who may retry with the same receipt (settlement/payout-store.ts).
 */
import { TAKE_BPS } from '../payments/take-rate.ts';
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { Database } from '../db/orm.ts';
import { AppError } from '../http/app-error.ts';
import type { Handler } from '../http/server.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { countError } from '../sellers/seller-store.ts';
import { recordUpstreamOutcome, type LifecycleDeps } from '../sellers/lifecycle.ts';
import { requestFingerprintOfDigest } from '../payments/fingerprint.ts';
import { paidCall, type PaidCallDeps } from '../payments/paid-call.ts';
import { requireChains } from '../payments/require-chains.ts';
import { forwardCall, type ForwardAnswer, type ForwardDeps } from '../proxy/forward.ts';
import { markDelivery } from '../settlement/payout-store.ts';
import { spoolBody } from '../proxy/spool-body.ts';
import { sellerBazaar } from './bazaar.ts';

export interface SellerCallDeps {
  orm: Database;
  paid: PaidCallDeps | null;
  forward: ForwardDeps;
  lifecycle: LifecycleDeps;
  maxBodyBytes: number;
  log: Logger;
  metrics?: Pick<Metrics, 'upstreamRequests' | 'upstreamDuration'>;
}

interface LiveEndpoint {
  id: number;
  seller_id: number;
  status: string;
  mode: 'proxy' | 'paywall';
  upstream_url: string;
  atomic_price: string;
  desc: string;
  sample_body: unknown;
}

/** Failures of a proxied call that mean the upstream did not serve it (forward.ts answers them). */
const UNDELIVERED_CODES = new Set(['upstream_5xx', 'upstream_timeout']);


export const sellerCallHandler =
  (deps: SellerCallDeps): Handler =>
  async (ctx) => {
    const { slug, path_suffix: pathSuffix } = ctx.params;
    const path = `/v1/${slug}/${pathSuffix}`;
    const em = deps.orm.em.fork() as unknown as SqlEntityManager;
    const [endpoint] = await em.execute<LiveEndpoint[]>(
      `select id, seller_id, status, mode, upstream_url, atomic_price::text as atomic_price, "desc", sample_body
         from seller_endpoint where slug = ? and path_suffix = ? and deleted_at is null`,
      [slug, pathSuffix],
    );
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
    const paid = requireChains(deps.paid);
    const contentType = String(ctx.req.headers['content-type'] ?? 'application/octet-stream');
    const body = await spoolBody(ctx.req, deps.maxBodyBytes);
    try {
      const price = BigInt(endpoint.atomic_price);
      return await paidCall(paid, ctx, {
        fingerprint: requestFingerprintOfDigest('POST', path, contentType, body.sha256),
        path,
        description: endpoint.desc,
        mimeType: 'application/json',
        endpointKey: `${slug}/${pathSuffix}`,
        amount: price,
        perPagePrice: price,
        estimatedPages: 1,
        sellerId: endpoint.seller_id,
        endpointId: endpoint.id,
        takeBps: TAKE_BPS[endpoint.mode],
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
            if (e instanceof AppError && UNDELIVERED_CODES.has(e.code)) {
              // If this write fails the row stays 'pending': not paid either, which is right for a failed call.
              await markDelivery(em, payment.receipt, 'undelivered').catch((err: unknown) => ctx.log.error('marking an undelivered call failed', { err, endpoint_id: endpoint.id, receipt: payment.receipt }));
            }
            throw e;
          }
          const served = answer.status < 500;
          void outcome(served, answer.status, served ? undefined : `upstream_${answer.status}`);
          try {
            await markDelivery(em, payment.receipt, served ? 'delivered' : 'undelivered');
          } catch (err) {
            // No answer without its mark: the buyer gets a 500 it may retry with the same receipt.
            answer.body.destroy();
            throw err;
          }
          ctx.log.info('forwarded', { endpoint_id: endpoint.id, mode: endpoint.mode, status: answer.status, attempts: answer.attempts, latency_ms: answer.latencyMs, delivery: served ? 'delivered' : 'undelivered' });
          return { status: answer.status, headers: answer.headers, body: answer.body };
        },
      });
    } finally {
      // An open read stream keeps the file's data until it closes; nothing else needs it now.
      await body.discard();
    }
  };
