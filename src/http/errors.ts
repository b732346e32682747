/**
 * The one place where failures become HTTP answers. AppError carries the spec's code; any
 * other exception is a 500 internal_error that names the request id and never leaks a stack.
 */
import { AppError } from './app-error.ts';
import { walkCause } from '../lib/walk-cause.ts';

export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/**
 * Codes that mean a dependency (PostgreSQL, a chain RPC) could not be reached, not that the
 * request or our code is wrong: connection refused/reset/timed out, and PostgreSQL's
 * connection-exception class (08xxx) and shutdown codes (57P01-57P03).
 */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);

/** True when an error (or one of its causes) says a dependency is unavailable. */
export function isDependencyUnavailable(err: unknown): boolean {
  return walkCause(err, isUnavailable) !== null;
}

function isUnavailable(e: unknown): boolean {
  if (!e || typeof e !== 'object') return false;
  const { code, name, message } = e as { code?: unknown; name?: unknown; message?: unknown };
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  if (name === 'ConnectionException' || name === 'HttpRequestError' || name === 'TimeoutError') return true;
  return typeof message === 'string' && /Connection terminated|connect ECONNREFUSED|Client has encountered a connection error/.test(message);
}

export function toErrorAnswer(err: unknown, requestId: string): ErrorAnswer {
  if (!(err instanceof AppError) && isDependencyUnavailable(err)) {
    // A database or RPC outage is temporary and not the client's doing: 503, retry later.
    return {
      status: 503,
      headers: { 'retry-after': '5' },
      body: { error: 'service_unavailable', message: 'A service this call needs (database or chain RPC) is unreachable right now; retry in a few seconds.', request_id: requestId },
    };
  }
  if (err instanceof AppError) {
    const body: Record<string, unknown> = { ...(err.extra.body ?? {}), error: err.code, message: err.message };
    if (err.extra.hint) body.hint = err.extra.hint;
    if (err.extra.issues) body.issues = err.extra.issues;
    body.request_id = requestId;
    return { status: err.status, headers: err.extra.headers ?? {}, body };
  }
  return {
    status: 500,
    headers: {},
    body: { error: 'internal_error', message: `Internal error; quote request id ${requestId} when reporting it.`, request_id: requestId },
  };
}
