/**
 * Some schema failures have their own code in the spec (a malformed wallet, endpoint id or
 * slug); everything else is invalid_input with issues[] naming each field.
 */
import { AppError, type ErrorIssue } from './app-error.ts';

const SPECIFIC: { match: (i: ErrorIssue) => boolean; code: string; message: string }[] = [
  // `not` is the shape A / shape B exclusion (a field of the other shape), not a bad address.
  { match: (i) => /^(path\.wallet|body\.wallet|body\.primary_wallet|body\.wallets\.[a-z]+|header\.x-wallet|query\.wallet)$/.test(i.path) && i.keyword !== 'required' && i.keyword !== 'not', code: 'invalid_wallet', message: 'The wallet is neither an EVM address (0x + 40 hex) nor a Solana base58 address.' },
  { match: (i) => i.path === 'path.id', code: 'invalid_id', message: 'The id must be a positive integer.' },
  { match: (i) => i.path === 'body.slug' && i.keyword !== 'required' && i.keyword !== 'type', code: 'invalid_slug_format', message: 'The slug must match ^[a-z0-9-]{3,32}$.' },
];

export function classifyIssues(_operationId: string, issues: ErrorIssue[]): AppError | undefined {
  for (const rule of SPECIFIC) {
    const hit = issues.find(rule.match);
    if (hit) return new AppError(rule.code, 400, rule.message, { issues: [hit] });
  }
  return undefined;
}
