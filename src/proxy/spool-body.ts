/**
 * A proxied request body, hashed once: the fingerprint and the Content-Digest need its
 * SHA-256 before anything is forwarded, a 5xx retry needs the body again, and a 50 MB upload
 * must never sit in memory whole. So a body stays in memory only while it is small (most API
 * calls: a few KB of JSON; hashed in one call when it ends) and spills to a temporary file past
 * `spillBytes` (hashed on the way to the file). The limit is enforced while the bytes arrive
 * (413 as soon as it is passed, the rest is not read).
 *
 * Every way a body can end badly (over the limit, the client gone halfway, a slow drip cut by
 * the server's request timeout, the disk failing) ends here, not in the process: the file is
 * written through a FileHandle, one awaited write at a time (readChunks waits for it before
 * reading on or giving up), so there is no write stream whose 'error' could go unheard, no
 * write still in flight when the file is removed, and the file is closed and removed before
 * spoolBody rejects.
 */
import { createHash, hash, type Hash } from 'node:crypto';
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

/*
 * The spool's state and the two kinds of body are classes, not closures made per call: the
 * service runs under tsx (npm start), whose esbuild transform (keepNames) names every local
 * `const f = () => ...` with an Object.defineProperty call each time it is created (three per
 * spooled body and one per signature showed as 3 % of a forward's CPU in bench/proxy.ts; the
 * same reason as readChunks in http/read-body.ts).
 */

/** A body that stayed under the spill size: its bytes, hashed once when it ended. */
class MemoryBody implements SpooledBody {
  readonly size: number;
  readonly sha256: Buffer;
  constructor(readonly bytes: Buffer) {
    this.size = bytes.length;
    // One call over the whole body: the same digest as a Hash fed chunk by chunk, without the object.
    this.sha256 = hash('sha256', bytes, 'buffer');
  }
  open(): Readable {
    return Readable.from([this.bytes]);
  }
  discard(): Promise<void> {
    return Promise.resolve();
  }
}

/** A body that spilled: the file, streamed afresh for each forward attempt. */
class FileBody implements SpooledBody {
  readonly bytes = null;
  constructor(
    readonly size: number,
    readonly sha256: Buffer,
    private readonly path: string,
    private folder: string | null,
  ) {}
  open(): Readable {
    // undici listens to the body once it sends it (and destroys it on its own failures);
    // this one covers an open that fails before that, so it cannot go unheard.
    return createReadStream(this.path).on('error', () => undefined);
  }
  async discard(): Promise<void> {
    const folder = this.folder;
    this.folder = null;
    if (folder) await rm(folder, { recursive: true, force: true });
  }
}

/** What arrived so far: chunks in memory, or (past the spill size) a file and a running hash. */
class Spool {
  size = 0;
  memory: Buffer[] | null = [];
  hash: Hash | null = null;
  // Set as soon as each exists, so a failure at any later step still removes it.
  folder: string | null = null;
  path: string | null = null;
  handle: FileHandle | null = null;

  constructor(
    readonly maxBytes: number,
    readonly spillBytes: number,
    readonly dir: string | undefined,
  ) {}

  /** One chunk: counted against the limit, kept in memory while the body is small, else written. */
  take(chunk: Buffer): void | Promise<void> {
    this.size += chunk.length;
    if (this.size > this.maxBytes) throw tooLarge(this.maxBytes);
    if (this.memory && this.size <= this.spillBytes) {
      this.memory.push(chunk);
      return;
    }
    return this.write(chunk);
  }

  async write(chunk: Buffer): Promise<void> {
    if (!this.handle) {
      // tmpdir() only here: it reads the environment on every call (it showed in the profile when called per body).
      this.folder = await mkdtemp(join(this.dir ?? tmpdir(), `${SPOOL_PREFIX}${process.pid}-`));
      this.path = join(this.folder, 'body');
      this.handle = await open(this.path, 'wx', 0o600);
      // The hash starts here, over what was kept in memory: every byte is hashed once.
      this.hash = createHash('sha256');
      for (const kept of this.memory ?? []) {
        this.hash.update(kept);
        await writeAll(this.handle, kept);
      }
      this.memory = null;
    }
    this.hash!.update(chunk);
    await writeAll(this.handle, chunk);
  }

  async finish(): Promise<SpooledBody> {
    if (this.memory) return new MemoryBody(this.memory.length === 1 ? this.memory[0] : Buffer.concat(this.memory, this.size));
    const handle = this.handle!;
    this.handle = null;
    await handle.close();
    return new FileBody(this.size, this.hash!.digest(), this.path!, this.folder);
  }

  async discard(): Promise<void> {
    const [handle, folder] = [this.handle, this.folder];
    this.handle = null;
    this.folder = null;
    await handle?.close().catch(() => undefined);
    if (folder) await rm(folder, { recursive: true, force: true });
  }
}

export async function spoolBody(source: Readable, maxBytes: number, opts: { spillBytes?: number; dir?: string } = {}): Promise<SpooledBody> {
  // A declared length over the limit is refused before a byte is read.
  const declared = Number((source as { headers?: Record<string, string | undefined> }).headers?.['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const spool = new Spool(maxBytes, opts.spillBytes ?? DEFAULT_SPILL_BYTES, opts.dir);
  try {
    await readChunks(source, (chunk) => spool.take(chunk));
    return await spool.finish();
  } catch (e) {
    // Over the limit or the client gone (AppError, 413 / 400), or the disk failed (a 500 of ours).
    await spool.discard();
    throw e;
  }
}
