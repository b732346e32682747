/**
 * Reads a request body with a hard limit that is enforced while the bytes stream in:
 * the 4 KB seller limit must answer 413 without buffering a 50 MB upload first.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { AppError, type ErrorIssue } from './app-error.ts';
import { checkText } from './contract.ts';

export function tooLarge(limit: number): AppError {
  return new AppError('body_too_large', 413, `The request body is larger than ${limit} bytes.`, {
    hint: `Send at most ${limit} bytes.`,
    headers: { connection: 'close' },
  });
}

/** The client went away before its body was complete (a reset, a dropped connection). */
const bodyCut = (detail?: string) =>
  new AppError('invalid_input', 400, `The client closed the connection before the request body was complete${detail ? ` (${detail})` : ''}.`);

/**
 * Reads a body chunk by chunk, handing each to `take` and, when `take` returns a promise (a
 * spool file write), waiting for it before reading on: backpressure, and never two writes at
 * once. Resolves at the body's end. Rejects on the first of: `take` throws (a limit), the
 * stream fails, or it closes before its end (the client went away, Node's request timeout),
 * and only once a `take` in progress has finished, so the caller's clean-up never races its
 * own write. Every event of the stream is listened to until then, so nothing it emits can be
 * unheard. The stream is never destroyed here: on a refusal it is detached and paused, and
 * the server still answers (a 413 says `connection: close`; server.ts cuts the connection
 * once the answer is out).
 */
export function readChunks(source: Readable, take: (chunk: Buffer) => void | Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    // The state and the listeners are one object literal's fields and methods, not local
    // `const f = () => ...` functions: the service runs under tsx (npm start), whose esbuild
    // transform (keepNames) names every such local function with an Object.defineProperty
    // call each time it is created. Six per body read were 3-4 % of the CPU of an unpaid
    // 402 (docs/operations.md, "Capacity model"). The methods refer to `r`, never to `this`
    // (a listener's `this` is the stream).
    const r = {
      busy: false,
      ended: false,
      failure: null as unknown,
      settled: false,
      settle(): void {
        if (r.settled || r.busy) return;
        if (r.failure === null && !r.ended) return;
        r.settled = true;
        source.off('data', r.onData);
        source.off('end', r.onEnd);
        source.off('close', r.onClose);
        // The 'error' listener stays: a later error of this stream must not become an uncaught one.
        if (r.failure === null) resolve();
        else {
          source.unpipe();
          source.pause();
          reject(r.failure);
        }
      },
      fail(error: unknown): void {
        r.failure ??= error;
        r.settle();
      },
      onData(chunk: Buffer): void {
        if (r.failure !== null) return;
        let pending: void | Promise<void>;
        try {
          pending = take(chunk);
        } catch (error) {
          return r.fail(error);
        }
        if (!pending) return;
        r.busy = true;
        source.pause();
        pending.then(
          () => {
            r.busy = false;
            if (r.failure === null && !r.ended) source.resume();
            r.settle();
          },
          (error: unknown) => {
            r.busy = false;
            r.fail(error);
          },
        );
      },
      onEnd(): void {
        r.ended = true;
        r.settle();
      },
      onError(error: Error): void {
        r.fail(bodyCut(error.message));
      },
      onClose(): void {
        if (!r.ended) r.fail(bodyCut());
      },
    };
    source.on('error', r.onError);
    if (source.readableEnded) return r.onEnd();
    // Destroyed before we got to it (the client left while a wrapper awaited something).
    if (source.destroyed) return r.fail(bodyCut());
    source.on('data', r.onData);
    source.on('end', r.onEnd);
    source.on('close', r.onClose);
  });
}

export async function readBodyLimited(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  await readChunks(req, (chunk) => {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  });
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
