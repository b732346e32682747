/**
 * Errors keep their cause, and one helper walks the chain: a ChainError wrapping an RPC
 * outage is still seen as an outage (503, not a payment refusal), a cause cycle cannot loop,
 * and a ChainError's own walk finds the error it came from.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { walkCause } from '../../src/lib/walk-cause.ts';
import { ChainError, CHAIN_ERROR_REASONS } from '../../src/chains/chain-error.ts';
import { isDependencyUnavailable, toErrorAnswer } from '../../src/http/errors.ts';

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8545'), { code: 'ECONNREFUSED' });

test('walkCause finds the first matching error, the outer one first', () => {
  const root = refused();
  const middle = new Error('fetch failed', { cause: root });
  const top = new ChainError('confirmation_timeout', 'not mined in time', { cause: middle });
  assert.equal(walkCause(top, (e) => e instanceof ChainError), top);
  assert.equal(walkCause(top, (e) => (e as { code?: string }).code === 'ECONNREFUSED'), root);
  assert.equal(top.walk((e) => (e as Error).message === 'fetch failed'), middle);
  assert.equal(walkCause(top, () => false), null);
  assert.equal(walkCause(null, () => true), null);
});

test('walkCause stops on a cause cycle', () => {
  const a = new Error('a');
  const b = new Error('b', { cause: a });
  (a as { cause?: unknown }).cause = b;
  assert.equal(walkCause(a, () => false), null);
});

test('an outage under a ChainError is an outage: 503 service_unavailable, not a refusal', () => {
  const wrapped = new ChainError('confirmation_timeout', 'the node went away', { cause: new Error('request failed', { cause: refused() }) });
  assert.equal(isDependencyUnavailable(wrapped), true);
  const answer = toErrorAnswer(wrapped, 'req-1');
  assert.equal(answer.status, 503);
  assert.equal((answer.body as { error: string }).error, 'service_unavailable');
  assert.equal(isDependencyUnavailable(new ChainError('reverted', 'reverted on base')), false);
});

test('chain refusal reasons are one closed list of distinct snake_case codes', () => {
  assert.equal(new Set(CHAIN_ERROR_REASONS).size, CHAIN_ERROR_REASONS.length);
  for (const r of CHAIN_ERROR_REASONS) assert.match(r, /^[a-z][a-z0-9_]*$/);
});
