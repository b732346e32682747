/**
 * node:http server: request id -> route (contract) -> body (JSON buffered under a streaming
 * limit, anything else left as a stream for the handler) -> validation -> handler -> answer.
 * Graceful shutdown: stop accepting, let in-flight requests finish, then the caller closes
 * the database and pools.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Contract } from './contract.ts';
import { AppError, type ErrorIssue } from './app-error.ts';
import { toErrorAnswer } from './errors.ts';
import { parseJsonBody, readBodyLimited } from './read-body.ts';
import type { Logger } from '../log.ts';

export interface RequestContext {
  requestId: string;
  operationId: string;
  req: IncomingMessage;
  url: URL;
  params: Record<string, string>;
  query: Record<string, string>;
  /** Parsed JSON for JSON operations; undefined for streamed ones (the handler reads req). */
  body: unknown;
  clientIp: string;
  log: Logger;
}

export interface HandlerResult {
  status: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a Buffer or string as is (set content-type in headers). */
  body?: unknown;
}

export type Handler = (ctx: RequestContext) => Promise<HandlerResult>;

/** Maps a validation issue to a more specific spec error code, or undefined for invalid_input. */
export type IssueClassifier = (operationId: string, issues: ErrorIssue[]) => AppError | undefined;

export interface HttpServerDeps {
  contract: Contract;
  handlers: Record<string, Handler>;
  log: Logger;
  /** JSON body limit per operation (bytes); the default applies to the rest. */
  jsonBodyLimits: Record<string, number>;
  defaultJsonBodyLimit: number;
  classifyIssues?: IssueClassifier;
  onResponse?: (info: { operationId: string; status: number; durationMs: number }) => void;
}

export interface HttpServer {
  server: Server;
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Stops accepting, waits for in-flight requests (bounded by timeoutMs), then resolves. */
  shutdown(timeoutMs: number): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export function createHttpServer(deps: HttpServerDeps): HttpServer {
  const { contract, handlers, log } = deps;
  const missing = contract.operationIds.filter((id) => !handlers[id]);
  if (missing.length) throw new Error(`operations without a handler: ${missing.join(', ')}`);

  let inFlight = 0;
  let draining: (() => void) | null = null;

  const send = (res: ServerResponse, requestId: string, result: HandlerResult, headOnly: boolean) => {
    const headers: Record<string, string> = { 'x-request-id': requestId, ...(result.headers ?? {}) };
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
    const url = new URL(req.url ?? '/', 'http://localhost');
    let operationId = 'unknown';
    let status = 500;
    try {
      const match = contract.match(req.method ?? 'GET', url.pathname);
      if (match === undefined) throw new AppError('endpoint_not_found', 404, `No endpoint at ${url.pathname}.`, { hint: 'GET /v1/_meta lists the catalog.' });
      if (match === 'method_not_allowed') throw new AppError('method_not_allowed', 405, `${req.method} is not allowed on ${url.pathname}.`);
      operationId = match.operationId;
      const query = Object.fromEntries(url.searchParams);
      const json = contract.takesJson(match.operation);
      const body = json ? await readJson(req, operationId) : undefined;
      // Streamed bodies (uploads, proxied calls) are the handler's to read and check.
      const issues = contract
        .validate(match.operation, { method: req.method ?? 'GET', path: url.pathname, headers: req.headers, query, body })
        .filter((i) => json || !i.path.startsWith('body'));
      if (issues.length) {
        throw deps.classifyIssues?.(operationId, issues) ?? new AppError('invalid_input', 400, describeIssues(issues), { issues });
      }
      const result = await handlers[operationId]({
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
      if (status >= 500) reqLog.error('request failed', { err, operation: operationId });
      if (!res.headersSent) send(res, requestId, answer, req.method === 'HEAD');
      else res.destroy();
      // A body we refused (413) may still be arriving: stop reading it and close the connection.
      if (status === 413 && !req.readableEnded) res.once('finish', () => req.destroy());
    } finally {
      const durationMs = performance.now() - started;
      reqLog.info('request', { method: req.method, path: url.pathname, operation: operationId, status, duration_ms: Math.round(durationMs * 10) / 10 });
      deps.onResponse?.({ operationId, status, durationMs });
    }
  };

  const readJson = async (req: IncomingMessage, operationId: string) => {
    const limit = deps.jsonBodyLimits[operationId] ?? deps.defaultJsonBodyLimit;
    const raw = await readBodyLimited(req, limit);
    return parseJsonBody(raw);
  };

  const server = createServer({ keepAliveTimeout: 5_000, requestTimeout: 300_000 }, (req, res) => {
    inFlight++;
    res.once('close', () => {
      inFlight--;
      if (draining && inFlight === 0) draining();
    });
    void handle(req, res);
  });

  return {
    server,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve(server.address() as AddressInfo);
        });
      }),
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

function describeIssues(issues: ErrorIssue[]): string {
  const shown = issues.slice(0, 5).map((i) => `${i.path} ${i.message}`);
  return `Invalid request: ${shown.join('; ')}${issues.length > 5 ? ` (+${issues.length - 5} more)` : ''}.`;
}
