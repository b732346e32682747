/** What an API key may do: one of these scopes per operation (src/policies.ts says which). */
export const SCOPES = ['read', 'balance:read', 'endpoints:write', 'pay', 'payout:request'] as const;
export type Scope = (typeof SCOPES)[number];
