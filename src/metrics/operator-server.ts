/**
 * The operator listener (METRICS_HOST:METRICS_PORT, loopback by default): what only the
 * people running the service may read, kept off the public API port.
 *   GET /metrics          Prometheus text (revenue per endpoint, treasury and relayer balances, ...)
 *   GET /health/details   /v1/_health with every check's error text, signer addresses and balances
 * It is not part of the API contract (openapi.yaml) and has no authentication of its own:
 * where it listens is the access control (a loopback address, or a network only Prometheus
 * shares, as docker-compose.yml does).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log.ts';
import type { Metrics } from './metrics.ts';
import { listen } from '../lib/listen.ts';

export interface OperatorServerDeps {
  metrics: Metrics;
  /** The full health report and the HTTP status /v1/_health gives it (200, or 503 with the database down). */
  healthDetails: () => Promise<{ status: number; body: unknown }>;
  log: Logger;
}

export interface OperatorServer {
  listen(port: number, host: string): Promise<AddressInfo>;
  /** The bound address once listening (METRICS_PORT=0 picks a free port). */
  address(): AddressInfo | null;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
};

export function createOperatorServer(deps: OperatorServerDeps): OperatorServer {
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' && path !== '/health/details') return json(res, 404, { error: 'endpoint_not_found', message: `No operator endpoint at ${path}: GET /metrics or GET /health/details.` });
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { error: 'method_not_allowed', message: `${req.method} is not allowed on ${path}.` });
    if (path === '/metrics') {
      const text = await deps.metrics.registry.metrics();
      res.writeHead(200, { 'content-type': deps.metrics.registry.contentType, 'content-length': Buffer.byteLength(text) });
      return void res.end(req.method === 'HEAD' ? undefined : text);
    }
    const health = await deps.healthDetails();
    json(res, health.status, health.body);
  };
  const server = createServer({ keepAliveTimeout: 5_000, requestTimeout: 30_000 }, (req, res) => {
    // Nothing is read from a request body here: drain it so the connection can be reused.
    req.resume();
    answer(req, res).catch((err: unknown) => {
      deps.log.error('operator endpoint failed', { err, path: req.url });
      if (!res.headersSent) json(res, 500, { error: 'internal_error', message: 'The operator endpoint failed; see the log.' });
      else res.destroy();
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());

  return {
    listen: (port, host) => listen(server, port, host),
    address: () => (server.listening ? (server.address() as AddressInfo) : null),
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        // A scrape takes milliseconds and Prometheus keeps its connection open: no draining.
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
