/**
 * One data directory, one process: a lock file beside what it protects, holding the owner's
 * pid. Two PGlite instances on one cluster corrupt it (each replays the other's WAL as a
 * crash), and a second devnet would rewrite devnet.json under a running service. A lock left
 * behind by a killed process is stale when its pid is gone, or now belongs to a process that
 * started later than the one that wrote it (pid reuse; Linux /proc start time), and is taken
 * over. The file is created with O_EXCL, so two starters never both win a free lock.
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

export interface LockOwner {
  pid: number;
  /** What holds it: "paycall service", "paycall devnet". */
  role: string;
  /** The directory the lock protects, as the holder named it. */
  dir: string;
  startedAt: string;
  /** Kernel start time of the process (clock ticks since boot, /proc/<pid>/stat field 22), when known. */
  procStart: string | null;
  token: string;
}

export class DirectoryInUseError extends Error {
  constructor(
    readonly dir: string,
    readonly owner: LockOwner,
  ) {
    super(`${dir} is in use by process ${owner.pid} (${owner.role}, started ${owner.startedAt}); stop that process first, or use another directory`);
    this.name = 'DirectoryInUseError';
  }
}

export interface DirLock {
  file: string;
  /** Removes the lock file if it is still ours. Idempotent; also runs on process exit. */
  release(): void;
}

function procStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function isAlive(owner: LockOwner): boolean {
  if (!Number.isInteger(owner.pid) || owner.pid <= 0) return false;
  try {
    process.kill(owner.pid, 0);
  } catch (e) {
    // EPERM: it exists but belongs to someone else, which still makes the directory busy.
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const now = procStartTime(owner.pid);
  return !(owner.procStart && now && now !== owner.procStart);
}

function readOwner(file: string): LockOwner | null {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as LockOwner;
    return typeof parsed.pid === 'number' ? parsed : null;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw e;
    // Empty or half-written: the writer died between create and write.
    return null;
  }
}

/** Takes the lock or throws DirectoryInUseError naming the holder. */
export function acquireDirLock(file: string, who: { role: string; dir: string }): DirLock {
  const me: LockOwner = {
    pid: process.pid,
    role: who.role,
    dir: who.dir,
    startedAt: new Date().toISOString(),
    procStart: procStartTime(process.pid),
    token: randomBytes(8).toString('hex'),
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o644);
      try {
        writeSync(fd, JSON.stringify(me) + '\n');
      } finally {
        closeSync(fd);
      }
      return ownLock(file, me);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    let owner: LockOwner | null;
    try {
      owner = readOwner(file);
    } catch {
      continue; // removed between our create and read: try again
    }
    if (owner && isAlive(owner)) throw new DirectoryInUseError(who.dir, owner);
    // Stale. Move it aside under a unique name, then make sure what we moved is what we
    // judged stale: a racing starter may have replaced it with a live lock in between.
    const aside = `${file}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      renameSync(file, aside);
    } catch {
      continue;
    }
    const moved = (() => {
      try {
        return readOwner(aside);
      } catch {
        return null;
      }
    })();
    if (moved && owner && moved.token !== owner.token && isAlive(moved)) {
      // We took a live lock away: put it back (link fails if yet another one is there) and give up.
      try {
        linkSync(aside, file);
      } catch {
        // another starter holds it now; either way the directory is busy
      }
      unlinkSync(aside);
      throw new DirectoryInUseError(who.dir, moved);
    }
    unlinkSync(aside);
  }
  throw new Error(`could not take the lock ${file}: it keeps changing (another process is starting on this directory)`);
}

function ownLock(file: string, me: LockOwner): DirLock {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    try {
      if (readOwner(file)?.token === me.token) unlinkSync(file);
    } catch {
      // already gone
    }
  };
  process.on('exit', release);
  return { file, release };
}
