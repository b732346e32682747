/**
 * An expected failure that becomes an HTTP answer. One function (toErrorAnswer in
 * errors.ts) turns it into the JSON error body, so every module only has to throw
 * `new AppError('code', status, message)` and never writes a response itself.
 */
export interface ErrorIssue {
  path: string;
  message: string;
  [key: string]: unknown;
}

export class AppError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message?: string,
    readonly extra: { hint?: string; issues?: ErrorIssue[]; headers?: Record<string, string>; body?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    // The underlying error stays reachable (logs print the chain), never in the answer.
    super(message ?? code, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'AppError';
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
