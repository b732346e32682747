/**
 * POST /v1/pdf-md | pdf-text | pdf-json | invoice-extract: the upload (raw body or the
 * multipart `file` part) sold through sell-builtin.ts, the one Sellable of a built-in.
 */
import type { Handler } from '../http/server.ts';
import { readUpload } from '../tools/read-upload.ts';
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
    const fingerprint = requestFingerprint('POST', builtin.path, upload.contentType, upload.bytes);
    return sellBuiltin(deps, builtin, bazaar, { bytes: upload.bytes, fingerprint, requestId: ctx.requestId, log: ctx.log }, saleRequestOf(ctx, fingerprint));
  };
