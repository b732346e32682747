/**
 * The only reader of process.env: loadConfig -> data-directory lock -> (devnet) -> createApp
 * -> listen. SIGTERM/SIGINT drain in-flight requests and close everything (the devnet last)
 * before exiting.
 *
 * Last line of defence (docs/decisions.md, "Hardening"): an error in a request is that
 * request's 500 (src/http/server.ts). What escapes every handler is logged with its stack and
 * counted in paycall_process_errors_total; an unhandled rejection leaves the process up, an
 * uncaught exception drains and closes the database, then exits 1 for the supervisor to restart.
 *
 * On a terminal (and LOG_FORMAT not `json`) the log is printed as short human lines and a
 * banner says where to go once the service listens (src/start/banner.ts); otherwise the log is
 * one JSON object per line, as supervisors and the tests read it. A port that is taken is one
 * line before anything starts (src/start/port-check.ts).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadConfig, ConfigError, type Config } from './config.ts';
import { bufferedSink, createLogger, flushAllLogs, stderrSink } from './log.ts';
import type { App } from './app.ts';
import { devnetChains } from './devnet-profile.ts';
import { acquireDirLock, DirectoryInUseError, type DirLock } from './lib/dir-lock.ts';
import { findTakenPort, takenPortLine } from './start/port-check.ts';

let config: Config;
try {
  config = loadConfig(process.env);
} catch (e) {
  if (e instanceof ConfigError) {
    process.stderr.write(`paycall: configuration error: ${e.message}\n`);
    process.exit(1);
  }
  throw e;
}

const logFormat = process.env.LOG_FORMAT || 'auto';
if (!['auto', 'json', 'human'].includes(logFormat)) {
  process.stderr.write(`paycall: configuration error: LOG_FORMAT must be auto, json or human\n`);
  process.exit(1);
}
const human = logFormat === 'human' || (logFormat === 'auto' && !!process.stderr.isTTY);
const { humanLogLine, banner } = human ? await import('./start/banner.ts') : { humanLogLine: null, banner: null };
// JSON lines are written in batches, one write per turn of the event loop (src/log.ts); a
// terminal's human lines one by one.
const log = createLogger(config.logLevel, { service: config.serviceName }, humanLogLine ? (line) => process.stderr.write(humanLogLine(line)) : bufferedSink(stderrSink));

// Before the data directory, the devnet or the database: a taken port is one line, at once.
const taken = await findTakenPort([
  { host: config.host, port: config.port, variable: 'PORT' },
  { host: config.metrics.host, port: config.metrics.port, variable: 'METRICS_PORT' },
]);
if (taken) {
  flushAllLogs();
  process.stderr.write(`${takenPortLine(taken)}\n`);
  process.exit(1);
}
let app: App | null = null;
let stopDevnet = async () => {};
let stopping = false;

const stop = async (reason: string, exitCode: number) => {
  if (stopping) return;
  stopping = true;
  log.info('shutting down', { reason });
  // A shutdown that hangs (a stuck close) must still end the process.
  setTimeout(() => {
    log.error('shutdown did not finish in time; exiting', { reason });
    process.exit(exitCode || 1);
  }, config.shutdownTimeoutMs + 10_000).unref();
  try {
    await app?.close();
    await stopDevnet();
    log.info('stopped');
    process.exit(exitCode);
  } catch (e) {
    log.error('shutdown failed', { err: e });
    process.exit(1);
  }
};

// Registered before start-up, so a signal during it also stops cleanly. A repeated signal is
// ignored, not a forced exit: Ctrl-C under `npm start` reaches this process twice (from the
// terminal and forwarded by npm). package.json's start script execs node, so npm's signal
// lands here rather than in a shell that would drop it.
process.on('SIGTERM', () => void stop('SIGTERM', 0));
process.on('SIGINT', () => void stop('SIGINT', 0));

process.on('uncaughtException', (err, origin) => {
  // The last resort, never the fix: every stream and listener the service creates handles its
  // own failures (docs/decisions.md, "Streams and signals"), so reaching this is a bug. The
  // line carries `alert` for log-based alerting: the counter below dies with the process.
  log.error('uncaught exception', { err, origin, alert: 'paycall_process_exit' });
  app?.metrics.processErrors.inc({ kind: 'uncaught_exception' });
  // The throw unwound an unknown synchronous stack: state may be half-updated, so no new
  // work is taken. In-flight requests finish and the database closes cleanly.
  void stop('uncaughtException', 1);
});
process.on('unhandledRejection', (reason) => {
  // Unwound only to a promise nobody awaited: that piece of work is lost, nothing else is.
  log.error('unhandled rejection', { err: reason });
  app?.metrics.processErrors.inc({ kind: 'unhandled_rejection' });
});

let dataLock: DirLock | null = null;
try {
  // Two processes on one PGlite cluster corrupt it: take its lock before anything else
  // (devnet included) is started or written. PostgreSQL takes any number of instances.
  if (!config.databaseUrl) {
    const pgliteDir = resolve(config.pgliteDir);
    mkdirSync(dirname(pgliteDir), { recursive: true });
    dataLock = acquireDirLock(`${pgliteDir}.lock`, { role: 'paycall service', dir: config.pgliteDir });
  }
} catch (e) {
  if (!(e instanceof DirectoryInUseError)) throw e;
  flushAllLogs();
  process.stderr.write(`paycall: the data directory ${e.message}\n`);
  process.exit(1);
}
// The devnet's chains start while the app opens its database and loads (createApp waits for
// them where it needs them), but only once the devnet holds its directory: a second devnet on
// it is refused with one line before anything else starts.
let devnetLocked = () => {};
const locked = new Promise<void>((resolve) => (devnetLocked = resolve));
const chains =
  config.profile === 'devnet'
    ? devnetChains(config, log, devnetLocked).then((devnet) => {
        stopDevnet = devnet.stop;
        return devnet.chains;
      })
    : Promise.resolve(config.chains);
try {
  if (config.profile === 'devnet') await Promise.race([locked, chains]);
  // The database opens, then the app's module graph loads (a second or two), while the
  // devnet's chain processes boot.
  const { openDatabase } = await import('./db/orm.ts');
  const database = openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: config.pgliteDir, log });
  const { createApp } = await import('./app.ts');
  app = await createApp(config, log, { chains, database });
  const address = await app.listen();
  const url = `http://${address.address}:${address.port}`;
  log.info('listening', { url, profile: config.profile, database: config.databaseUrl ? 'postgresql' : `pglite:${config.pgliteDir}`, lock: dataLock?.file });
  if (banner) {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    process.stdout.write(banner({ url: config.port === 0 ? url : config.publicBaseUrl, profile: config.profile, database: config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.pgliteDir}`, dataDir: config.dataDir, version }));
  }
} catch (e) {
  if (e instanceof DirectoryInUseError) {
    flushAllLogs();
    process.stderr.write(`paycall: the data directory ${e.message}\n`);
    process.exit(1);
  }
  // A port in use, a database that does not open: one error line, then everything that did
  // start is closed (the database cleanly, the devnet's chains) before exiting.
  log.error('start failed', { err: e });
  await chains.catch(() => undefined);
  await stop('start failed', 1);
}

