/**
 * Composition root: builds every dependency, merges the features' handler maps (each keyed by
 * OperationId), applies the one table of operation policies (src/policies.ts) and creates the
 * server. Tests call createApp with their own config (port 0, their own database, the devnet's
 * chains) and get the real server.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.ts';
import type { Logger } from './log.ts';
import { openDatabase, pingDatabase, type Database } from './db/orm.ts';
import { loadContract } from './http/contract.ts';
import { createHttpServer, type HttpServer } from './http/server.ts';
import { applyPolicies, jsonBodyLimitsOf, keyScopesOf, mergeHandlers, OPERATION_POLICIES, preflightsOf } from './policies.ts';
import { classifyIssues } from './http/classify-issues.ts';
import { createCatalogHandlers } from './catalog/catalog.handlers.ts';
import { createSellerCallHandlers } from './sellers/seller-call.handlers.ts';
import { createHealthCheck, createHealthHandlers } from './health/health.handlers.ts';
import { createMetrics, declareMissing, type Metrics } from './metrics/metrics.ts';
import { createOperatorServer } from './metrics/operator-server.ts';
import { createDependencyProbe } from './metrics/dependency-probe.ts';
import { createRateLimiter } from './http/rate-limiter.ts';
import { rateLimitWrapper } from './http/with-rate-limit.ts';
import { createToolPool } from './tools/tool-pool.ts';
import { preloadPdfParser } from './tools/pdf/open-pdf.ts';
import { createChainAdapters } from './chains/create-chain-adapters.ts';
import { configuredPayoutChains, warmPayoutChain } from './chains/create-payout-senders.ts';
import { createQuoteStore } from './payments/quote-store.ts';
import { createReceiptGate } from './payments/receipt-gate.ts';
import { createPayments } from './payments/paid-call.ts';
import type { Payments } from './payments/sellable.ts';
import { toErrorAnswer } from './http/errors.ts';
import { createPaymentHandlers } from './payments/payments.handlers.ts';
import { facilitatorChecks } from './health/facilitator-checks.ts';
import { createLru } from './lib/lru.ts';
import { createScheduler } from './jobs/scheduler.ts';
import { createPaymentsHousekeeping } from './payments/housekeeping.ts';
import { createUpstreamClient } from './proxy/upstream-client.ts';
import { sweepAbandonedSpools } from './proxy/spool-body.ts';
import { createForwardSigner, loadOrCreateSigningKey, parseSigningKey } from './proxy/forward-signature.ts';
import { join } from 'node:path';
import { createSellerHandlers } from './sellers/sellers.handlers.ts';
import { createSellerMetrics } from './sellers/seller-metrics.ts';
import { createProbeJobs } from './sellers/probe-jobs.ts';
import { listSellerCatalogEntries } from './sellers/catalog-entries.ts';
import { discoveryRows } from './sellers/endpoint-store.ts';
import { createReliabilityCache } from './sellers/reliability.ts';
import { loadOrCreateApiKeySecret } from './accounts/api-keys.ts';
import { createKeyUsage } from './accounts/key-usage.ts';
import { createKeyAuth } from './accounts/with-api-key.ts';
import { createAccountHandlers } from './accounts/accounts.handlers.ts';
import { createDocsHandlers, scalarStandalone } from './docs/docs.handlers.ts';
import { createCatalogPageHandlers } from './catalog-page/catalog-page.handlers.ts';
import { createConsoleHandlers } from './console/console.handlers.ts';
import type { PayoutSenders } from './chains/payout-sender.ts';
import { createPayoutSenders } from './chains/create-payout-senders.ts';
import { createSettlementHandlers } from './settlement/settlement.handlers.ts';
import { createSettlementJobs } from './settlement/daily.ts';
import type { SettlementHooks } from './settlement/payout-worker.ts';
import { markDelivery, settlementSource } from './settlement/payout-store.ts';
import { sqlOf } from './db/orm.ts';
import { createMcpHandlers } from './mcp/mcp.handlers.ts';
import { bindPaymentIdentifier } from './payments/payment-identifier.ts';
import { builtinBazaar } from './catalog/bazaar.ts';
import { BUILTINS } from './catalog/builtins.ts';
import type { DocumentKind } from './tools/inspect-document.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
export const VERSION: string = JSON.parse(readFileSync(`${root}package.json`, 'utf8')).version;

export interface App {
  config: Config;
  orm: Database;
  http: HttpServer;
  metrics: Metrics;
  /** Starts the public API and the operator listener (metrics); resolves with the API's address. */
  listen(): Promise<AddressInfo>;
  /** The operator listener's address (/metrics, /health/details) once listening. */
  metricsAddress(): AddressInfo | null;
  /** Runs the scheduled jobs (probes, settlement and payouts) once now, whether or not this instance ticks. */
  runScheduledJobs(): Promise<void>;
  /** Graceful: stop accepting, finish in-flight requests, then close pools and the database. */
  close(): Promise<void>;
}


/** What tests (and the crash fixture) put in place of the real parts; never set in production. */
export interface AppOverrides {
  /**
   * Replaces config.chains once it resolves: the devnet profile starts its chains while the
   * contract, the database and PDFium load here (start-up time).
   */
  chains?: Promise<Config['chains']>;
  /** The database, already opening (main.ts starts it before this module graph loads). */
  database?: Promise<Database>;
  /** The treasury senders (default: one per configured chain). */
  payoutSenders?: PayoutSenders;
  /** The settlement's clock: a test moves it past midnight instead of waiting. */
  now?: () => Date;
  /** Pause or kill points on the payout path (test/fixtures/settlement-crash.ts). */
  settlementHooks?: SettlementHooks;
}

export async function createApp(config: Config, log: Logger, overrides: AppOverrides = {}): Promise<App> {
  // Small documents are inspected on this thread; PDFium loads now, not on the first quote.
  const opened = overrides.database ?? openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: config.pgliteDir, log });
  const [contract, orm, chains] = await Promise.all([loadContract(`${root}openapi.yaml`), opened, overrides.chains ?? config.chains, preloadPdfParser()]).catch(async (e: unknown) => {
    // Whatever failed (the devnet, say), a database that did open is closed cleanly.
    await opened.then((db) => db.close(true)).catch(() => undefined);
    throw e;
  });
  config = { ...config, chains };
  const metrics = createMetrics();
  const pool = createToolPool({ workers: config.tools.workers, jobTimeoutMs: config.tools.jobTimeoutMs, jobMemoryMb: config.tools.jobMemoryMb, log: log.child({ component: 'tools' }) });
  const adapters = config.chains ? createChainAdapters(config.chains, log.child({ component: 'chains' })) : null;
  // A 402 waits for its quote's commit; on a PostgreSQL server not for the WAL flush (see quote-store.ts).
  const quotes = createQuoteStore(orm, log, { commitWithoutFlush: Boolean(config.databaseUrl) });
  // A paid run holds its receipt with a short lease its heartbeat renews while this process
  // lives; once the lease runs out (the process died), an identical retry may run it again.
  const gate = createReceiptGate(orm, { leaseMs: config.payments.runLeaseMs, maxRuns: config.payments.maxRuns, log: log.child({ component: 'receipts' }) });
  let publicBaseUrl = config.publicBaseUrl;
  // The one door through which built-ins and seller calls are sold (payments/sellable.ts).
  const payments: Payments | null = adapters
    ? createPayments({
        publicBaseUrl: () => publicBaseUrl,
        adapters,
        quotes,
        gate,
        markDelivery: (receipt, delivery) => markDelivery(sqlOf(orm), receipt, delivery),
        bindIdentifier: (b) => bindPaymentIdentifier(sqlOf(orm), b),
        errorAnswer: toErrorAnswer,
        poll: { timeoutMs: config.payments.pollTimeoutMs, intervalMs: config.payments.pollIntervalMs },
        clockSkewSeconds: config.payments.clockSkewSeconds,
        maxStoredAnswerBytes: config.proxy.maxStoredAnswerBytes,
        quoteAnswers: createLru(1024),
        log,
        metrics,
      })
    : null;

  // Seller marketplace: upstream client (SSRF-guarded), lifecycle probes on the shared scheduler.
  const sellerMetrics = createSellerMetrics(metrics.registry, orm);
  // Bodies spilled by a process that died (kill -9) are removed now, not left in TMPDIR for good.
  void sweepAbandonedSpools().then(
    (removed) => removed && log.warn('removed the spilled request bodies of stopped processes', { directories: removed }),
    (error: unknown) => log.warn('could not sweep spilled request bodies', { error }),
  );
  const upstream = createUpstreamClient({ allowLocal: config.sellers.allowLocalUpstreams, caFile: config.sellers.upstreamCaFile, lookup: config.sellers.lookup, connectTimeoutMs: config.sellers.probeTimeoutMs });
  const scheduler = createScheduler({ tickMs: config.sellers.schedulerTickMs, log: log.child({ component: 'scheduler' }) });
  const lifecycle = { orm, config: config.sellers, metrics: sellerMetrics, log: log.child({ component: 'sellers' }), client: upstream };
  scheduler.register(createProbeJobs(lifecycle));
  // Settlement: daily at 00:00 UTC and requested payouts, sent from the treasuries.
  const payoutSenders: PayoutSenders = overrides.payoutSenders ?? (config.chains ? createPayoutSenders(config.chains, log.child({ component: 'payouts' })) : {});
  const settlementLog = log.child({ component: 'settlement' });
  scheduler.register(
    createSettlementJobs({ orm, senders: payoutSenders, config: config.settlement, metrics, log: settlementLog, hooks: overrides.settlementHooks, now: overrides.now ?? (() => new Date()) }),
  );
  // Payments' upkeep: payment-identifier bindings are forgotten after their retention.
  scheduler.register(createPaymentsHousekeeping({ orm, log: log.child({ component: 'payments' }) }));
  // Forwarded calls are signed (RFC 9421); the devnet keeps its generated key in the data directory.
  const signer = createForwardSigner(
    config.proxy.signingKey ? parseSigningKey(config.proxy.signingKey) : loadOrCreateSigningKey(join(config.dataDir, 'forward-signing-key.pem')),
    config.proxy.signingKeyId,
  );

  // Bearer API keys: stored as HMACs under a secret kept outside the database (the devnet's in
  // its data directory); last-used times are written in batches, not per request.
  const apiKeySecret = config.apiKeys.secret ?? loadOrCreateApiKeySecret(join(config.dataDir, 'api-key-secret'));
  const keyUsage = createKeyUsage({ orm, flushMs: config.apiKeys.usageFlushMs, log: log.child({ component: 'api-keys' }) });
  const keys = createKeyAuth({ orm, secret: apiKeySecret, usage: keyUsage, scopes: keyScopesOf(OPERATION_POLICIES) });

  const healthCheck = createHealthCheck({
    version: VERSION,
    pingDatabase: () => pingDatabase(orm),
    chainHealth: adapters ? { base: () => adapters.base.health(), polygon: () => adapters.polygon.health(), solana: () => adapters.solana.health() } : {},
    facilitators: facilitatorChecks(adapters),
    checkTimeoutMs: 3_000,
  });
  // Operator-only data (metrics: revenue, balances; health details) is served on a listener of its own.
  const operator = createOperatorServer({ metrics, healthDetails: healthCheck, log: log.child({ component: 'operator' }) });
  const sellEndpointDeps = {
    orm,
    payments,
    forward: { dispatcher: upstream.dispatcher, signer, timeoutMs: config.proxy.upstreamTimeoutMs, retryWindowMs: config.proxy.retryWindowMs, retryBaseMs: config.proxy.retryBaseMs, trustedProxies: config.proxy.trustedProxies },
    lifecycle,
    log,
    metrics,
  };
  // Every feature hands over its handler map (keyed by OperationId); what guards each operation
  // (signature action, API key, rate limit, body limit, preflight) is the one policy table.
  // Endpoint reliability for /v1/_meta and discovery: one query for all endpoints, at most 30 s old.
  const reliability = createReliabilityCache(orm, { ttlMs: 30_000 });
  const implemented = mergeHandlers(
    createHealthHandlers(healthCheck),
    createCatalogHandlers({
      serviceName: config.serviceName,
      version: VERSION,
      listSellerEntries: () => listSellerCatalogEntries(orm, reliability),
      signer,
      definition: contract.api.definition,
      publicBaseUrl: () => publicBaseUrl,
      payments,
      pool,
      limits: config.tools,
      metrics,
      discoveryRows: (p) => discoveryRows(sqlOf(orm), p),
      reliability,
    }),
    createPaymentHandlers({ adapters, facilitatorMinAtomic: config.payments.facilitatorMinAtomic }),
    createSellerCallHandlers({ ...sellEndpointDeps, maxBodyBytes: config.proxy.maxBodyBytes }),
    // The catalog as paid MCP tools, sold through the same Sellables as the HTTP operations.
    createMcpHandlers({
      serviceName: config.serviceName,
      version: VERSION,
      publicBaseUrl: () => publicBaseUrl,
      builtin: { payments, pool, limits: config.tools, inspected: createLru<string, { kind: DocumentKind; pages: number }>(1024), metrics },
      bazaar: new Map(BUILTINS.map((b) => [b.path, builtinBazaar(contract.api.definition, b.path)])),
      seller: sellEndpointDeps,
      maxSellerBodyBytes: config.proxy.maxBodyBytes,
      maxAnswerBytes: config.proxy.maxStoredAnswerBytes,
      toolsPageSize: config.mcp.toolsPageSize,
      metrics,
      reliability,
    }),
    createSellerHandlers({
      ...lifecycle,
      serviceName: config.serviceName,
      kickProbes: scheduler.kick,
      payoutChains: configuredPayoutChains(config.chains),
      onPayoutChain: (chain) => warmPayoutChain(config.chains, chain, log),
    }),
    createAccountHandlers({ orm, serviceName: config.serviceName, secret: apiKeySecret, onRefusal: (reason) => sellerMetrics.signatureRefusals.inc({ reason }) }),
    createSettlementHandlers({
      orm,
      config: config.settlement,
      signature: { serviceName: config.serviceName, orm, onRefusal: (reason) => sellerMetrics.signatureRefusals.inc({ reason }) },
      kick: scheduler.kick,
    }),
    // API reference: /docs (Scalar, served from the installed package) and /openapi.yaml.
    createDocsHandlers({ serviceName: config.serviceName, contractFile: `${root}openapi.yaml`, definition: contract.definition, viewer: scalarStandalone() }),
    // The catalog page at / for people (its assets at /assets/): the discovery rows, rendered, kept 5 s.
    createCatalogPageHandlers({
      serviceName: config.serviceName,
      publicBaseUrl: () => publicBaseUrl,
      discoveryRows: (p) => discoveryRows(sqlOf(orm), p),
      reliability,
      ttlMs: 5_000,
    }),
    // The seller console at /console: a page of the public API, signing with an EVM browser
    // wallet, so it offers the EVM payout chains only (Solana wallets: the CLI, for now).
    createConsoleHandlers({ serviceName: config.serviceName, payoutChains: configuredPayoutChains(config.chains).filter((c) => c !== 'solana') }),
  );

  // Operator metrics: scrape-time gauges, and empty definitions of those no feature registered.
  metrics.sources.toolPool = () => pool.stats();
  metrics.sources.settlement = settlementSource(() => sqlOf(orm));
  metrics.sources.dependencies = createDependencyProbe({ pingDatabase: () => pingDatabase(orm), adapters, chains: config.chains, maxAgeMs: 30_000, timeoutMs: 3_000 });
  declareMissing(metrics.registry);

  // Rate limits (with-rate-limit.ts): per process in memory, shared through Redis when REDIS_URL is set.
  // Keys are namespaced by SERVICE_NAME, so deployments (and test runs) can share one Redis.
  const limiter = config.rateLimits ? createRateLimiter({ limits: config.rateLimits, redisUrl: config.redisUrl, keyPrefix: `paycall:rl:${config.serviceName}`, log: log.child({ component: 'rate-limits' }) }) : null;
  // Counting in memory until Redis answers would let the first requests of every instance through unshared.
  if (limiter && !(await limiter.ready(5_000))) log.warn('rate limits: Redis not reachable at start; counting per process until it is', { redis: config.redisUrl?.replace(/\/\/[^@]*@/, '//***@') });
  const withRateLimit = rateLimitWrapper({ limiter, metrics, proxyHops: config.trustProxyHops });

  const handlers = applyPolicies(implemented, OPERATION_POLICIES, { keys, withRateLimit });

  const http = createHttpServer({
    contract,
    handlers,
    log,
    jsonBodyLimits: jsonBodyLimitsOf(OPERATION_POLICIES),
    defaultJsonBodyLimit: 64 * 1024,
    classifyIssues,
    preflight: preflightsOf(OPERATION_POLICIES),
    onResponse: ({ operationId, status, durationMs }) => {
      metrics.httpRequests.inc({ operation: operationId, status: String(status) });
      metrics.httpDuration.observe({ operation: operationId }, durationMs / 1000);
    },
  });

  return {
    config,
    orm,
    http,
    metrics,
    runScheduledJobs: () => scheduler.runOnce(),
    metricsAddress: () => operator.address(),
    listen: async () => {
      const metricsAddress = await operator.listen(config.metrics.port, config.metrics.host);
      log.info('metrics listening', { url: `http://${metricsAddress.family === 'IPv6' ? `[${metricsAddress.address}]` : metricsAddress.address}:${metricsAddress.port}` });
      const address = await http.listen(config.port, config.host).catch(async (e: unknown) => {
        await operator.close();
        throw e;
      });
      // PORT=0 picks a free port: quotes must name the real one.
      if (config.port === 0) publicBaseUrl = publicBaseUrl.replace(/:0$/, `:${address.port}`);
      scheduler.start();
      // A moment after start, so the first requests (a health check) do not wait behind it.
      setTimeout(() => void contract.warmValidators(), 1_000).unref();
      return address;
    },
    close: async () => {
      await http.shutdown(config.shutdownTimeoutMs);
      const step = (name: string, fn: () => Promise<unknown> | unknown) => closeStep(log, name, fn, CLOSE_STEP_MS);
      await step('operator listener', () => operator.close());
      await step('scheduler', () => scheduler.close());
      // After the last request: every recorded key use is written before the database closes.
      await step('key usage', () => keyUsage.close());
      await step('upstream client', () => upstream.close());
      await step('quote store', () => quotes.close());
      await step('tool pool', () => pool.close());
      await step('rate limiter', () => limiter?.close());
      // Leases still held (a request cut off by the shutdown timeout) run out on their own.
      gate.close();
      await step('database', () => orm.close(true));
    },
  };
}

/** How long one step of App.close() may take before it is left behind. */
const CLOSE_STEP_MS = 10_000;

/**
 * One step of App.close(), bounded: a step that hangs (a database that went away, a worker that
 * does not answer) is logged and left behind, so the steps after it still run and the process
 * can end; a graceful close that never returns is worse than one that is incomplete.
 */
export async function closeStep(log: Logger, name: string, fn: () => Promise<unknown> | unknown, ms: number): Promise<'closed' | 'failed' | 'timed out'> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timed out'>((resolve) => (timer = setTimeout(() => resolve('timed out'), ms)));
  const done = Promise.resolve()
    .then(fn)
    .then(
      () => 'closed' as const,
      (e: unknown) => {
        log.warn('close step failed', { step: name, error: e instanceof Error ? e.message : String(e) });
        return 'failed' as const;
      },
    );
  const outcome = await Promise.race([done, timedOut]);
  clearTimeout(timer);
  if (outcome === 'timed out') log.warn('close step did not finish in time; going on without it', { step: name, ms });
  return outcome;
}
