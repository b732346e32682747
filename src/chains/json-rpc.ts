/**
 * A lean JSON-RPC client for the two reads every paid Base / Polygon receipt makes (its
 * transaction receipt, its block's time): one POST on a kept-alive node:http(s) connection and
 * JSON.parse. viem's transport (fetch, web streams, a TimeoutError with its stack built ahead of
 * every call, its retry and dedupe wrappers) cost 0.5 ms more per pair of calls, measured on the
 * devnet (1.25 against 0.75 ms), about a tenth of a paid call's own overhead
 * (docs/operations.md, capacity model). Everything else about the chain still goes through viem.
 *
 * Failures read as viem's do, so the service answers them the same way (http/errors.ts): an
 * unreachable node, an HTTP error status or a timeout is named HttpRequestError or
 * TimeoutError (503, retry later); a JSON-RPC error is an RpcRequestError carrying its code. Retried
 * as viem retries them (its `shouldRetry`; the same count, an exponential backoff from 150 ms or
 * the node's Retry-After): network failures, timeouts, HTTP 403/408/413/429/500/502/503/504 and
 * the JSON-RPC codes of rate limits and internal errors; never a request the node refused for good.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface JsonRpcOptions {
  /** One attempt's bound (viem's `timeout`). */
  timeoutMs: number;
  /** Attempts after the first (viem's `retryCount`). */
  retryCount: number;
  /** Backoff base (viem's `retryDelay`, 150 ms): attempt n waits 2^n x this. */
  retryDelayMs?: number;
}

export type JsonRpcCall = <T>(method: string, params: unknown[]) => Promise<T>;

/**
 * The largest answer read (a receipt with many logs is a few hundred KB): a node that sends
 * more is cut off, not buffered without end.
 */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** A node's Retry-After is honoured up to this; a larger one would hold the buyer's call. */
const MAX_RETRY_AFTER_MS = 5_000;

class HttpRequestError extends Error {
  override name = 'HttpRequestError';
  constructor(
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

class TimeoutError extends Error {
  override name = 'TimeoutError';
}

class RpcRequestError extends Error {
  override name = 'RpcRequestError';
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/** Statuses and JSON-RPC codes viem retries (utils/buildRequest.ts `shouldRetry`). */
const RETRY_STATUS = new Set([403, 408, 413, 429, 500, 502, 503, 504]);
const RETRY_CODES = new Set([-1, -32005, -32603, 429, -32007]);
const retryable = (e: unknown) =>
  e instanceof RpcRequestError ? RETRY_CODES.has(e.code) : e instanceof HttpRequestError && e.status !== undefined ? RETRY_STATUS.has(e.status) : true;

export function createJsonRpc(url: string, opts: JsonRpcOptions): JsonRpcCall {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const send = secure ? httpsRequest : httpRequest;
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const headers = { 'content-type': 'application/json' };
  const retryDelayMs = opts.retryDelayMs ?? 150;
  let id = 0;

  const once = (body: string) =>
    new Promise<unknown>((resolve, reject) => {
      const req = send(target, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res: IncomingMessage) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          if (text.length > MAX_ANSWER_BYTES) {
            clearTimeout(timer);
            res.destroy();
            // Status 0 (no HTTP status applies): not retried, a node that sent this once will again.
            reject(new HttpRequestError(`the JSON-RPC answer of ${target.host} is over ${MAX_ANSWER_BYTES} bytes`, 0));
          }
        });
        res.on('error', reject);
        res.on('end', () => {
          clearTimeout(timer);
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 299) {
            const retryAfter = Number.parseInt(String(res.headers['retry-after'] ?? ''), 10);
            return reject(new HttpRequestError(`HTTP request failed: status ${status} from ${target.host}`, status, Number.isFinite(retryAfter) ? retryAfter * 1000 : undefined));
          }
          let reply: { result?: unknown; error?: { code?: number; message?: string } };
          try {
            reply = JSON.parse(text) as typeof reply;
          } catch {
            return reject(new HttpRequestError(`the JSON-RPC answer of ${target.host} is not JSON`, status));
          }
          if (reply.error) return reject(new RpcRequestError(`RPC request failed: ${reply.error.message ?? 'error'}`, Number(reply.error.code ?? -1)));
          resolve(reply.result ?? null);
        });
      });
      // The whole attempt is bounded (as viem bounds it), not only a silent socket.
      const timer = setTimeout(() => req.destroy(new TimeoutError(`the JSON-RPC request to ${target.host} took longer than ${opts.timeoutMs} ms`)), opts.timeoutMs);
      req.on('error', (err: Error) => {
        clearTimeout(timer);
        reject(err instanceof TimeoutError ? err : Object.assign(new HttpRequestError(`HTTP request failed: ${err.message}`), { cause: err, code: (err as NodeJS.ErrnoException).code }));
      });
      req.end(body);
    });

  return async <T>(method: string, params: unknown[]): Promise<T> => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params });
    for (let attempt = 0; ; attempt++) {
      try {
        return (await once(body)) as T;
      } catch (err) {
        if (attempt >= opts.retryCount || !retryable(err)) throw err;
        const wait = err instanceof HttpRequestError && err.retryAfterMs !== undefined ? Math.min(err.retryAfterMs, MAX_RETRY_AFTER_MS) : (1 << attempt) * retryDelayMs;
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  };
}
