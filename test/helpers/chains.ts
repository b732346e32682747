/** Assertions shared by the chain adapter suites. */
import assert from 'node:assert/strict';
import type { TxLookup } from '../../src/chains/chain-adapter.ts';
import { ChainError } from '../../src/chains/chain-error.ts';

export const confirmed = (found: TxLookup) => {
  assert.equal(found.status, 'confirmed', `expected confirmed, got ${found.status}`);
  return found as Extract<TxLookup, { status: 'confirmed' }>;
};

/** The ChainError reason a chain operation was refused with. */
export async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof ChainError, `expected a ChainError, got ${String(e)}`);
    return e.reason;
  }
  assert.fail('expected a refusal');
}
