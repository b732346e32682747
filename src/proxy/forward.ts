/**
 * Forwards a paid call to the seller's upstream and streams the answer back.
 *  - proxy mode: a 5xx (or no answer at all) is retried with back-off until the retry window
 *    (60 s) is spent, then 502 upstream_5xx; no answer headers within the timeout (30 s) is 504
 *    upstream_timeout. Both carry X-Service-Tx, the payment's transaction.
 *  - paywall mode: one forward; whatever the upstream answers is passed back as it is.
 * The buyer's credentials never travel: X-Payment, X-Session-Token, PAYMENT-SIGNATURE,
 * Authorization and cookies are dropped, as are hop-by-hop headers; the service adds who paid
 * (X-Paycall-*, and Idempotency-Key = the paid transaction) and signs them with the body's
 * digest (RFC 9421, forward-signature.ts), and who called (Forwarded, X-Forwarded-For from
 * the socket: client-address.ts).
 * On the way back, the headers the service sets on paid answers are removed from the
 * upstream's before the service adds its own, so an upstream cannot forge them (the stored
 * replay is made from the same headers).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { AppError } from '../http/app-error.ts';
import { contentDigest, type ForwardSigner } from './forward-signature.ts';
import { CLIENT_ADDRESS_HEADERS, clientAddressHeaders, type TrustedProxy } from '../lib/client-address.ts';
import type { SpooledBody } from './spool-body.ts';

/** RFC 9110 7.6.1: meaningful for one connection only. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade'];
/** Never forwarded: the buyer's credentials, and what the service itself sets (so a buyer cannot forge it). */
const REQUEST_DROPPED = ['host', 'content-length', 'x-payment', 'x-session-token', 'payment-signature', 'authorization', 'cookie', 'content-digest', 'signature', 'signature-input', 'expect'];
const RESPONSE_DROPPED = ['set-cookie', 'content-length'];
/**
 * The service's own answer headers (docs/decisions.md, "Edge trust"): the payment's proof
 * (X-PAYMENT-RESPONSE, PAYMENT-RESPONSE), X-Service-Tx, X-Idempotent-Replay, a 402's
 * PAYMENT-REQUIRED, the request id, message signatures and rate-limit state. An upstream
 * that sends one would speak for the service. Retry-After is the upstream's own: it
 * qualifies the status it answered (a 429 or 503 passed back), which the buyer sees as such.
 */
const SERVICE_OWNED = new Set(['x-service-tx', 'x-idempotent-replay', 'x-payment-response', 'payment-response', 'payment-required', 'x-request-id', 'signature', 'signature-input', 'accept-signature', 'ratelimit', 'ratelimit-policy']);
const SERVICE_OWNED_PREFIXES = ['x-paycall-', 'x-service-', 'ratelimit-', 'x-ratelimit-'];
const isServiceOwned = (name: string) => {
  if (SERVICE_OWNED.has(name)) return true;
  // A loop, not .some with a callback: this runs for every header of every answer.
  for (const prefix of SERVICE_OWNED_PREFIXES) if (name.startsWith(prefix)) return true;
  return false;
};

export interface ForwardDeps {
  dispatcher: Dispatcher;
  signer: ForwardSigner;
  /** No answer headers within this long: 504 (default 30 s). */
  timeoutMs: number;
  /** Proxy mode keeps retrying a 5xx for this long (default 60 s). */
  retryWindowMs: number;
  /** First back-off; doubles up to 8 s. */
  retryBaseMs: number;
  /** TRUSTED_PROXIES: peers whose Forwarded / X-Forwarded-For chain is kept and extended (default: none). */
  trustedProxies?: readonly TrustedProxy[];
}

export interface ForwardInput {
  mode: 'proxy' | 'paywall';
  upstreamUrl: string;
  method: string;
  headers: IncomingHttpHeaders;
  body: SpooledBody;
  payment: { payer: string; tx: string; network: string };
  /** The socket peer of the buyer's request (RequestContext.clientIp). */
  clientIp: string;
}

export interface ForwardAnswer {
  status: number;
  headers: Record<string, string>;
  body: Readable;
  attempts: number;
  /** Time to the answer's headers, last attempt. */
  latencyMs: number;
}

/** Headers named in Connection are hop-by-hop too. */
const connectionTokens = (value: string | string[] | undefined) =>
  (Array.isArray(value) ? value.join(',') : (value ?? '')).split(',').map((t) => t.trim().toLowerCase()).filter(Boolean);

// Built once, not per call: the fixed names each direction drops.
const REQUEST_DROPPED_ALL = new Set<string>([...HOP_BY_HOP, ...REQUEST_DROPPED, ...CLIENT_ADDRESS_HEADERS]);
const RESPONSE_DROPPED_ALL = new Set<string>([...HOP_BY_HOP, ...RESPONSE_DROPPED]);
/** The fixed set, plus the names a Connection header lists (rare: only then a new set). */
const droppedWith = (fixed: Set<string>, connection: string | string[] | undefined): Set<string> => {
  // What nearly every answer says (node:http and most servers send `Connection: keep-alive`): nothing to parse.
  if (connection === undefined || connection === 'keep-alive' || connection === 'close') return fixed;
  const tokens = connectionTokens(connection).filter((t) => !fixed.has(t));
  return tokens.length ? new Set([...fixed, ...tokens]) : fixed;
};

export function forwardedHeaders(input: ForwardInput, signer: ForwardSigner, trustedProxies: readonly TrustedProxy[] = []): Record<string, string> {
  const dropped = droppedWith(REQUEST_DROPPED_ALL, input.headers.connection);
  const out: Record<string, string> = {};
  for (const name in input.headers) {
    const value = input.headers[name];
    if (value === undefined || dropped.has(name) || name.startsWith('x-paycall-')) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  Object.assign(out, clientAddressHeaders(input.headers, input.clientIp, trustedProxies));
  out['content-length'] = String(input.body.size);
  out['content-digest'] = contentDigest(input.body.sha256);
  out['x-paycall-payer'] = input.payment.payer;
  out['x-paycall-tx'] = input.payment.tx;
  out['x-paycall-network'] = input.payment.network;
  // The paid call's identity for the seller's deduplication (forwards are at-least-once: a run
  // taken over after a crash forwards again). A structured-field string, as the IETF
  // Idempotency-Key draft defines it; any Idempotency-Key the buyer sent is replaced.
  out['idempotency-key'] = `"${input.payment.tx}"`;
  const signed = signer.sign({ method: input.method, targetUri: input.upstreamUrl, headers: out });
  out['signature-input'] = signed['signature-input'];
  out.signature = signed.signature;
  return out;
}

function answerHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const dropped = droppedWith(RESPONSE_DROPPED_ALL, headers.connection);
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    const lower = name.toLowerCase();
    if (value === undefined || dropped.has(lower) || isServiceOwned(lower)) continue;
    out[lower] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

const isTimeout = (e: unknown) => {
  const code = (e as { code?: string })?.code;
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || (e as Error)?.name === 'TimeoutError';
};

export async function forwardCall(deps: ForwardDeps, input: ForwardInput): Promise<ForwardAnswer> {
  const started = Date.now();
  const headers = forwardedHeaders(input, deps.signer, deps.trustedProxies);
  let backoff = deps.retryBaseMs;
  let lastProblem = '';
  for (let attempt = 1; ; attempt++) {
    const sent = performance.now();
    try {
      const res = await request(input.upstreamUrl, {
        dispatcher: deps.dispatcher,
        method: input.method as Dispatcher.HttpMethod,
        headers,
        body: input.body.bytes ?? input.body.open(),
        headersTimeout: deps.timeoutMs,
        // Between body chunks: a slow buyer holds the answer back (backpressure), which must not
        // count against the upstream; a minute of silence still ends a stuck answer.
        bodyTimeout: Math.max(deps.timeoutMs, 60_000),
      });
      const latencyMs = Math.round(performance.now() - sent);
      if (res.statusCode < 500 || input.mode === 'paywall') return { status: res.statusCode, headers: answerHeaders(res.headers), body: res.body, attempts: attempt, latencyMs };
      lastProblem = `answered ${res.statusCode}`;
      await res.body.dump();
    } catch (e) {
      if (isTimeout(e)) {
        throw new AppError('upstream_timeout', 504, `The seller's upstream did not answer within ${deps.timeoutMs / 1000} s. The payment is not refunded.`, { headers: { 'x-service-tx': input.payment.tx }, cause: e });
      }
      lastProblem = `could not be reached (${(e as Error).message})`;
    }
    if (input.mode === 'paywall' || Date.now() - started + backoff > deps.retryWindowMs) break;
    await new Promise((r) => setTimeout(r, backoff));
    backoff = Math.min(backoff * 2, 8_000);
  }
  throw new AppError('upstream_5xx', 502, `The seller's upstream ${lastProblem}${input.mode === 'proxy' ? ` and kept failing for ${Math.round((Date.now() - started) / 1000)} s of retries` : ''}. The payment is not refunded.`, { headers: { 'x-service-tx': input.payment.tx } });
}
