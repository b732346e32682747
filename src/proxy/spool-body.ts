/**
 * A proxied request body, hashed on the way in: the fingerprint and the Content-Digest need
 * its SHA-256 before anything is forwarded, a 5xx retry needs the body again, and a 50 MB
 * upload must never sit in memory whole. So a body stays in memory only while it is small
 * (most API calls: a few KB of JSON) and spills to a temporary file past `spillBytes`. The
 * limit is enforced while the bytes arrive (413 as soon as it is passed, the rest is not read).
 *
 * Every way a body can end badly (over the limit, the client gone halfway, a slow drip cut by
 * the server's request timeout, the disk failing) ends here, not in the process: the file is
 * written through a FileHandle, one awaited write at a time (readChunks waits for it before
 * reading on or giving up), so there is no write stream whose 'error' could go unheard, no
 * write still in flight when the file is removed, and the file is closed and removed before
 * spoolBody rejects.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, readdir, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { readChunks, tooLarge } from '../http/read-body.ts';

export interface SpooledBody {
  size: number;
  sha256: Buffer;
  /** A fresh stream of the body (once per forward attempt). */
  open(): Readable;
  /**
   * The whole body when it stayed in memory (under the spill size), else null. A forward sends
   * it as one buffer: undici writes it with the request head in one go, where a stream costs a
   * stream object and a write per chunk (bench/proxy-oop.ts, small JSON calls).
   */
  bytes: Buffer | null;
  /** Deletes the file, if the body spilled to one; call when the call is answered. */
  discard(): Promise<void>;
}

const DEFAULT_SPILL_BYTES = 256 * 1024;
/**
 * Spill directories are named `paycall-body-<pid>-<random>`: an operator (or a test) can tell
 * them apart in TMPDIR, and the pid says whose they are (sweepAbandonedSpools).
 */
export const SPOOL_PREFIX = 'paycall-body-';

/** True while a process with this pid exists (EPERM: it exists, owned by another user). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * A process killed while a body was spilled (kill -9, the OOM killer, a power cut) never ran
 * its discard: its directory stays in TMPDIR with up to 50 MB in it. At start, every spill
 * directory whose process is gone is removed. Instances sharing a TMPDIR leave each other's
 * alone (their pids are alive); a pid reused by a newer process only postpones a removal to the
 * next start. Returns how many directories were removed.
 */
export async function sweepAbandonedSpools(dir: string = tmpdir()): Promise<number> {
  let removed = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const pid = Number(/^paycall-body-(\d+)-/.exec(name)?.[1]);
    if (!pid || pid === process.pid || alive(pid)) continue;
    await rm(join(dir, name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}

/** A write to a regular file may in principle be partial: write until all of it is out. */
async function writeAll(handle: FileHandle, chunk: Buffer): Promise<void> {
  for (let offset = 0; offset < chunk.length; ) offset += (await handle.write(chunk, offset)).bytesWritten;
}

export async function spoolBody(source: Readable, maxBytes: number, opts: { spillBytes?: number; dir?: string } = {}): Promise<SpooledBody> {
  // A declared length over the limit is refused before a byte is read.
  const declared = Number((source as { headers?: Record<string, string | undefined> }).headers?.['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const spillBytes = opts.spillBytes ?? DEFAULT_SPILL_BYTES;
  const hash = createHash('sha256');
  let size = 0;
  let memory: Buffer[] | null = [];
  // Set as soon as each exists, so a failure at any later step still removes it.
  let folder: string | null = null;
  let handle: FileHandle | null = null;
  let path: string | null = null;

  const spillAndWrite = async (chunk: Buffer) => {
    if (!handle) {
      folder = await mkdtemp(join(opts.dir ?? tmpdir(), `${SPOOL_PREFIX}${process.pid}-`));
      path = join(folder, 'body');
      handle = await open(path, 'wx', 0o600);
      for (const kept of memory ?? []) await writeAll(handle, kept);
      memory = null;
    }
    await writeAll(handle, chunk);
  };
  const discard = async () => {
    const [h, f] = [handle, folder];
    handle = null;
    folder = null;
    await h?.close().catch(() => undefined);
    if (f) await rm(f, { recursive: true, force: true });
  };

  try {
    await readChunks(source, (chunk) => {
      size += chunk.length;
      if (size > maxBytes) throw tooLarge(maxBytes);
      hash.update(chunk);
      if (memory && size <= spillBytes) {
        memory.push(chunk);
        return;
      }
      return spillAndWrite(chunk);
    });
    if (handle) {
      const h: FileHandle = handle;
      handle = null;
      await h.close();
    }
  } catch (e) {
    // Over the limit or the client gone (AppError, 413 / 400), or the disk failed (a 500 of ours).
    await discard();
    throw e;
  }
  const inMemory = memory ? Buffer.concat(memory) : null;
  const file = path as string | null;
  return {
    size,
    sha256: hash.digest(),
    bytes: inMemory,
    open: () => {
      if (inMemory) return Readable.from([inMemory]);
      // undici listens to the body once it sends it (and destroys it on its own failures);
      // this one covers an open that fails before that, so it cannot go unheard.
      return createReadStream(file!).on('error', () => undefined);
    },
    discard,
  };
}
