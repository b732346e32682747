/**
 * Hostile uploads and hang-ups against the real service process (issue 20, item 1): a raw
 * HTTP/1.1 client that sends a body in chunks of its choosing (chunked or with a length),
 * pauses, and disconnects when told; and the spool directory the process writes its
 * temporary files to (its TMPDIR), watched for leftovers.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { readdirSync } from 'node:fs';

export interface UploadPlan {
  url: string;
  headers?: Record<string, string>;
  /** Sent before the body (multipart envelope start). */
  prefix?: Buffer;
  /** Byte counts of the body's chunks, sent in order. */
  chunks: number[];
  /** Pause after each chunk, ms (the same length as chunks, or omitted). */
  delays?: number[];
  /** Sent after the last chunk, unless the client aborts first. */
  suffix?: Buffer;
  /** Declared Content-Length; omitted: chunked transfer encoding. */
  contentLength?: number;
  /** Disconnect after this many chunks (the rest is never sent). */
  abortAfter?: number;
  /** Runs before the abort (after abortAfter chunks), e.g. waits for the spool file. */
  beforeAbort?: () => Promise<void>;
}

export interface UploadResult {
  /** The answer's status, or null when the connection ended without one. */
  status: number | null;
  body: string;
  /** Chunks the client got to write before it stopped (answer, reset or abort). */
  sent: number;
}

const FILL = Buffer.alloc(1024 * 1024, 0x61);
const piece = (n: number) => (n <= FILL.length ? FILL.subarray(0, n) : Buffer.alloc(n, 0x61));

/**
 * Sends the plan and resolves with whatever came back. Never rejects: a reset, an abort
 * or an early answer are all outcomes of a hostile upload.
 */
export function hostileUpload(plan: UploadPlan): Promise<UploadResult> {
  return new Promise((resolve) => {
    const u = new URL(plan.url);
    const headers: Record<string, string> = { 'content-type': 'application/octet-stream', ...(plan.headers ?? {}) };
    if (plan.contentLength !== undefined) headers['content-length'] = String(plan.contentLength);
    let sent = 0;
    let status: number | null = null;
    let body = '';
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      resolve({ status, body, sent });
    };
    const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: 'POST', headers, agent: false }, (res: IncomingMessage) => {
      status = res.statusCode ?? null;
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', finish);
      res.on('error', finish);
      res.on('close', finish);
    });
    req.on('error', () => setImmediate(finish));
    req.on('close', () => setImmediate(() => (status === null ? finish() : undefined)));
    // The request line and headers go out at once: a client that aborts before its first
    // chunk has still started a request the service must deal with.
    req.flushHeaders();
    const write = (buf: Buffer) => new Promise<boolean>((ok) => (req.destroyed ? ok(false) : req.write(buf, (err) => ok(!err))));
    void (async () => {
      if (plan.prefix && !(await write(plan.prefix))) return;
      for (const [i, size] of plan.chunks.entries()) {
        if (status !== null || req.destroyed) return;
        if (plan.abortAfter !== undefined && i === plan.abortAfter) {
          await plan.beforeAbort?.();
          req.destroy();
          return;
        }
        if (!(await write(piece(size)))) return;
        sent++;
        const delay = plan.delays?.[i] ?? 0;
        if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      }
      if (plan.abortAfter !== undefined && plan.abortAfter >= plan.chunks.length) {
        await plan.beforeAbort?.();
        req.destroy();
        return;
      }
      if (plan.suffix && !(await write(plan.suffix))) return;
      if (!req.destroyed) req.end();
    })();
  });
}

/** The service's temporary files: what is in its TMPDIR besides tsx's compile cache. */
export const leftovers = (dir: string): string[] => readdirSync(dir).filter((name) => !name.startsWith('tsx-'));

/** Resolves once `probe` holds (the test runner's timeout bounds the wait; no timing assertion). */
export async function until(probe: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await probe())) await new Promise((r) => setTimeout(r, 10));
}
