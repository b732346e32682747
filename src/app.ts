/**
 * Composition root: the one place that builds every dependency and wires handlers to the
 * contract's operationIds. Tests call createApp with their own config (port 0, their own
 * database, the devnet's chains) and get the real server.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.ts';
import type { Logger } from './log.ts';
import { openDatabase, pingDatabase, type Database } from './db/orm.ts';
import { loadContract } from './http/contract.ts';
import { createHttpServer, type Handler, type HttpServer } from './http/server.ts';
import { notImplemented } from './http/errors.ts';
import { classifyIssues } from './http/classify-issues.ts';
import { getMetaHandler } from './catalog/meta.ts';
import { BUILTINS } from './catalog/builtins.ts';
import { builtinHandler } from './catalog/builtin.handler.ts';
import { sellerCallHandler } from './catalog/seller-call.handler.ts';
import { getHealthHandler } from './health/health.handler.ts';
import { createMetrics, getMetricsHandler } from './metrics/metrics.ts';
import { createToolPool } from './tools/tool-pool.ts';
import { preloadPdfParser } from './tools/pdf/open-pdf.ts';
import { createChainAdapters } from './chains/create-chain-adapters.ts';
import { createQuoteStore } from './payments/quote-store.ts';
import { createReceiptGate } from './payments/receipt-gate.ts';
import type { PaidCallDeps } from './payments/paid-call.ts';
import { getSessionTokenHandler } from './payments/session-token.handler.ts';
import { solanaFacilitatorHandler } from './payments/solana-facilitator.handler.ts';
import { facilitatorChecks } from './health/facilitator-checks.ts';
import { createLru } from './lib/lru.ts';
import type { DocumentKind } from './tools/inspect-document.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
export const VERSION: string = JSON.parse(readFileSync(`${root}package.json`, 'utf8')).version;

export interface App {
  config: Config;
  orm: Database;
  http: HttpServer;
  listen(): Promise<AddressInfo>;
  /** Graceful: stop accepting, finish in-flight requests, then close pools and the database. */
  close(): Promise<void>;
}


export async function createApp(config: Config, log: Logger): Promise<App> {
  const contract = await loadContract(`${root}openapi.yaml`);
  const orm = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: config.pgliteDir, log });
  const metrics = createMetrics();
  // Small documents are inspected on this thread; load pdf.js now, not on the first quote.
  await preloadPdfParser();
  const pool = createToolPool({ workers: config.tools.workers, jobTimeoutMs: config.tools.jobTimeoutMs, jobMemoryMb: config.tools.jobMemoryMb, log: log.child({ component: 'tools' }) });
  const adapters = config.chains ? createChainAdapters(config.chains, log.child({ component: 'chains' })) : null;
  const quotes = createQuoteStore(orm, log);
  // A paid run holds its receipt this long; after it, an identical retry may run it again.
  const gate = createReceiptGate(orm, { leaseMs: config.tools.jobTimeoutMs + 30_000 });
  let publicBaseUrl = config.publicBaseUrl;
  const paid: PaidCallDeps | null = adapters
    ? { publicBaseUrl: () => publicBaseUrl, adapters, quotes, gate, poll: { timeoutMs: config.payments.pollTimeoutMs, intervalMs: config.payments.pollIntervalMs }, log, metrics }
    : null;

  const implemented: Record<string, Handler> = {
    getHealth: getHealthHandler({
      version: VERSION,
      pingDatabase: () => pingDatabase(orm),
      chainHealth: adapters ? { base: () => adapters.base.health(), polygon: () => adapters.polygon.health(), solana: () => adapters.solana.health() } : {},
      facilitators: facilitatorChecks(adapters),
      checkTimeoutMs: 3_000,
    }),
    getMeta: getMetaHandler({ serviceName: config.serviceName, version: VERSION, listSellerEntries: async () => [], signingPublicKey: null }),
    getMetrics: getMetricsHandler(metrics),
    getSessionToken: getSessionTokenHandler(adapters),
    solanaFacilitator: solanaFacilitatorHandler(adapters),
    callSellerEndpoint: sellerCallHandler(orm),
  };
  const inspected = createLru<string, { kind: DocumentKind; pages: number }>(4096);
  for (const b of BUILTINS) implemented[b.operationId] = builtinHandler({ paid, pool, limits: config.tools, inspected, metrics }, b);

  const handlers: Record<string, Handler> = {};
  for (const id of contract.operationIds) {
    handlers[id] =
      implemented[id] ??
      (async () => {
        throw notImplemented(id, 'the seller and API-key issues');
      });
  }

  const http = createHttpServer({
    contract,
    handlers,
    log,
    jsonBodyLimits: { registerSeller: 4096, addSellerEndpoint: 4096 },
    defaultJsonBodyLimit: 64 * 1024,
    classifyIssues,
    onResponse: ({ operationId, status, durationMs }) => {
      metrics.httpRequests.inc({ operation: operationId, status: String(status) });
      metrics.httpDuration.observe({ operation: operationId }, durationMs / 1000);
    },
  });

  return {
    config,
    orm,
    http,
    listen: async () => {
      const address = await http.listen(config.port, config.host);
      // PORT=0 picks a free port: quotes must name the real one.
      if (config.port === 0) publicBaseUrl = publicBaseUrl.replace(/:0$/, `:${address.port}`);
      return address;
    },
    close: async () => {
      await http.shutdown(config.shutdownTimeoutMs);
      await quotes.close();
      await pool.close();
      await orm.close(true);
    },
  };
}
