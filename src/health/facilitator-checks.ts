/** Health probes of the signers that pay gas for buyers: the EVM relayer per chain, the Solana fee payer. */
import type { ChainAdapterSet } from '../chains/create-chain-adapters.ts';
import type { FacilitatorHealth } from '../chains/chain-adapter.ts';
import type { CheckResult } from './health.handlers.ts';

const toCheck = (h: FacilitatorHealth): CheckResult => ({
  ok: h.ok,
  latency_ms: h.latencyMs,
  address: h.address,
  ...(h.balance !== undefined ? { balance: h.balance } : {}),
  ...(h.error ? { error: h.error } : {}),
});

export function facilitatorChecks(adapters: ChainAdapterSet | null): Record<string, () => Promise<CheckResult>> {
  if (!adapters) {
    const missing = async (): Promise<CheckResult> => ({ ok: false, latency_ms: 0, error: 'not configured' });
    return { evm_relayer: missing, solana_fee_payer: missing };
  }
  return {
    // One relayer key serves both EVM chains; it is healthy when it can pay gas on both.
    evm_relayer: async () => {
      const [base, polygon] = await Promise.all([adapters.base.facilitatorHealth(), adapters.polygon.facilitatorHealth()]);
      const worst = !base.ok ? base : polygon;
      return { ...toCheck(worst), ok: base.ok && polygon.ok, latency_ms: Math.max(base.latencyMs, polygon.latencyMs), balances: { base: base.balance ?? null, polygon: polygon.balance ?? null } };
    },
    solana_fee_payer: async () => toCheck(await adapters.solana.facilitatorHealth()),
  };
}
