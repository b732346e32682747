/**
 * A small structured logger: one JSON line per event on stderr. Children carry fields
 * such as the request id, so every line of a request names it.
 *
 * Lines are written in order and none is dropped, but the service's own stderr is written in
 * batches (bufferedSink): the lines of one turn of the event loop go out in one write when it
 * ends (or at 64 KB), not one write each; a warning or an error goes out at once, with every
 * line before it, and so does everything still held when the process exits (process.exit,
 * the end of an uncaught exception's shutdown). Only a SIGKILL can lose what one turn of the
 * event loop logged before it (docs/decisions.md, "Batched log writes").
 */
import { writeSync } from 'node:fs';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

/** A line writer; `flush`, when present, is called after a warning or an error (write everything held now). */
export type LogWrite = ((line: string) => void) & { flush?: () => void };

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

const serialize = (value: unknown): unknown => {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  if (typeof value === 'bigint') return value.toString();
  return value;
};
const bigintAsString = (_k: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);
/** JSON of a field value: the replacer (slow) only where a bigint may hide (an object). */
const jsonOf = (value: unknown): string => {
  const v = serialize(value);
  if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return '';
  return typeof v === 'object' && v !== null ? JSON.stringify(v, bigintAsString) : JSON.stringify(v);
};

/**
 * Every request gets a child logger (its request id), so a child is one small object whose
 * methods live on the prototype, not five new closures. The base fields are serialized once
 * per logger: a line is the time, level and message, the base's JSON and the call's fields.
 */
class JsonLogger implements Logger {
  /** `,"k":v` for each base field, in order (empty for none). */
  private readonly baseJson: string;

  constructor(
    private readonly min: number,
    private readonly base: LogFields,
    private readonly write: LogWrite,
  ) {
    let json = '';
    for (const k in base) {
      const v = jsonOf(base[k]);
      if (v) json += `,${JSON.stringify(k)}:${v}`;
    }
    this.baseJson = json;
  }

  private emit(lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: LogFields): void {
    if (ORDER[lvl] < this.min) return;
    let line: string;
    if (fields && needsMerge(this.base, fields)) {
      // A field that repeats a base field (or time, level, msg) replaces it in place, as an object spread would.
      const record: LogFields = { time: new Date().toISOString(), level: lvl, msg, ...this.base };
      for (const k in fields) record[k] = serialize(fields[k]);
      line = JSON.stringify(record, bigintAsString);
    } else {
      line = `{"time":"${new Date().toISOString()}","level":"${lvl}","msg":${JSON.stringify(msg)}${this.baseJson}`;
      if (fields) {
        for (const k in fields) {
          const v = jsonOf(fields[k]);
          if (v) line += `,${JSON.stringify(k)}:${v}`;
        }
      }
      line += '}';
    }
    this.write(line + '\n');
    if (lvl === 'warn' || lvl === 'error') this.write.flush?.();
  }

  debug(msg: string, fields?: LogFields) {
    this.emit('debug', msg, fields);
  }
  info(msg: string, fields?: LogFields) {
    this.emit('info', msg, fields);
  }
  warn(msg: string, fields?: LogFields) {
    this.emit('warn', msg, fields);
  }
  error(msg: string, fields?: LogFields) {
    this.emit('error', msg, fields);
  }
  child(fields: LogFields): Logger {
    return new JsonLogger(this.min, { ...this.base, ...fields }, this.write);
  }
}

function needsMerge(base: LogFields, fields: LogFields): boolean {
  for (const k in fields) if (k in base || k === 'time' || k === 'level' || k === 'msg') return true;
  return false;
}

/** Held lines are written at the latest when this many characters wait. */
const BATCH_CHARS = 64 * 1024;
const flushers = new Set<() => void>();
let exitHookInstalled = false;

/**
 * A writer that holds lines and writes them in one call at the end of the current turn of the
 * event loop (setImmediate), at BATCH_CHARS, on flush(), and when the process exits. The
 * order of lines is kept: everything goes through the one buffer.
 */
export function bufferedSink(out: (chunk: string) => void): LogWrite & { flush: () => void } {
  let held = '';
  let scheduled = false;
  const flush = () => {
    if (!held) return;
    const chunk = held;
    held = '';
    out(chunk);
  };
  const onTurnEnd = () => {
    scheduled = false;
    flush();
  };
  const write = (line: string) => {
    held += line;
    if (held.length >= BATCH_CHARS) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(onTurnEnd);
    }
  };
  flushers.add(flush);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // 'exit' handlers run synchronously on process.exit() and at the natural end; with
    // fdWriter (stderrSink) what is written here, and what it still held, is not lost.
    process.on('exit', flushAllLogs);
  }
  return Object.assign(write, { flush });
}

/** For waiting out a full pipe without a timer (the event loop may be gone: an 'exit' handler). */
const pause = new Int32Array(new SharedArrayBuffer(4));
/** Writers holding bytes a full pipe did not take yet; flushAllLogs drains them at exit. */
const drainers = new Set<() => void>();
/** What a writer may hold for a slow reader before it waits for it instead (memory bound). */
const MAX_PENDING_BYTES = 16 * 1024 * 1024;

/**
 * Writes the whole buffer to a file descriptor before returning, whatever the reader does: a
 * full pipe (EAGAIN: libuv makes the descriptor non-blocking) is waited out 1 ms at a time, a
 * partial write goes on from where it stopped.
 */
function writeAllSync(fd: number, buf: Buffer): boolean {
  while (buf.length > 0) {
    try {
      buf = buf.subarray(writeSync(fd, buf));
    } catch (e) {
      // Any other error (EPIPE: the reader went away; EBADF) means there is nowhere to write:
      // the caller drops the lines. Logging never throws into the code that logs.
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') return false;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
  return true;
}

/**
 * A log destination on a file descriptor that never loses what it was given. Not
 * process.stderr.write: when the reader of a pipe is slow (a log collector under load) and the
 * pipe is full, the stream keeps the rest in memory and process.exit() drops it, so the lines
 * around a crash (the ones that matter) were lost, a batch being easily larger than a pipe's
 * 64 KB. Here what the pipe does not take is kept in order and retried every millisecond while
 * the process runs (the service is not slowed by a slow reader), written synchronously by
 * flushAllLogs when the process exits, and past MAX_PENDING_BYTES waited for at once.
 */
export function fdWriter(fd: number): (chunk: string) => void {
  const pending: Buffer[] = [];
  let pendingBytes = 0;
  let retry: NodeJS.Timeout | null = null;
  /** Set when the descriptor cannot be written any more (the reader went away): lines are dropped. */
  let gone = false;
  const giveUp = () => {
    gone = true;
    pending.length = 0;
    pendingBytes = 0;
  };
  /** Writes what the pipe takes now; true when nothing is left. */
  const writeNow = (): boolean => {
    while (pending.length) {
      let n: number;
      try {
        n = writeSync(fd, pending[0]);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') return false;
        giveUp(); // see writeAllSync: nowhere to write, and logging never throws
        return true;
      }
      pendingBytes -= n;
      if (n < pending[0].length) pending[0] = pending[0].subarray(n);
      else pending.shift();
    }
    return true;
  };
  const later = () => {
    retry = null;
    if (!writeNow()) (retry = setTimeout(later, 1)).unref();
  };
  const drain = () => {
    if (retry) clearTimeout(retry);
    retry = null;
    for (const b of pending.splice(0)) if (!writeAllSync(fd, b)) return giveUp();
    pendingBytes = 0;
  };
  drainers.add(drain);
  return (chunk) => {
    if (gone) return;
    const buf = Buffer.from(chunk);
    pending.push(buf);
    pendingBytes += buf.length;
    if (retry) {
      if (pendingBytes > MAX_PENDING_BYTES) drain();
      return;
    }
    if (!writeNow()) (retry = setTimeout(later, 1)).unref();
  };
}

/** The service's log destination: stderr, through fdWriter. */
export const stderrSink = fdWriter(2);

/** Writes every buffered sink's held lines now (before a write to stderr that bypasses the logger). */
export function flushAllLogs(): void {
  for (const f of flushers) f();
  // Then what a full pipe did not take yet, synchronously (this runs at exit).
  for (const d of drainers) d();
}

export function createLogger(level: LogLevel, base: LogFields = {}, write: LogWrite = (l) => process.stderr.write(l)): Logger {
  return new JsonLogger(ORDER[level], base, write);
}

/** For tests and tools that want no output. */
export const silentLogger: Logger = createLogger('silent');
