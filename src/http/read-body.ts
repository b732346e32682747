/**
 * Reads a request body with a hard limit that is enforced while the bytes stream in:
 * the 4 KB seller limit must answer 413 without buffering a 50 MB upload first.
 */
import type { IncomingMessage } from 'node:http';
import { AppError, type ErrorIssue } from './app-error.ts';
import { checkText } from './contract.ts';

export function tooLarge(limit: number): AppError {
  return new AppError('body_too_large', 413, `The request body is larger than ${limit} bytes.`, {
    hint: `Send at most ${limit} bytes.`,
    headers: { connection: 'close' },
  });
}

export async function readBodyLimited(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw tooLarge(limit);
      chunks.push(chunk);
    }
  } catch (e) {
    if (e instanceof AppError) throw e;
    // The client went away mid-body (ECONNRESET "aborted"): its failure, not a 500 of ours.
    throw new AppError('invalid_input', 400, `The request body could not be read to its end: ${(e as Error).message}.`);
  }
  return Buffer.concat(chunks, size);
}

// fatal: bytes that are not UTF-8 are refused, not silently replaced by U+FFFD.
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new AppError('invalid_json', 400, 'The body is not valid UTF-8, so it is not JSON.', { hint: 'Send a JSON object encoded as UTF-8 with Content-Type: application/json.' });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new AppError('invalid_json', 400, `The body is not parseable JSON: ${(e as Error).message}`, {
      hint: 'Send a JSON object with Content-Type: application/json.',
    });
  }
  // JSON escapes can still spell what no stored text may hold (\u0000, a lone \ud800):
  // PostgreSQL refuses NUL in text, and a lone surrogate would be stored as U+FFFD.
  const issues: ErrorIssue[] = [];
  findBadText(value, 'body', issues);
  if (issues.length) {
    throw new AppError('invalid_input', 400, `Invalid request: ${issues.slice(0, 5).map((i) => `${i.path} ${i.message}`).join('; ')}.`, { issues: issues.slice(0, 20) });
  }
  return value;
}

interface PathNode {
  key: string;
  parent: PathNode | null;
}
const pathOf = (node: PathNode | null): string => {
  const parts: string[] = [];
  for (let n = node; n; n = n.parent) parts.push(n.key);
  return parts.reverse().join('.');
};

/**
 * Iterative, with paths built only for a hit: a 64 KB body can nest 30,000 levels deep,
 * more than the call stack holds.
 */
function findBadText(root: unknown, rootPath: string, out: ErrorIssue[]): void {
  const stack: [unknown, PathNode][] = [[root, { key: rootPath, parent: null }]];
  while (stack.length && out.length < 20) {
    const [value, at] = stack.pop()!;
    if (typeof value === 'string') {
      const bad = checkText(value);
      if (bad) out.push({ path: pathOf(at), message: bad.problem, keyword: 'encoding' });
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    for (const [key, item] of Object.entries(value)) {
      const bad = checkText(key);
      if (bad) out.push({ path: `${pathOf(at)}.${JSON.stringify(key)}`, message: `has a field name that ${bad.problem}`, keyword: 'encoding' });
      stack.push([item, { key, parent: at }]);
    }
  }
}
