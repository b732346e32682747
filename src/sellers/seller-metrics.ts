/**
 * Metrics of the seller marketplace, registered on the app's one registry: signature refusals
 * by reason, probes by outcome and region, and endpoints by state (read from the database at
 * scrape time, so every instance reports the cluster's figure).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { sqlOf, type Database } from '../db/orm.ts';
import { endpointCountsByStatus } from './endpoint-store.ts';

export interface SellerMetrics {
  signatureRefusals: Counter<'reason'>;
  probes: Counter<'region' | 'outcome'>;
  transitions: Counter<'from' | 'to'>;
}

const STATES = ['pending', 'active', 'degraded', 'suspended'] as const;

export function createSellerMetrics(registry: Registry, orm: Database): SellerMetrics {
  new Gauge({
    name: 'paycall_seller_endpoints',
    help: 'Seller endpoints (not deleted) by status',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      // A database outage must not take /metrics down with it: the gauge keeps its last figures.
      try {
        const rows = await endpointCountsByStatus(sqlOf(orm));
        for (const s of STATES) this.set({ status: s }, Number(rows.find((r) => r.status === s)?.n ?? 0));
      } catch {
        /* keep the previous values */
      }
    },
  });
  return {
    signatureRefusals: new Counter({ name: 'paycall_signature_refusals_total', help: 'Wallet signatures refused, by reason', labelNames: ['reason'], registers: [registry] }),
    probes: new Counter({ name: 'paycall_seller_probes_total', help: 'Upstream probes by region (publish, health or an activation region) and outcome', labelNames: ['region', 'outcome'], registers: [registry] }),
    transitions: new Counter({ name: 'paycall_seller_endpoint_transitions_total', help: 'Endpoint lifecycle transitions', labelNames: ['from', 'to'], registers: [registry] }),
  };
}
