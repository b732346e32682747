/**
 * One probe of a seller's upstream: POST of sample_body (or `{}`) as JSON; ok means 200 with a
 * JSON body within the timeout. The result says what came back, for the seller.
 */
import type { ProbeResult } from '../db/entities.ts';
import type { UpstreamClient } from '../proxy/upstream-client.ts';
import { UpstreamBodyTooLarge } from '../proxy/upstream-client.ts';
import { UpstreamAddressError } from '../proxy/ssrf-guard.ts';

const MAX_PROBE_BODY = 1024 * 1024;

export async function probeUpstream(client: UpstreamClient, url: string, sampleBody: unknown, opts: { region: string; timeoutMs: number }): Promise<ProbeResult> {
  const at = Math.floor(Date.now() / 1000);
  const fail = (error: string, status: number | null = null, latency: number | null = null): ProbeResult => ({ at, region: opts.region, ok: false, status_code: status, latency_ms: latency, error });
  try {
    const res = await client.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'paycall-probe/1' },
      body: JSON.stringify(sampleBody ?? {}),
      timeoutMs: opts.timeoutMs,
      maxResponseBytes: MAX_PROBE_BODY,
    });
    if (res.status !== 200) {
      const location = res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : '';
      return fail(`answered ${res.status}${location}`, res.status, res.latencyMs);
    }
    try {
      JSON.parse(res.body.toString('utf8'));
    } catch {
      return fail(`answered 200 but the body is not JSON (${describeType(res.headers['content-type'])}, ${res.body.length} bytes)`, 200, res.latencyMs);
    }
    return { at, region: opts.region, ok: true, status_code: 200, latency_ms: res.latencyMs, error: null };
  } catch (e) {
    return fail(describeError(e, opts.timeoutMs));
  }
}

const describeType = (t: unknown) => (typeof t === 'string' ? t : 'no content-type');

function describeError(e: unknown, timeoutMs: number): string {
  for (let err = e as (Error & { code?: string; cause?: unknown }) | undefined, i = 0; err && i < 6; err = err.cause as typeof err, i++) {
    if (err instanceof UpstreamAddressError) return `${err.host} resolves to ${err.address} (${err.range}): upstreams must use public addresses`;
    if (err instanceof UpstreamBodyTooLarge) return `answered with a body over ${MAX_PROBE_BODY} bytes`;
    if (err.name === 'TimeoutError' || err.name === 'AbortError' || err.code === 'UND_ERR_CONNECT_TIMEOUT' || err.code === 'UND_ERR_HEADERS_TIMEOUT') return `no answer within ${timeoutMs / 1000} s`;
    if (err.code === 'ECONNREFUSED') return 'connection refused';
    if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') return 'the host name does not resolve';
    if (err.code === 'ECONNRESET' || err.code === 'UND_ERR_SOCKET') return 'the connection was closed before an answer';
    if (typeof err.code === 'string' && /CERT|SSL|TLS|SELF_SIGNED/.test(err.code)) return `TLS failed: ${err.message}`;
  }
  return `request failed: ${(e as Error)?.message ?? String(e)}`;
}
