/**
 * How `paycall` prints: tables with a header row for people, one JSON object for scripts
 * (`--json`), and the service's refusals as `paycall: <message> (<status> <code>)` on stderr
 * with a hint that names the command to run (the service's own hints name HTTP routes, which
 * a CLI user does not type).
 */
import { printError } from './context.ts';

export type Cell = string | number | bigint | null | undefined;

/** Columns padded to their widest cell; the last column is not padded (no trailing spaces). */
export function table(header: string[], rows: Cell[][]): string {
  const text = [header, ...rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : String(c))))];
  const widths = header.map((_, i) => Math.max(...text.map((r) => (r[i] ?? '').length)));
  return text.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')).join('\n');
}

/** Two columns, names and values, for one record (an account, a seller's totals). */
export const fields = (pairs: [string, Cell][]) => table(['FIELD', 'VALUE'], pairs);

/** Atomic USDC units as the amount people read (6 decimals), e.g. 19200 -> "0.0192 USDC". */
export { usdcText as usdc } from '../src/lib/usdc.ts';

/** What to run next, per error code of the contract; codes not listed keep no hint rather than a route. */
const HINTS: Record<string, string> = {
  seller_not_found: 'register the wallet first: paycall seller register <slug>',
  wallet_already_registered: 'this wallet sells already: paycall seller list',
  slug_taken: 'choose another slug: paycall seller register <other-slug>',
  invalid_slug_format: 'a slug is 3-32 of a-z, 0-9 and -: paycall seller register <slug>',
  endpoint_not_found: 'see the ids of your endpoints: paycall seller list',
  path_taken: 'see what is published: paycall seller list; change one with paycall seller update <id>',
  seller_suspended: 'fix the upstream, then: paycall seller resume',
  endpoint_suspended: 'fix the upstream, then: paycall seller resume',
  nothing_to_pay: 'see what can be paid out: paycall account',
  key_not_found: 'see the wallet’s keys: paycall keys list',
  missing_api_key: 'issue one: paycall keys issue --label <label> --scope read',
  invalid_api_key: 'issue a new key: paycall keys issue --label <label> --scope read',
  insufficient_scope: 'issue a key with the scope needed: paycall keys issue --label <label> --scope <scope>',
  rate_limited: 'wait a little and run the same command again',
  invalid_timestamp: 'check this machine’s clock, then run the command again',
  signature_already_used: 'run the command again (it signs anew)',
  invalid_signature: 'check that the key is the wallet’s (--key-file or PAYCALL_WALLET_KEY)',
  wallet_mismatch: 'check that the key is the wallet’s (--key-file or PAYCALL_WALLET_KEY)',
  upstream_unreachable: 'the seller’s upstream did not answer; try later, or check it with paycall quote <path> (no payment)',
  upstream_timeout: 'the seller’s upstream was too slow; try later',
  upstream_5xx: 'the seller’s upstream kept failing; try later (its seller sees the errors with paycall seller errors)',
  tools_busy: 'the service is busy; run the same command again in a few seconds',
  body_too_large: 'send a smaller file',
  invalid_document: 'send a PDF (or a PNG / JPEG for invoice-extract) with --file',
  not_implemented: 'this server runs an older version that does not offer it',
};

/** An HTTP route in a hint (`POST /v1/_seller/register`) means nothing to a CLI user. */
const namesRoute = (hint: string) => /\b(GET|POST|PUT|PATCH|DELETE)\s+\/|\/v1\//.test(hint);

export interface ServiceError {
  error?: string;
  message?: string;
  hint?: string;
}

/** The service's refusal on stderr: its message and code, and a hint in CLI terms. */
export function printServiceError(status: number, body: unknown): void {
  const e = (body && typeof body === 'object' ? body : {}) as ServiceError;
  const code = e.error ?? 'error';
  const hint = HINTS[code] ?? (e.hint && !namesRoute(e.hint) ? e.hint : undefined);
  printError(`${e.message?.replace(/\.$/, '') ?? `the service answered ${status}`} (${status} ${code})`, hint);
}
