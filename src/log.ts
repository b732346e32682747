/**
 * A small structured logger: one JSON line per event on stderr. Children carry fields
 * such as the request id, so every line of a request names it.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

const serialize = (value: unknown): unknown => {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  if (typeof value === 'bigint') return value.toString();
  return value;
};

/**
 * Every request gets a child logger (its request id), so a child is one small object whose
 * methods live on the prototype, not five new closures.
 */
class JsonLogger implements Logger {
  constructor(
    private readonly min: number,
    private readonly base: LogFields,
    private readonly write: (line: string) => void,
  ) {}

  private emit(lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: LogFields): void {
    if (ORDER[lvl] < this.min) return;
    const record: LogFields = { time: new Date().toISOString(), level: lvl, msg, ...this.base };
    if (fields) for (const [k, v] of Object.entries(fields)) record[k] = serialize(v);
    this.write(JSON.stringify(record, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) + '\n');
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

export function createLogger(level: LogLevel, base: LogFields = {}, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  return new JsonLogger(ORDER[level], base, write);
}

/** For tests and tools that want no output. */
export const silentLogger: Logger = createLogger('silent');
