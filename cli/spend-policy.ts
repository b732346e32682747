/**
 * What `paycall mcp` may spend on its own: a cap per call, a budget for the session (the life
 * of the process) and an optional allow-list of tools or sellers. Money is USDC atomic units
 * (bigint, 6 decimals); the user writes USDC decimals (`0.05`).
 *
 * The budget is reserved before the payment is made and given back only when the service says
 * nothing was settled, so two calls running at once can never spend more than the budget.
 */
import { UsageError } from './context.ts';
import { usdcText } from '../src/lib/usdc.ts';

export interface SpendPolicy {
  maxPerCall?: bigint;
  budget?: bigint;
  /** Tool names, or globs such as `acme.*` (every tool of seller acme); undefined: every tool. */
  allow?: string[];
}

/** `0.05` -> 50000n. At most 6 decimals: a price finer than the token's unit is a typo. */
export function parseUsdc(value: string, option: string): bigint {
  const m = /^(\d{1,12})(?:\.(\d{1,6}))?$/.exec(value.trim());
  if (!m) throw new UsageError(`${option} ${value}: must be an amount of USDC such as 0.05 (at most 6 decimals)`);
  return BigInt(m[1]) * 1_000_000n + BigInt((m[2] ?? '').padEnd(6, '0'));
}

/** 50000n -> "0.05 USDC". */
export const formatUsdc = usdcText;

export const parseAllow = (value: string | undefined) => {
  const list = value?.split(',').map((s) => s.trim()).filter(Boolean);
  return list?.length ? list : undefined;
};

const globMatches = (pattern: string, name: string) =>
  new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(name);

/** A seller's name alone (`acme`) allows all its tools, as `acme.*` does. */
export const isAllowed = (policy: SpendPolicy, tool: string) =>
  !policy.allow || policy.allow.some((p) => globMatches(p, tool) || (!p.includes('.') && !p.includes('*') && tool.startsWith(`${p}.`)));

export type Refusal = { limit: 'allow-list' | 'max-per-call' | 'budget'; message: string };

/** The session's spend: check, reserve, and give back what was not settled. */
export class SpendLedger {
  private spent = 0n;
  constructor(readonly policy: SpendPolicy) {}

  get total(): bigint {
    return this.spent;
  }

  notAllowed(tool: string): Refusal | null {
    if (isAllowed(this.policy, tool)) return null;
    return { limit: 'allow-list', message: `${tool} is not in the allow-list (--allow / PAYCALL_ALLOW: ${this.policy.allow!.join(',')})` };
  }

  /** Reserves `price` or says which limit it breaks (nothing reserved then). */
  reserve(tool: string, price: bigint): Refusal | null {
    const { maxPerCall, budget } = this.policy;
    if (maxPerCall !== undefined && price > maxPerCall)
      return { limit: 'max-per-call', message: `the price of ${tool}, ${formatUsdc(price)}, is above the per-call cap of ${formatUsdc(maxPerCall)} (--max-per-call / PAYCALL_MAX_PER_CALL)` };
    if (budget !== undefined && this.spent + price > budget)
      return {
        limit: 'budget',
        message: `the price of ${tool}, ${formatUsdc(price)}, is over the session budget: ${formatUsdc(this.spent)} of ${formatUsdc(budget)} spent, ${formatUsdc(budget - this.spent)} left (--budget / PAYCALL_BUDGET)`,
      };
    this.spent += price;
    return null;
  }

  release(price: bigint): void {
    this.spent -= price;
  }
}
