/**
 * Composition root: the one place that builds every dependency and wires handlers to the
 * contract's operationIds. Tests call createApp with their own config (port 0, their own
 * database) and get the real server.
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
import { getHealthHandler } from './health/health.handler.ts';

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

/** Which issue brings each operation that is still answered with 501. */
const LANDS_WITH: Record<string, string> = {
  pdfMd: 'the x402 paid-call issue',
  pdfText: 'the x402 paid-call issue',
  pdfJson: 'the x402 paid-call issue',
  invoiceExtract: 'the x402 paid-call issue',
  callSellerEndpoint: 'the seller marketplace issue',
  solanaFacilitator: 'the x402 paid-call issue',
  getSessionToken: 'the x402 paid-call issue',
};

export async function createApp(config: Config, log: Logger): Promise<App> {
  const contract = await loadContract(`${root}openapi.yaml`);
  const orm = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: config.pgliteDir, log });

  const implemented: Record<string, Handler> = {
    getHealth: getHealthHandler({
      version: VERSION,
      pingDatabase: () => pingDatabase(orm),
      chainHealth: {},
      facilitators: {},
      checkTimeoutMs: 3_000,
    }),
    getMeta: getMetaHandler({ serviceName: config.serviceName, version: VERSION, listSellerEntries: async () => [], signingPublicKey: null }),
  };
  const handlers: Record<string, Handler> = {};
  for (const id of contract.operationIds) {
    handlers[id] =
      implemented[id] ??
      (async () => {
        throw notImplemented(id, LANDS_WITH[id] ?? 'a later issue');
      });
  }

  const http = createHttpServer({
    contract,
    handlers,
    log,
    jsonBodyLimits: { registerSeller: 4096, addSellerEndpoint: 4096 },
    defaultJsonBodyLimit: 64 * 1024,
    classifyIssues,
  });

  return {
    config,
    orm,
    http,
    listen: () => http.listen(config.port, config.host),
    close: async () => {
      await http.shutdown(config.shutdownTimeoutMs);
      await orm.close(true);
    },
  };
}
