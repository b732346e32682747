/**
 * node:http server: request id -> route (contract) -> body (JSON buffered under a streaming
 * limit, anything else left as a stream for the handler) -> validation -> handler -> answer.
 * Graceful shutdown: stop accepting, let in-flight requests finish, then the caller closes
 * the database and pools.
 */
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable, type Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Contract } from './contract.ts';
import type { OperationId } from '../generated/operation-ids.ts';
import { AppError, type ErrorIssue } from './app-error.ts';
import { toErrorAnswer, type ErrorAnswer } from './errors.ts';
import { decodeStrict } from './contract.ts';
import { parseJsonBody, readBodyLimited } from './read-body.ts';
import type { Logger } from '../log.ts';
import { listen } from '../lib/listen.ts';
import { createLru } from '../lib/lru.ts';

export interface RequestContext {
  requestId: string;
  operationId: string;
  req: IncomingMessage;
  /** Shared between requests with the same target (server.ts caches them): read it, never modify it. */
  url: URL;
  params: Record<string, string>;
  query: Record<string, string>;
  /** Parsed JSON for JSON operations; undefined for streamed ones (the handler reads req). */
  body: unknown;
  clientIp: string;
  log: Logger;
  /** The Bearer API key the request was authorised with, once a key wrapper (src/accounts/) has checked it. */
  apiKey?: { id: number; wallet: string; scopes: readonly string[] };
}

export interface HandlerResult {
  status: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a Buffer or string as is (set content-type in headers); a Readable is streamed. */
  body?: unknown;
  /**
   * A payment proof in the request was refused although the status does not say so (an MCP
   * tool result inside a 200): the rate limit counts it like an unpaid call. Never sent.
   */
  refusedProof?: boolean;
}

export type Handler = (ctx: RequestContext) => Promise<HandlerResult>;

/** Maps a validation issue to a more specific spec error code, or undefined for invalid_input. */
export type IssueClassifier = (operationId: string, issues: ErrorIssue[]) => AppError | undefined;

export interface HttpServerDeps {
  contract: Contract;
  handlers: Partial<Record<OperationId, Handler>>;
  log: Logger;
  /** JSON body limit per operation (bytes); the default applies to the rest. */
  jsonBodyLimits: Partial<Record<OperationId, number>>;
  defaultJsonBodyLimit: number;
  classifyIssues?: IssueClassifier;
  /** Checks per operation that refuse a request on its headers alone, before its body is read or validated. */
  preflight?: Partial<Record<OperationId, (req: IncomingMessage) => void>>;
  onResponse?: (info: { operationId: string; status: number; durationMs: number }) => void;
}

export interface HttpServer {
  server: Server;
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Stops accepting, waits for in-flight requests (bounded by timeoutMs), then resolves. */
  shutdown(timeoutMs: number): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** How much of a refused request body is read and discarded before the connection is cut. */
const DRAIN_AFTER_ERROR_BYTES = 1024 * 1024;

export function createHttpServer(deps: HttpServerDeps): HttpServer {
  const { contract, handlers, log } = deps;
  const missing = contract.operationIds.filter((id) => !handlers[id]);
  if (missing.length) throw new Error(`operations without a handler: ${missing.join(', ')}`);

  let inFlight = 0;
  let draining: (() => void) | null = null;
  // Parsed request targets by their text: most requests repeat a few paths, and WHATWG URL
  // parsing is a measurable share of an unpaid 402 (bench/quote-oop.ts). Shared objects:
  // nothing may modify ctx.url (the handlers only read pathname, search and origin).
  const targets = createLru<string, URL>(1024);

  const send = (res: ServerResponse, requestId: string, result: HandlerResult, headOnly: boolean) => {
    const headers: Record<string, string> = { 'x-request-id': requestId, ...(result.headers ?? {}) };
    if (result.body instanceof Readable) {
      // A streamed answer (a proxied upstream): no length known; a failure midway cuts the
      // connection, which is how HTTP tells a client the body is incomplete.
      if (draining) headers.connection = 'close';
      try {
        res.writeHead(result.status, headers);
      } catch (err) {
        // A header Node refuses: the error answer goes out instead, and the stream that will
        // never be read is let go (it would hold its upstream until the body timeout).
        result.body.destroy();
        throw err;
      }
      if (headOnly) {
        result.body.destroy();
        res.end();
      } else streamAnswer(result.body, res, (err) => log.warn('streamed answer cut short', { err, request_id: requestId }));
      return;
    }
    let payload: Buffer | string | undefined;
    if (result.body === undefined || result.body === null) payload = undefined;
    else if (Buffer.isBuffer(result.body) || typeof result.body === 'string') payload = result.body;
    else {
      payload = JSON.stringify(result.body, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
      headers['content-type'] ??= 'application/json; charset=utf-8';
    }
    if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
    if (draining) headers.connection = 'close';
    res.writeHead(result.status, headers);
    res.end(headOnly ? undefined : payload);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const incomingId = req.headers['x-request-id'];
    const requestId = typeof incomingId === 'string' && REQUEST_ID.test(incomingId) ? incomingId : randomUUID();
    const reqLog = log.child({ request_id: requestId });
    let url: URL | undefined;
    let operationId = 'unknown';
    let status = 500;
    try {
      const target = req.url ?? '/';
      url = targets.get(target);
      if (!url) targets.set(target, (url = parseTarget(target)));
      if (req.httpVersion === '1.1' && req.headers.host === undefined) throw new AppError('bad_request', 400, 'An HTTP/1.1 request needs a Host header.');
      const match = contract.match(req.method ?? 'GET', url.pathname);
      if (match === undefined) throw new AppError('endpoint_not_found', 404, `No endpoint at ${url.pathname}.`, { hint: 'GET /v1/_meta lists the catalog.' });
      if (match === 'method_not_allowed') throw new AppError('method_not_allowed', 405, `${req.method} is not allowed on ${url.pathname}.`);
      const op = match.operationId;
      operationId = op;
      deps.preflight?.[op]?.(req);
      // Malformed text is refused before validation, handlers or the database see it.
      const { query, issues: queryIssues } = parseQuery(url.search);
      const encodingIssues = [...match.issues, ...queryIssues];
      if (encodingIssues.length) throw invalid(operationId, encodingIssues);
      const json = contract.takesJson(match.operation);
      const body = json ? await readJson(req, op) : undefined;
      // Streamed bodies (uploads, proxied calls) are the handler's to read and check.
      const issues = contract
        .validate(match.operation, { method: req.method ?? 'GET', path: url.pathname, headers: req.headers, query, body })
        .filter((i) => json || !i.path.startsWith('body'));
      if (issues.length) throw invalid(operationId, issues);
      // Present: the server refused to start with an operation lacking its handler.
      const result = await handlers[op]!({
        requestId,
        operationId,
        req,
        url,
        params: match.params,
        query,
        body,
        clientIp: req.socket.remoteAddress ?? '',
        log: reqLog,
      });
      status = result.status;
      send(res, requestId, result, req.method === 'HEAD');
    } catch (err) {
      const answer = toErrorAnswer(err, requestId);
      status = answer.status;
      // An unexpected error's stack goes to the log (never to the client), so a 500 can be
      // traced by its request id. A 5xx AppError (501, 503, an upstream's 502/504) is an
      // answer we meant to give: a warning without a stack.
      if (!(err instanceof AppError)) reqLog.error('request failed', { err, operation: operationId });
      else if (status >= 500) reqLog.warn('request refused by the service', { operation: operationId, status, code: err.code, reason: err.message });
      answerError(req, res, requestId, answer);
    } finally {
      const durationMs = performance.now() - started;
      reqLog.info('request', { method: req.method, path: url?.pathname ?? req.url, operation: operationId, status, duration_ms: Math.round(durationMs * 10) / 10 });
      deps.onResponse?.({ operationId, status, durationMs });
    }
  };

  const invalid = (operationId: string, issues: ErrorIssue[]) =>
    deps.classifyIssues?.(operationId, issues) ?? new AppError('invalid_input', 400, describeIssues(issues), { issues });

  /** Sends an error answer; if even that fails (headers already out, a bad header value), the connection is cut. */
  const answerError = (req: IncomingMessage, res: ServerResponse, requestId: string, answer: ErrorAnswer) => {
    try {
      if (!res.headersSent) send(res, requestId, answer, req.method === 'HEAD');
      else res.destroy();
    } catch (e) {
      log.error('could not send the error answer', { err: e, request_id: requestId });
      res.destroy();
    }
    if (req.complete) return;
    // A body we refused may still be arriving. Over the limit (413, which already said
    // `connection: close`): stop reading and close. Otherwise drain a bounded rest, so a
    // small body sent with the request does not turn into a connection reset before the
    // client has read our answer, and close the connection if the rest is large.
    if (answer.status === 413) {
      res.once('finish', () => req.destroy());
      return;
    }
    res.once('finish', () => {
      let drained = 0;
      req.on('data', (chunk: Buffer) => {
        drained += chunk.length;
        if (drained > DRAIN_AFTER_ERROR_BYTES) req.destroy();
      });
      req.resume();
    });
  };

  const readJson = async (req: IncomingMessage, operationId: OperationId) => {
    const limit = deps.jsonBodyLimits[operationId] ?? deps.defaultJsonBodyLimit;
    const raw = await readBodyLimited(req, limit);
    return parseJsonBody(raw);
  };

  // requireHostHeader: false, or Node answers a Host-less HTTP/1.1 request with an empty 400
  // of its own; handle() refuses it with our error body instead.
  const server = createServer({ keepAliveTimeout: 5_000, requestTimeout: 300_000, requireHostHeader: false }, (req, res) => {
    inFlight++;
    res.once('close', () => {
      inFlight--;
      if (draining && inFlight === 0) draining();
    });
    // handle() catches everything it can; this is the net under the net (a throw from the
    // logger or a metrics hook), so one request can never become an unhandled rejection.
    handle(req, res).catch((err: unknown) => {
      log.error('request handling failed outside the error mapper', { err });
      res.destroy();
    });
  });

  const refused = new WeakSet<Duplex>();
  // Node's own parser refuses some requests before any handler runs (a bad request line, raw
  // non-ASCII bytes in the path, headers over 16 KB, a request that never finishes): answer
  // those with our JSON error body too, instead of Node's empty one.
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => {
    // The parser may report the same connection again as more bytes arrive: answer once.
    if (refused.has(socket)) return;
    refused.add(socket);
    // A request already being handled (its body cut short, say) gets its answer, and its
    // count, from handle(); the parser's report about the same bytes only closes the socket.
    const inProgress = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inProgress) {
      socket.destroy();
      return;
    }
    const incomingId = /\r\nx-request-id:[ \t]*([A-Za-z0-9._-]{1,64})[ \t]*\r\n/i.exec(err.rawPacket?.toString('latin1') ?? '')?.[1];
    const requestId = incomingId ?? randomUUID();
    const { status, error, message } = parserRefusal(err);
    log.info('request refused by the HTTP parser', { request_id: requestId, status, code: err.code, reason: err.message });
    deps.onResponse?.({ operationId: 'unknown', status, durationMs: 0 });
    socket.end(rawErrorResponse(status, { error, message, request_id: requestId }));
    // The client may still be sending (the rest of a 20 KB header). Closing with unread bytes
    // makes the kernel send a reset, which can destroy our answer before the client reads
    // it: read and discard a bounded rest, then close.
    let drained = 0;
    socket.on('data', (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > DRAIN_AFTER_ERROR_BYTES) socket.destroy();
    });
    socket.resume();
    setTimeout(() => socket.destroy(), 5_000).unref();
  });
  // Expect: anything but 100-continue; Node would answer an empty 417.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const requestId = randomUUID();
    answerError(req, res, requestId, toErrorAnswer(new AppError('expectation_failed', 417, `Expect: ${req.headers.expect} is not supported; only 100-continue is.`), requestId));
  });
  // CONNECT is not a proxy we offer; without a listener Node would drop the connection silently.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => undefined);
    socket.end(rawErrorResponse(405, { error: 'method_not_allowed', message: 'CONNECT is not supported.', request_id: randomUUID() }));
  });

  return {
    server,
    listen: (port, host) => listen(server, port, host),
    shutdown: (timeoutMs) =>
      new Promise<void>((resolve) => {
        const finished = new Promise<void>((done) => {
          draining = done;
          if (inFlight === 0) done();
        });
        server.close();
        server.closeIdleConnections();
        const timer = setTimeout(() => {
          log.warn('shutdown timeout: closing remaining connections', { in_flight: inFlight });
          server.closeAllConnections();
          resolve();
        }, timeoutMs);
        timer.unref();
        void finished.then(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

/**
 * Streams an answer body to the client, as stream.pipeline would, without its per-call
 * AbortController: pipeline aborts that controller when it finishes, and the AbortError it
 * builds captures a stack trace on every streamed answer (about 5 % of a proxied call's CPU,
 * bench/proxy-oop.ts). Same outcomes: a body that fails cuts the connection (how HTTP tells a
 * client the body is incomplete); a client that goes away before the end destroys the body
 * (its producer, the upstream's answer or its tee, hears 'close'); each is reported once.
 */
export function streamAnswer(body: Readable, res: ServerResponse, cutShort: (err: unknown) => void): void {
  let reported = false;
  const report = (err: unknown) => {
    if (reported) return;
    reported = true;
    cutShort(err);
  };
  // A body that failed before it got here (an upstream reset while the handler awaited its
  // ledger mark) will emit nothing more: cut the connection now.
  if (body.errored || (body.destroyed && !body.readableEnded)) {
    report(body.errored ?? new Error('the answer body was destroyed before it was sent'));
    res.destroy();
    return;
  }
  body.once('error', (err) => {
    report(err);
    res.destroy(err);
  });
  // A write after the connection failed: the 'close' below already tells the story.
  res.on('error', () => undefined);
  res.once('close', () => {
    if (res.writableFinished) return;
    if (!body.destroyed) body.destroy();
    report(Object.assign(new Error('the client closed the connection before the answer ended'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
  });
  body.pipe(res);
}

/**
 * The request target as a URL on a fixed origin. Origin-form (`/path?query`) is appended to
 * the origin, so `//x` stays a path; absolute-form (`http://host/path`) keeps only its path
 * and query. Anything else (`*`, authority-form) names no operation.
 */
function parseTarget(target: string): URL {
  try {
    if (target.startsWith('/')) return new URL(`http://localhost${target}`);
    if (/^https?:\/\//i.test(target)) {
      const absolute = new URL(target);
      return new URL(`http://localhost${absolute.pathname}${absolute.search}`);
    }
  } catch {
    // falls through to the refusal below
  }
  throw new AppError('bad_request', 400, 'The request target is not a path (or an http URL) this service can parse.', { hint: 'Send a request line like "GET /v1/_meta HTTP/1.1".' });
}

/**
 * The query string decoded the strict way (URLSearchParams silently turns a bad escape into
 * U+FFFD); a value that does not decode, or holds a NUL, is named as `query.<name>`.
 */
function parseQuery(search: string): { query: Record<string, string>; issues: ErrorIssue[] } {
  const query: Record<string, string> = {};
  const issues: ErrorIssue[] = [];
  if (search.length <= 1) return { query, issues };
  for (const pair of search.slice(1).split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const rawName = (eq < 0 ? pair : pair.slice(0, eq)).replaceAll('+', ' ');
    const rawValue = (eq < 0 ? '' : pair.slice(eq + 1)).replaceAll('+', ' ');
    const name = decodeStrict(rawName);
    if (typeof name !== 'string') {
      issues.push({ path: `query.${rawName}`, message: `has a name that ${name.problem}`, keyword: 'encoding' });
      continue;
    }
    const value = decodeStrict(rawValue);
    if (typeof value !== 'string') issues.push({ path: `query.${name}`, message: value.problem, keyword: 'encoding' });
    else query[name] = value;
  }
  return { query, issues };
}

/** A whole HTTP/1.1 error answer for a socket no ServerResponse exists for; the connection closes after it. */
function rawErrorResponse(status: number, body: { error: string; message: string; request_id: string }): string {
  const json = JSON.stringify(body);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\n` +
    `X-Request-Id: ${body.request_id}\r\nConnection: close\r\n\r\n${json}`
  );
}

/** What Node's parser refused, as our status and error code. */
function parserRefusal(err: NodeJS.ErrnoException): { status: number; error: string; message: string } {
  if (err.code === 'HPE_HEADER_OVERFLOW') return { status: 431, error: 'headers_too_large', message: 'The request headers are larger than 16 KB in total.' };
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, error: 'request_timeout', message: 'The request was not received in time.' };
  return { status: 400, error: 'bad_request', message: `The request is not valid HTTP/1.1 (${err.code ?? 'parse error'}): a malformed request line, header or body framing, or raw bytes that must be percent-encoded.` };
}

function describeIssues(issues: ErrorIssue[]): string {
  const shown = issues.slice(0, 5).map((i) => `${i.path} ${i.message}`);
  return `Invalid request: ${shown.join('; ')}${issues.length > 5 ? ` (+${issues.length - 5} more)` : ''}.`;
}
