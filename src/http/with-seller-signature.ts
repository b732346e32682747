/**
 * The wallet-signature check as a wrapper around a handler, hono-style:
 *
 *   const signed = createSignatureCheck(deps);
 *   handlers.addSellerEndpoint = signed({ action: 'add_endpoint', from: 'body', singleUse: true, payloadOf }, handler);
 *
 * Order of refusals: credentials missing (401 missing_signature_headers / missing_sig_or_ts, or
 * 400 invalid_input for a body), timestamp outside [now - 300 s, now + 60 s] (400
 * invalid_timestamp), signer is not the wallet (401 invalid_signature), then for a state change
 * a second use (409 signature_already_used). Single use is a primary key in used_signature, so
 * two instances cannot both accept one signature. The key is the signed message (wallet, action,
 * payloadHash, timestamp), not the signature bytes, so a re-encoded (malleated) signature of the
 * same message is a replay too. A request refused by the handler gives its signature back: it
 * changed nothing, and the seller may fix the cause and retry within the window.
 *
 * Generic over action and payload so API keys (issue_api_key, revoke_api_key) and payouts
 * (request_payout) reuse it.
 */
import { createHash } from 'node:crypto';
import { sqlOf, type Database } from '../db/orm.ts';
import { AppError } from './app-error.ts';
import { insertSignatureUses, releaseSignatureUses } from './signature-store.ts';
import type { Handler, RequestContext } from './server.ts';
import { payloadHash, verifyWalletSignature, walletKey, walletKind } from './wallet-signature.ts';

export const SIGNATURE_WINDOW_PAST_S = 300;
export const SIGNATURE_WINDOW_FUTURE_S = 60;

export const SIGNATURE_REFUSALS = ['missing_signature', 'invalid_timestamp', 'invalid_signature', 'signature_already_used'] as const;
export type SignatureRefusal = (typeof SIGNATURE_REFUSALS)[number];

export interface SignatureDeps {
  serviceName: string;
  orm: Database;
  /** Unix seconds; injectable for tests of the window. */
  now?: () => number;
  onRefusal?: (reason: SignatureRefusal) => void;
}

export type SignatureSource = 'body' | 'headers' | 'query';

export interface SignatureOptions {
  action: string;
  /** body: {signature, timestamp}; headers: X-Signature / X-Timestamp; query: sig / ts. */
  from: SignatureSource;
  /** State-changing actions accept a signature once; reads may reuse one within its window. */
  singleUse: boolean;
  /** The UTF-8 text whose keccak-256 is the signed payloadHash. May throw an AppError (e.g. 404). */
  payloadOf: (ctx: RequestContext) => string | Promise<string>;
  /** The claimed wallet; default the {wallet} path parameter. */
  walletOf?: (ctx: RequestContext) => string;
}

export interface Credentials {
  signature: string;
  timestamp: number;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Reads signature + timestamp from where the operation carries them, or throws the missing-credentials error. */
export function credentialsOf(ctx: RequestContext, from: SignatureSource): Credentials {
  if (from === 'body') {
    const b = (ctx.body ?? {}) as { signature?: unknown; timestamp?: unknown };
    const issues = [];
    if (typeof b.signature !== 'string') issues.push({ path: 'body.signature', message: 'is required', keyword: 'required' });
    if (typeof b.timestamp !== 'number') issues.push({ path: 'body.timestamp', message: 'is required', keyword: 'required' });
    if (issues.length) throw new AppError('invalid_input', 400, 'signature and timestamp are required.', { issues, hint: 'Sign the action with the wallet and send signature and timestamp.' });
    return { signature: b.signature as string, timestamp: b.timestamp as number };
  }
  const [sig, ts] = from === 'headers' ? [header(ctx, 'x-signature'), header(ctx, 'x-timestamp')] : [ctx.query.sig, ctx.query.ts];
  if (!sig || !ts) {
    throw from === 'headers'
      ? new AppError('missing_signature_headers', 401, 'Send X-Signature and X-Timestamp, or a Bearer API key.')
      : new AppError('missing_sig_or_ts', 401, 'Send the query parameters sig and ts, or a Bearer API key.');
  }
  if (!/^\d{1,15}$/.test(ts)) throw invalidTimestamp();
  return { signature: sig, timestamp: Number(ts) };
}

const header = (ctx: RequestContext, name: string): string | undefined => {
  const v = ctx.req.headers[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
};

const invalidTimestamp = () =>
  new AppError('invalid_timestamp', 400, `timestamp must lie within [now - ${SIGNATURE_WINDOW_PAST_S} s, now + ${SIGNATURE_WINDOW_FUTURE_S} s].`, {
    hint: 'Sign again with the current Unix time in seconds.',
  });

export function checkTimestamp(timestamp: number, now: number): void {
  if (!Number.isSafeInteger(timestamp) || timestamp < now - SIGNATURE_WINDOW_PAST_S || timestamp > now + SIGNATURE_WINDOW_FUTURE_S) throw invalidTimestamp();
}

export async function verifyOrThrow(serviceName: string, wallet: string, action: string, payload: string, c: Credentials): Promise<void> {
  const ok = await verifyWalletSignature(serviceName, { wallet, action, payload, timestamp: c.timestamp, signature: c.signature });
  if (!ok) {
    const kind = walletKind(wallet);
    throw new AppError('invalid_signature', 401, 'The signature does not recover to the claimed wallet.', {
      hint:
        kind === 'solana'
          ? `Sign the SellerAction text for action ${action} with the wallet's Ed25519 key (base58 signature).`
          : `Sign the EIP-712 SellerAction for action ${action} with the wallet (domain: ${serviceName}, version 1, chainId 8453).`,
    });
  }
}

/** The single-use key of a signed message. */
export const signatureUseKey = (wallet: string, action: string, payload: string, timestamp: number): string =>
  createHash('sha256').update(`${walletKey(wallet)}|${action}|${payloadHash(payload)}|${timestamp}`).digest('hex');

/**
 * Marks signed messages used (all or none). Returns a release function that frees them again,
 * for a request that was refused after the signature check.
 */
export async function consumeSignatures(orm: Database, uses: { key: string; wallet: string; action: string }[]): Promise<() => Promise<void>> {
  const em = sqlOf(orm);
  const unique = [...new Map(uses.map((u) => [u.key, u])).values()];
  await em.transactional(async (tx) => {
    const fresh = await insertSignatureUses(tx, unique.map((u) => ({ key: u.key, walletKey: walletKey(u.wallet), action: u.action })));
    if (fresh < unique.length) throw new AppError('signature_already_used', 409, 'This signature was already used.', { hint: 'Sign again with a fresh timestamp.' });
  });
  return async () => {
    await releaseSignatureUses(sqlOf(orm), unique.map((u) => u.key));
  };
}

/** Counts a refusal by reason before rethrowing it. */
export async function countingRefusals<T>(onRefusal: SignatureDeps['onRefusal'], run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof AppError && onRefusal) {
      const reason: SignatureRefusal | null =
        e.code === 'invalid_timestamp' || e.code === 'invalid_signature' || e.code === 'signature_already_used'
          ? e.code
          : e.code === 'missing_signature_headers' || e.code === 'missing_sig_or_ts' || e.code === 'invalid_input'
            ? 'missing_signature'
            : null;
      if (reason) onRefusal(reason);
    }
    throw e;
  }
}

/**
 * What a signed handler remembers: its action (app.ts checks it against the policy table) and the
 * handler it wraps, which a Bearer key may run instead where the policy says so.
 */
export interface SignedBy {
  action: string;
  unsigned: Handler;
}
const SIGNED = new WeakMap<Handler, SignedBy>();
export const signedBy = (handler: Handler): SignedBy | undefined => SIGNED.get(handler);

export function createSignatureCheck(deps: SignatureDeps) {
  const now = deps.now ?? nowSeconds;
  return (opts: SignatureOptions, handler: Handler): Handler => {
    const signed: Handler = async (ctx) => {
      const wallet = opts.walletOf ? opts.walletOf(ctx) : ctx.params.wallet;
      let release: (() => Promise<void>) | null = null;
      if (!walletKind(wallet)) throw new AppError('invalid_wallet', 400, 'The wallet is neither an EVM address (0x + 40 hex) nor a Solana address (base58 of 32 bytes).');
      await countingRefusals(deps.onRefusal, async () => {
        const creds = credentialsOf(ctx, opts.from);
        checkTimestamp(creds.timestamp, now());
        const payload = await opts.payloadOf(ctx);
        await verifyOrThrow(deps.serviceName, wallet, opts.action, payload, creds);
        if (opts.singleUse) release = await consumeSignatures(deps.orm, [{ key: signatureUseKey(wallet, opts.action, payload, creds.timestamp), wallet, action: opts.action }]);
      });
      try {
        return await handler(ctx);
      } catch (e) {
        if (release) await (release as () => Promise<void>)().catch(() => undefined);
        throw e;
      }
    };
    SIGNED.set(signed, { action: opts.action, unsigned: handler });
    return signed;
  };
}
