/**
 * JSON with object keys sorted: the same value gives the same text however a client ordered
 * its keys, so digests of JSON a client sent (MCP tool arguments, an x402 PaymentPayload) name
 * the value, not its spelling.
 */
export const canonicalJson = (v: unknown): string =>
  JSON.stringify(v, (_k, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : value,
  );
