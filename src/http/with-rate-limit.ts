/**
 * withRateLimit(bucket, keyOf, handler): a handler that answers 429 `rate_limited` with
 * Retry-After once `keyOf(ctx)` has used its bucket's requests for the current window, and
 * otherwise runs `handler`. Whether the limit is per process or shared by every instance
 * depends on the limiter (rate-limiter.ts: memory = per process, REDIS_URL = shared).
 *
 *   const withRateLimit = rateLimitWrapper({ limiter, metrics, proxyHops });
 *   handlers.addSellerEndpoint = withRateLimit('seller', byWallet, addEndpoint);
 *
 * Which operation counts against which bucket is the table of operation policies (src/policies.ts).
 *
 * Paid calls are never limited: a request carrying a payment proof (X-Payment,
 * PAYMENT-SIGNATURE or X-Session-Token, or an MCP tools/call with `_meta["x402/payment"]`) runs
 * whatever its bucket's count, so nobody is refused what they paid for. A proof that is refused
 * (402, 409, 400) is then counted like an unpaid call, so invented proofs do not buy unlimited
 * quotes (an MCP refusal, a tool result inside a 200, says so in `refusedProof`).
 */
import ipaddr from 'ipaddr.js';
import type { RateLimitBucket } from '../config.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { AppError } from './app-error.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { Handler, RequestContext } from './server.ts';

/** Who a request is counted against; `proxyHops` is how many trusted reverse proxies append to X-Forwarded-For. */
export type KeyOf = (ctx: RequestContext, proxyHops: number) => string;

const PROOF_HEADERS = ['x-payment', 'payment-signature', 'x-session-token'] as const;
/** An MCP tools/call carries its payment in the JSON-RPC body, `params._meta["x402/payment"]` (src/mcp/). */
const carriesMcpPayment = (ctx: RequestContext) => {
  const msg = ctx.body as { method?: unknown; params?: { _meta?: Record<string, unknown> } } | undefined;
  return msg !== null && typeof msg === 'object' && msg.method === 'tools/call' && msg.params?._meta?.['x402/payment'] != null;
};
export const carriesPaymentProof = (ctx: RequestContext) => PROOF_HEADERS.some((h) => typeof ctx.req.headers[h] === 'string' && ctx.req.headers[h] !== '') || carriesMcpPayment(ctx);

/**
 * The client's address: the socket peer, or behind `proxyHops` trusted proxies the entry they
 * appended to X-Forwarded-For (entries left of it are the client's to invent). IPv6 clients
 * are counted per /64, the block one subscriber gets.
 */
export function clientAddress(ctx: RequestContext, proxyHops: number): string {
  let address = ctx.clientIp;
  if (proxyHops > 0) {
    const raw = ctx.req.headers['x-forwarded-for'];
    const hops = (Array.isArray(raw) ? raw.join(',') : (raw ?? '')).split(',').map((s) => s.trim()).filter(Boolean);
    const entry = hops[hops.length - proxyHops];
    if (entry) address = entry;
  }
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}

export const byClientAddress: KeyOf = (ctx, proxyHops) => `ip:${clientAddress(ctx, proxyHops)}`;

/**
 * The wallet a seller or key call acts for: in the path (`/v1/_seller/{wallet}/...`), else in
 * the JSON body (`wallet`, `primary_wallet`), the `wallet` query parameter or the X-Wallet
 * header: a seller's calls are counted together from
 * wherever they come. EVM addresses are case-insensitive; Solana's base58 is not. A call
 * naming no wallet (a Bearer key listing) is counted by client address.
 */
export const byWallet: KeyOf = (ctx, proxyHops) => {
  const body = ctx.body && typeof ctx.body === 'object' ? (ctx.body as Record<string, unknown>) : {};
  // The account's `?wallet=` and a revocation's X-Wallet name the wallet of those key operations.
  const named = ctx.params.wallet ?? body.wallet ?? body.primary_wallet ?? ctx.query.wallet ?? ctx.req.headers['x-wallet'];
  if (typeof named !== 'string' || named === '') return byClientAddress(ctx, proxyHops);
  return `wallet:${/^0x/i.test(named) ? named.toLowerCase() : named}`;
};

export interface RateLimitDeps {
  /** null: RATE_LIMITS=off, every handler runs unwrapped. */
  limiter: RateLimiter | null;
  metrics?: Metrics;
  proxyHops: number;
}

export type WithRateLimit = (bucket: RateLimitBucket, keyOf: KeyOf, handler: Handler) => Handler;

const REFUSED_PROOF = new Set([400, 402, 409]);

export function rateLimitWrapper(deps: RateLimitDeps): WithRateLimit {
  const { limiter } = deps;
  if (!limiter) return (_bucket, _keyOf, handler) => handler;
  return (bucket, keyOf, handler) => async (ctx) => {
    const key = keyOf(ctx, deps.proxyHops);
    if (carriesPaymentProof(ctx)) {
      try {
        const result = await handler(ctx);
        if (REFUSED_PROOF.has(result.status) || result.refusedProof) await limiter.charge(bucket, key);
        return result;
      } catch (err) {
        if (err instanceof AppError && REFUSED_PROOF.has(err.status)) await limiter.charge(bucket, key);
        throw err;
      }
    }
    const decision = await limiter.consume(bucket, key);
    if (!decision.allowed) {
      deps.metrics?.rateLimited.inc({ bucket });
      // The body may still be arriving: the server discards what is left of it after answering.
      throw new AppError('rate_limited', 429, 'Too many requests', {
        hint: `Retry after ${decision.retryAfterSeconds} s`,
        headers: { 'retry-after': String(decision.retryAfterSeconds) },
      });
    }
    return handler(ctx);
  };
}
