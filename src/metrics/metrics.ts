/**
 * Prometheus metrics. One registry per app (createApp builds it), so tests running several
 * apps in one process never share counters.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Handler } from '../http/server.ts';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'operation' | 'status'>;
  httpDuration: Histogram<'operation'>;
  payments: Counter<'network' | 'result'>;
  quotes: Counter<'endpoint'>;
  toolDuration: Histogram<'tool'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'paycall_' });
  return {
    registry,
    httpRequests: new Counter({ name: 'paycall_http_requests_total', help: 'HTTP requests by operation and status', labelNames: ['operation', 'status'], registers: [registry] }),
    httpDuration: new Histogram({
      name: 'paycall_http_request_duration_seconds',
      help: 'HTTP request duration by operation',
      labelNames: ['operation'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    payments: new Counter({ name: 'paycall_payments_total', help: 'Payment attempts by network and result (accepted, replay or the refusal reason)', labelNames: ['network', 'result'], registers: [registry] }),
    quotes: new Counter({ name: 'paycall_quotes_total', help: '402 quotes issued by endpoint', labelNames: ['endpoint'], registers: [registry] }),
    toolDuration: new Histogram({
      name: 'paycall_tool_duration_seconds',
      help: 'Paid built-in tool runs by tool (queueing included)',
      labelNames: ['tool'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers: [registry],
    }),
  };
}

export const getMetricsHandler =
  (metrics: Metrics): Handler =>
  async () => ({ status: 200, headers: { 'content-type': metrics.registry.contentType }, body: await metrics.registry.metrics() });
