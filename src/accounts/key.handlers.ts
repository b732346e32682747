/**
 * POST /v1/keys (wallet-signed), GET /v1/keys (Bearer `read` or wallet-signed), DELETE /v1/keys/{id} (wallet-signed
 * or the Bearer key itself). The signature and key checks are the wrappers' business
 * (accounts.handlers.ts); these handlers only act.
 */
import { sqlOf, type Database } from '../db/orm.ts';
import { AppError } from '../http/app-error.ts';
import type { Handler, RequestContext } from '../http/server.ts';
import { walletKey } from '../http/wallet-signature.ts';
import { findKeyById, insertKey, listKeys, revokeKey } from './account-store.ts';
import { generateApiKey, hashApiKey, KEY_WARNING, keyJson } from './api-keys.ts';
import type { Scope } from './scopes.ts';
import { walletMismatch } from './with-api-key.ts';

export interface KeyHandlerDeps {
  orm: Database;
  secret: string;
}

export interface IssueApiKeyBody {
  wallet: string;
  label: string | null;
  scopes: Scope[];
}

export function issueKeyHandler(deps: KeyHandlerDeps): Handler {
  return async (ctx) => {
    const body = ctx.body as IssueApiKeyBody;
    const { apiKey, keyPrefix } = generateApiKey();
    const row = await insertKey(sqlOf(deps.orm), {
      wallet: body.wallet,
      walletKey: walletKey(body.wallet),
      keyPrefix,
      keyHash: hashApiKey(deps.secret, apiKey),
      label: body.label,
      scopes: body.scopes,
    });
    const k = keyJson(row);
    return {
      status: 201,
      // The secret must not linger in shared caches.
      headers: { 'cache-control': 'no-store' },
      body: { api_key: apiKey, key_prefix: k.key_prefix, scopes: k.scopes, warning: KEY_WARNING, id: k.id, label: k.label, created_at: k.created_at, expires_at: k.expires_at },
    };
  };
}

/**
 * The wallet a signed listing claims (query `wallet`). Without it and without a Bearer key there
 * is no credential at all: the answer is the contract's `missing_api_key`, as before listings
 * could be signed, its message naming both ways in.
 */
export function listingWallet(ctx: RequestContext): string {
  const wallet = ctx.query.wallet;
  if (!wallet) throw new AppError('missing_api_key', 401, 'Send Authorization: Bearer <api key>, or the query parameters wallet, sig and ts.', { hint: 'Sign action list_api_keys over the wallet with the wallet, or issue a key with POST /v1/keys.' });
  return wallet;
}

/** Every key of the Bearer key's wallet, or of the signing wallet, revoked ones included, oldest first. */
export function listKeysHandler(deps: KeyHandlerDeps): Handler {
  return async (ctx) => {
    const wallet = ctx.apiKey?.wallet ?? listingWallet(ctx);
    const rows = await listKeys(sqlOf(deps.orm), walletKey(wallet));
    return { status: 200, body: { wallet, keys: rows.map(keyJson) } };
  };
}

/** The wallet a signed revocation claims (X-Wallet); without it the signature headers are incomplete. */
export function revokingWallet(ctx: RequestContext): string {
  const wallet = ctx.req.headers['x-wallet'];
  if (typeof wallet !== 'string' || wallet === '') throw new AppError('missing_signature_headers', 401, 'Send X-Wallet, X-Signature and X-Timestamp, or the Bearer key itself.');
  return wallet;
}

/**
 * Revokes a key. A Bearer key may revoke only itself: any other id answers 404, as if it did
 * not exist, so a key cannot probe which ids its wallet (or others) own. Revoking twice keeps
 * the first revoked_at.
 */
export function revokeKeyHandler(deps: KeyHandlerDeps): Handler {
  return async (ctx) => {
    const id = Number(ctx.params.id);
    const em = sqlOf(deps.orm);
    const notFound = () => new AppError('key_not_found', 404, `No API key with id ${id}.`);
    const row = await findKeyById(em, id);
    if (!row) throw notFound();
    if (ctx.apiKey) {
      if (ctx.apiKey.id !== row.id) throw notFound();
    } else if (walletKey(revokingWallet(ctx)) !== row.wallet_key) throw walletMismatch(`Key ${id}`);
    return { status: 200, body: { id, revoked_at: await revokeKey(em, id) } };
  };
}
