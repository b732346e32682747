/**
 * POST /v1/<slug>/<path_suffix>: a paid call to a seller's endpoint. The catalog lookup comes
 * first (unknown, deleted or not yet active: 404; suspended: 410), before any quote. The body
 * is spooled to disk and hashed (its digest is in the request fingerprint and the forwarded
 * Content-Digest), and the call is sold through sell-endpoint.ts, the one Sellable of a
 * seller endpoint (shared with MCP tools/call).
 */
import type { Handler } from '../http/server.ts';
import type { OperationId } from '../generated/operation-ids.ts';
import { requestFingerprintOfDigest } from '../payments/fingerprint.ts';
import { saleRequestOf } from '../catalog/sale-request.ts';
import { spoolBody } from '../proxy/spool-body.ts';
import { requireSellableEndpoint, sellEndpoint, type SellEndpointDeps } from './sell-endpoint.ts';

export interface SellerCallDeps extends SellEndpointDeps {
  maxBodyBytes: number;
}

export const sellerCallHandler =
  (deps: SellerCallDeps): Handler =>
  async (ctx) => {
    const { slug, path_suffix: pathSuffix } = ctx.params;
    const path = `/v1/${slug}/${pathSuffix}`;
    const endpoint = await requireSellableEndpoint(deps, slug, pathSuffix).catch((e: unknown) => {
      // Refused before its body is read: let the body go so the answer is not held up.
      ctx.req.resume();
      throw e;
    });
    const contentType = String(ctx.req.headers['content-type'] ?? 'application/octet-stream');
    const body = await spoolBody(ctx.req, deps.maxBodyBytes);
    try {
      const fingerprint = requestFingerprintOfDigest('POST', path, contentType, body.sha256);
      return await sellEndpoint(deps, endpoint, { slug, pathSuffix, body, headers: ctx.req.headers, search: ctx.url.search, clientIp: ctx.clientIp, log: ctx.log }, saleRequestOf(ctx, fingerprint));
    } finally {
      // An open read stream keeps the file's data until it closes; nothing else needs it now.
      await body.discard();
    }
  };

/** The seller call as this feature's handler map (app.ts merges it with the others). */
export const createSellerCallHandlers = (deps: SellerCallDeps): Partial<Record<OperationId, Handler>> => ({ callSellerEndpoint: sellerCallHandler(deps) });
