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

export function createLogger(level: LogLevel, base: LogFields = {}, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const min = ORDER[level];
  const emit = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: LogFields) => {
    if (ORDER[lvl] < min) return;
    const record: LogFields = { time: new Date().toISOString(), level: lvl, msg, ...base };
    if (fields) for (const [k, v] of Object.entries(fields)) record[k] = serialize(v);
    write(JSON.stringify(record, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) + '\n');
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
  };
}

/** For tests and tools that want no output. */
export const silentLogger: Logger = createLogger('silent');
