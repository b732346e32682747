/**
 * The HTTP client for sellers' upstreams (probes and paid forwarding alike). undici with a
 * connector whose DNS lookup refuses non-public addresses (ssrf-guard.ts), so the check happens
 * at dial time on the address actually dialled; literal IP hosts are checked before dialling.
 * Redirects are never followed: an upstream answers itself or fails.
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { LookupFunction } from 'node:net';
import { Agent, buildConnector, request } from 'undici';
import { assertPublicHost, blockedRange, guardedLookup, isLocalHost, UpstreamAddressError } from './ssrf-guard.ts';

export interface UpstreamClientOptions {
  allowLocal: boolean;
  /** PEM file of extra trusted CA certificates (a test's self-signed certificate). */
  caFile: string | null;
  lookup?: LookupFunction;
  connectTimeoutMs?: number;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  latencyMs: number;
}

export interface UpstreamRequest {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  maxResponseBytes: number;
}

export interface UpstreamClient {
  /** Why this URL may not be an upstream (scheme, credentials), or null. No DNS. */
  urlProblem(url: string): string | null;
  /** Resolves the host and throws UpstreamAddressError when any address is not public. */
  assertAllowedAddress(url: string): Promise<void>;
  request(url: string, req: UpstreamRequest): Promise<UpstreamResponse>;
  /** The guarded dispatcher, for streaming callers. */
  dispatcher: Agent;
  close(): Promise<void>;
}

export class UpstreamBodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the answer is over ${limit} bytes`);
    this.name = 'UpstreamBodyTooLarge';
  }
}

export function createUpstreamClient(opts: UpstreamClientOptions): UpstreamClient {
  const guard = { allowLocal: opts.allowLocal, lookup: opts.lookup };
  const ca = opts.caFile ? [...rootCertificates, readFileSync(opts.caFile, 'utf8')] : undefined;
  const base = buildConnector({ ...(ca ? { ca } : {}), lookup: guardedLookup(guard), timeout: opts.connectTimeoutMs ?? 10_000 } as buildConnector.BuildOptions);
  const connect: buildConnector.connector = (options, callback) => {
    // net.connect skips the lookup for literal IPs: judge them here.
    const host = options.hostname.replace(/^\[|\]$/g, '');
    const range = /^[\d.]+$|:/.test(host) ? blockedRange(host) : null;
    if (range && range !== 'unparseable' && !(opts.allowLocal && isLocalHost(host) && range === 'loopback')) {
      callback(new UpstreamAddressError(host, host, range), null);
      return;
    }
    base(options, callback);
  };
  const dispatcher = new Agent({ connect, keepAliveTimeout: 10_000 });

  const urlProblem = (raw: string): string | null => {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      return 'must be an absolute URL';
    }
    if (u.username || u.password) return 'must not carry credentials';
    if (u.protocol === 'https:') return null;
    if (u.protocol === 'http:' && opts.allowLocal && isLocalHost(u.hostname)) return null;
    return opts.allowLocal ? 'must use https (http is allowed only for 127.0.0.1 and localhost on the devnet)' : 'must use https';
  };

  return {
    urlProblem,
    dispatcher,
    assertAllowedAddress: (raw) => assertPublicHost(new URL(raw).hostname, guard),
    async request(url, req) {
      const problem = urlProblem(url);
      if (problem) throw new Error(`upstream_url ${problem}`);
      const started = performance.now();
      const signal = AbortSignal.timeout(req.timeoutMs);
      const res = await request(url, { dispatcher, method: req.method, headers: req.headers, body: req.body, signal });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > req.maxResponseBytes) {
          res.body.destroy();
          throw new UpstreamBodyTooLarge(req.maxResponseBytes);
        }
        chunks.push(chunk as Buffer);
      }
      return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), latencyMs: Math.round(performance.now() - started) };
    },
    // Called once the server has drained what it could (App.close): a request still waiting on
    // an upstream belongs to a buyer the shutdown already cut off. Agent.close() would wait for
    // that upstream's answer, which may never come; destroy() ends it now.
    close: () => dispatcher.destroy(),
  };
}
