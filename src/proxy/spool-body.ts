/**
 * A proxied request body, hashed on the way in: the fingerprint and the Content-Digest need
 * its SHA-256 before anything is forwarded, a 5xx retry needs the body again, and a 50 MB
 * upload must never sit in memory whole. So a body stays in memory only while it is small
 * (most API calls: a few KB of JSON) and spills to a temporary file past `spillBytes`. The
 * limit is enforced while the bytes arrive (413 as soon as it is passed, the rest is not read).
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../http/app-error.ts';
import { tooLarge } from '../http/read-body.ts';

export interface SpooledBody {
  size: number;
  sha256: Buffer;
  /** A fresh stream of the body (once per forward attempt). */
  open(): Readable;
  /** Deletes the file, if the body spilled to one; call when the call is answered. */
  discard(): Promise<void>;
}

const DEFAULT_SPILL_BYTES = 256 * 1024;

export async function spoolBody(source: Readable, maxBytes: number, opts: { spillBytes?: number; dir?: string } = {}): Promise<SpooledBody> {
  // A declared length over the limit is refused before a byte is read.
  const declared = Number((source as { headers?: Record<string, string | undefined> }).headers?.['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const spillBytes = opts.spillBytes ?? DEFAULT_SPILL_BYTES;
  const hash = createHash('sha256');
  let size = 0;
  let memory: Buffer[] | null = [];
  let file: { folder: string; path: string; out: WriteStream } | null = null;

  const spill = async () => {
    const folder = await mkdtemp(join(opts.dir ?? tmpdir(), 'paycall-body-'));
    const path = join(folder, 'body');
    const out = createWriteStream(path);
    for (const chunk of memory ?? []) out.write(chunk);
    memory = null;
    file = { folder, path, out };
  };
  const discardFile = async () => {
    if (file) await rm(file.folder, { recursive: true, force: true });
  };

  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > maxBytes) return done(tooLarge(maxBytes));
      hash.update(chunk);
      if (memory && size <= spillBytes) {
        memory.push(chunk);
        return done();
      }
      const write = () => (file!.out.write(chunk) ? done() : file!.out.once('drain', () => done()));
      if (!file) spill().then(write, done);
      else write();
    },
    final(done) {
      if (!file) return done();
      file.out.end(done);
    },
  });
  try {
    await pipeline(source, sink);
  } catch (e) {
    if (file) (file as { out: WriteStream }).out.destroy();
    await discardFile();
    if (e instanceof AppError) throw e;
    throw new AppError('invalid_input', 400, `the request body could not be read: ${(e as Error).message}`, { cause: e });
  }
  const inMemory = memory ? Buffer.concat(memory) : null;
  const path = (file as { path: string } | null)?.path;
  return {
    size,
    sha256: hash.digest(),
    open: () => (inMemory ? Readable.from([inMemory]) : createReadStream(path!)),
    discard: discardFile,
  };
}
