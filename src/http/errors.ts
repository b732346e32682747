/**
 * The one place where failures become HTTP answers. AppError carries the spec's code; any
 * other exception is a 500 internal_error that names the request id and never leaks a stack.
 */
import { AppError } from './app-error.ts';

export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export function toErrorAnswer(err: unknown, requestId: string): ErrorAnswer {
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

export const notImplemented = (operationId: string, issue: string): AppError =>
  new AppError('not_implemented', 501, `${operationId} is part of the contract but not implemented yet (${issue}).`, {
    hint: 'This operation lands with a later issue; see GET /v1/_meta for what is live.',
  });
