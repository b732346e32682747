/**
 * Bearer API keys as wrappers around handlers, hono-style. Which operation takes a key, with
 * which scope and how, is the table of operation policies (src/policies.ts), which app.ts
 * applies:
 *
 *   keys.required(op, handler);                                           // Bearer only
 *   keys.orSignature('addSellerEndpoint', signed(opts, add), add);        // Bearer or signature
 *   keys.optional('pdfMd', paidHandler);                                  // identity only
 *
 * With a Bearer key the signed handler is skipped and the plain one runs, after the key is
 * found live (else 401 invalid_api_key), holds the operation's scope (else 403
 * insufficient_scope) and belongs to the wallet the request acts for (else 401
 * wallet_mismatch). Without one, the request goes where it went before (the signature check,
 * or the plain handler for paid calls). The key's identity is left on `ctx.apiKey`.
 */
import { sqlOf, type Database } from '../db/orm.ts';
import type { OperationId } from '../generated/operation-ids.ts';
import { AppError } from '../http/app-error.ts';
import type { Handler, RequestContext } from '../http/server.ts';
import { walletKey } from '../http/wallet-signature.ts';
import { bearerOf } from '../http/bearer.ts';
import { findLiveKey, type KeyIdentity } from './api-keys.ts';
import type { Scope } from './scopes.ts';
import type { KeyUsage } from './key-usage.ts';

/** The scope a Bearer key needs per operation; `any`: every live key (a key revoking itself). */
export type KeyScopes = Partial<Record<OperationId, Scope | 'any'>>;
export type KeyOperation = OperationId;

export interface KeyAuthDeps {
  orm: Database;
  /** The HMAC secret keys are stored under. */
  secret: string;
  usage: KeyUsage;
  /** Per operation, the scope its key needs: read from the policy table (src/policies.ts keyScopesOf) by app.ts. */
  scopes: KeyScopes;
  now?: () => Date;
}

export const walletMismatch = (what: string) => new AppError('wallet_mismatch', 401, `${what} belongs to another wallet.`, { hint: 'A key acts only for the wallet that issued it.' });

/** The wallet a request acts for: the `{wallet}` path parameter, or the account's `wallet` query parameter. */
const claimedWallet = (ctx: RequestContext): string | undefined => ctx.params.wallet ?? ctx.query.wallet;

export function createKeyAuth(deps: KeyAuthDeps) {
  const now = deps.now ?? (() => new Date());

  /** The live key of the request, its scope checked; null without a Bearer header. */
  const authenticate = async (op: KeyOperation, ctx: RequestContext): Promise<KeyIdentity | null> => {
    const token = bearerOf(ctx.req);
    if (token === undefined) return null;
    const key = await findLiveKey(sqlOf(deps.orm), deps.secret, token, now());
    const scope = deps.scopes[op];
    // The policy table wraps only operations it gives a key policy; anything else is a wiring error.
    if (scope === undefined) throw new Error(`${op} takes no API key (src/policies.ts)`);
    if (scope !== 'any' && !key.scopes.includes(scope)) {
      throw new AppError('insufficient_scope', 403, `This operation needs the scope ${scope}.`, { hint: `Issue a key with the scope ${scope} (POST /v1/keys).` });
    }
    deps.usage.touch(key.id);
    ctx.apiKey = key;
    return key;
  };

  const ownWallet = (ctx: RequestContext, key: KeyIdentity) => {
    const wallet = claimedWallet(ctx);
    if (wallet !== undefined && walletKey(wallet) !== walletKey(key.wallet)) throw walletMismatch(`The API key ${key.id}`);
  };

  return {
    authenticate,
    /** Bearer key or wallet signature: the key runs `plain` (after scope and wallet checks), no key runs `signed`. */
    orSignature:
      (op: KeyOperation, signed: Handler, plain: Handler): Handler =>
      async (ctx) => {
        const key = await authenticate(op, ctx);
        if (!key) return signed(ctx);
        ownWallet(ctx, key);
        return plain(ctx);
      },
    /** Only a Bearer key authorises this operation. */
    required:
      (op: KeyOperation, handler: Handler): Handler =>
      async (ctx) => {
        const key = await authenticate(op, ctx);
        if (!key) throw new AppError('missing_api_key', 401, 'Send Authorization: Bearer <api key>.', { hint: 'Issue a key with POST /v1/keys (signed by the wallet).' });
        ownWallet(ctx, key);
        return handler(ctx);
      },
    /** A key is optional and only says who calls (paid calls: payment proof is still required). */
    optional:
      (op: KeyOperation, handler: Handler): Handler =>
      async (ctx) => {
        await authenticate(op, ctx);
        return handler(ctx);
      },
  };
}

export type KeyAuth = ReturnType<typeof createKeyAuth>;
