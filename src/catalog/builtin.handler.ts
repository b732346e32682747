/**
 * POST /v1/pdf-md | pdf-text | pdf-json | invoice-extract: the upload (raw body or the
 * multipart `file` part) sold through sell-builtin.ts, the one Sellable of a built-in.
 */
import type { Handler } from '../http/server.ts';
import { readUpload } from '../tools/read-upload.ts';
import type { PageAnchorForm } from '../tools/tool-types.ts';
import { requestFingerprint } from '../payments/fingerprint.ts';
import { saleRequestOf } from './sale-request.ts';
import type { BuiltinEndpoint } from './builtins.ts';
import type { BazaarExtension } from './bazaar.ts';
import { sellBuiltin, type BuiltinDeps } from './sell-builtin.ts';

export type { BuiltinDeps } from './sell-builtin.ts';

export const builtinHandler =
  (deps: BuiltinDeps, builtin: BuiltinEndpoint, bazaar?: BazaarExtension): Handler =>
  async (ctx) => {
    const upload = await readUpload(ctx.req, { maxBytes: deps.limits.maxBodyBytes });
    // The contract validated the options (pdf-md's `page_anchors`); a non-default option is
    // part of what is bought, so it is part of the fingerprint (a replay answers the same form).
    const options = builtin.tool === 'pdf-md' && ctx.query.page_anchors ? { pageAnchors: ctx.query.page_anchors as PageAnchorForm } : undefined;
    const fingerprintPath = options?.pageAnchors && options.pageAnchors !== 'comment' ? `${builtin.path}?page_anchors=${options.pageAnchors}` : builtin.path;
    const fingerprint = requestFingerprint('POST', fingerprintPath, upload.contentType, upload.bytes);
    return sellBuiltin(deps, builtin, bazaar, { bytes: upload.bytes, fingerprint, requestId: ctx.requestId, log: ctx.log, options }, saleRequestOf(ctx, fingerprint));
  };
