/**
 * Reads a request body with a hard limit that is enforced while the bytes stream in:
 * the 4 KB seller limit must answer 413 without buffering a 50 MB upload first.
 */
import type { IncomingMessage } from 'node:http';
import { AppError } from './app-error.ts';

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
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (e) {
    throw new AppError('invalid_json', 400, `The body is not parseable JSON: ${(e as Error).message}`, {
      hint: 'Send a JSON object with Content-Type: application/json.',
    });
  }
}
