/**
 * The payments' own scheduled upkeep: payment-identifier bindings are kept for
 * PAYMENT_IDENTIFIER_RETENTION_DAYS (a buyer's lost-response retries come within minutes; a
 * month leaves room for a client that retries a day later) and then forgotten, so the table
 * does not grow with every payment for good. Every instance runs it; the delete is the same
 * whoever runs it, and at most once per PURGE_EVERY_MS per instance.
 */
import type { ScheduledTask } from '../jobs/scheduler.ts';
import type { Logger } from '../log.ts';
import { sqlOf, type Database } from '../db/orm.ts';
import { purgePaymentIdentifiers } from './payment-identifier-store.ts';

export const PAYMENT_IDENTIFIER_RETENTION_DAYS = 30;
const PURGE_EVERY_MS = 10 * 60_000;

export function createPaymentsHousekeeping(deps: { orm: Database; log: Logger; retentionDays?: number; now?: () => number }): ScheduledTask {
  const now = deps.now ?? Date.now;
  let lastPurge = -Infinity;
  return {
    name: 'payments-housekeeping',
    async run() {
      if (now() - lastPurge < PURGE_EVERY_MS) return;
      lastPurge = now();
      const forgotten = await purgePaymentIdentifiers(sqlOf(deps.orm), deps.retentionDays ?? PAYMENT_IDENTIFIER_RETENTION_DAYS);
      if (forgotten) deps.log.info('payment identifiers forgotten', { count: forgotten, retention_days: deps.retentionDays ?? PAYMENT_IDENTIFIER_RETENTION_DAYS });
    },
  };
}
