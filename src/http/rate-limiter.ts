/**
 * The rate limiter behind withRateLimit: one rate-limiter-flexible limiter per bucket, each
 * allowing `points` requests per key in a fixed window of `durationSeconds`.
 *
 * Where the counters live decides what a limit means:
 * - no REDIS_URL (the embedded default, one process): in this process's memory. Limits are
 *   per process: N instances behind a load balancer would allow N times the limit.
 * - REDIS_URL set: in Redis, shared by every instance (atomic increments), so the limit holds
 *   for the whole deployment. If Redis stops answering, each process falls back to its own
 *   in-memory counters (the insurance limiter) rather than refusing or failing requests: a
 *   Redis outage loosens limits, it never takes the service down.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { Redis } from 'ioredis';
import type { RateLimitBucket, RateLimits } from '../config.ts';
import type { Logger } from '../log.ts';

export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface RateLimiter {
  /** Counts one request of `key` in `bucket`. */
  consume(bucket: RateLimitBucket, key: string): Promise<RateLimitDecision>;
  /** Counts one request without refusing it (a proof that turned out to be refused still costs a request). */
  charge(bucket: RateLimitBucket, key: string): Promise<void>;
  /** 'memory' (per process) or 'redis' (shared). */
  readonly store: 'memory' | 'redis';
  /** Resolves once Redis is connected, or after `timeoutMs` (then counting starts in memory); at once without Redis. */
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface RateLimiterOptions {
  limits: RateLimits;
  redisUrl: string | null;
  /** Namespaces the Redis keys, so several deployments (or test runs) can share one Redis. */
  keyPrefix?: string;
  log: Logger;
}

export function createRateLimiter(opts: RateLimiterOptions): RateLimiter {
  const prefix = opts.keyPrefix ?? 'paycall:rl';
  let redis: Redis | null = null;
  if (opts.redisUrl) {
    redis = new Redis(opts.redisUrl, {
      // A request must not wait for Redis to come back: fail fast and let the insurance limiter answer.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      lazyConnect: false,
    });
    let warned = false;
    redis.on('error', (err: Error) => {
      if (warned) return;
      warned = true;
      opts.log.warn('rate limits: Redis unreachable, counting in this process until it answers', { err: err.message });
    });
    redis.on('ready', () => {
      warned = false;
    });
  }

  const limiters = {} as Record<RateLimitBucket, RateLimiterAbstract>;
  for (const [bucket, { points, durationSeconds }] of Object.entries(opts.limits) as [RateLimitBucket, RateLimits[RateLimitBucket]][]) {
    const keyPrefix = `${prefix}:${bucket}`;
    const memory = new RateLimiterMemory({ points, duration: durationSeconds, keyPrefix });
    limiters[bucket] = redis
      ? new RateLimiterRedis({ storeClient: redis, points, duration: durationSeconds, keyPrefix, rejectIfRedisNotReady: true, insuranceLimiter: memory })
      : memory;
  }

  return {
    store: redis ? 'redis' : 'memory',
    ready(timeoutMs) {
      const r = redis;
      if (!r || r.status === 'ready') return Promise.resolve(true);
      return new Promise((resolve) => {
        const done = (ok: boolean) => {
          clearTimeout(timer);
          r.off('ready', onReady);
          resolve(ok);
        };
        const onReady = () => done(true);
        const timer = setTimeout(() => done(false), timeoutMs);
        r.once('ready', onReady);
      });
    },
    async consume(bucket, key) {
      try {
        await limiters[bucket].consume(key, 1);
        return { allowed: true };
      } catch (e) {
        if (e instanceof RateLimiterRes) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(e.msBeforeNext / 1000)) };
        // Neither Redis nor the insurance limiter answered: let the request through rather than fail it.
        opts.log.warn('rate limit check failed; request allowed', { bucket, err: e instanceof Error ? e.message : String(e) });
        return { allowed: true };
      }
    },
    async charge(bucket, key) {
      await limiters[bucket].penalty(key, 1).catch(() => undefined);
    },
    async close() {
      if (redis) await redis.quit().catch(() => redis?.disconnect());
    },
  };
}
