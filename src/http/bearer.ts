/**
 * The Bearer credential as HTTP carries it. What a key may do is accounts' business
 * (accounts/with-api-key.ts); reading the header and refusing it where only a signature
 * counts happen before any of that, on the headers alone.
 */
import type { IncomingMessage } from 'node:http';
import { AppError } from './app-error.ts';

/** The request's Bearer token: undefined without an Authorization header or with another scheme (Basic is not ours to judge). */
export function bearerOf(req: IncomingMessage): string | undefined {
  const raw = req.headers.authorization;
  if (typeof raw !== 'string') return undefined;
  const m = /^bearer(?:\s+(.*))?$/is.exec(raw.trim());
  return m ? (m[1] ?? '').trim() : undefined;
}

/**
 * Key issuance takes a wallet signature only. Runs before the body is read and validated, so a
 * Bearer caller learns why (403) instead of being told its body lacks a signature (400).
 */
export function refuseBearer(req: IncomingMessage): void {
  if (bearerOf(req) !== undefined) {
    throw new AppError('signature_required', 403, 'Issuing an API key requires a wallet signature, not a Bearer key.', {
      hint: 'Sign action issue_api_key with the wallet and send wallet, label, scopes, signature and timestamp.',
    });
  }
}
