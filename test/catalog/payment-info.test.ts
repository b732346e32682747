/**
 * openapi.yaml's `x-payment-info` (x402scan's OpenAPI discovery): every operation that takes an
 * x402 payment carries it, and a fixed price is `x-price-atomic` in USD (USDC has 6 decimals).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

const doc = parse(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8'));
const operations = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((item) =>
  Object.entries(item)
    .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
    .map(([, op]) => op),
);

/** Atomic USDC (6 decimals) as a USD decimal string, without float arithmetic. */
const usd = (atomic: string) => {
  const s = atomic.padStart(7, '0');
  return `${s.slice(0, -6)}.${s.slice(-6)}`.replace(/\.?0+$/, '');
};

test('every paid operation (security offers xPayment, and mcp) has x-payment-info; fixed prices equal x-price-atomic', () => {
  const paid = operations.filter((op) => op.operationId === 'mcp' || (op.security ?? []).some((s: Record<string, unknown>) => 'xPayment' in s));
  assert.deepEqual(paid.map((op) => op.operationId).sort(), ['callSellerEndpoint', 'invoiceExtract', 'mcp', 'pdfJson', 'pdfMd', 'pdfText']);
  for (const op of paid) {
    const info = op['x-payment-info'];
    assert.ok(info, `${op.operationId} has x-payment-info`);
    assert.deepEqual(info.protocols, [{ x402: {} }], op.operationId);
    assert.equal(info.price.currency, 'USD', op.operationId);
    if (op['x-price-atomic'] !== undefined) {
      assert.deepEqual(info.price, { mode: 'fixed', currency: 'USD', amount: usd(op['x-price-atomic']) }, op.operationId);
    } else {
      // A seller endpoint's or a tool's price is its own: the 402 says it.
      assert.deepEqual(info.price, { mode: 'dynamic', currency: 'USD' }, op.operationId);
    }
  }
  // Free operations do not claim a price.
  assert.ok(operations.filter((op) => !paid.includes(op)).every((op) => op['x-payment-info'] === undefined));
});
