/** Settlement configuration: the defaults the spec and DESIGN.md fix, and bad values named. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { settlementCutoff } from '../../src/settlement/daily.ts';
import { retryDelayMs } from '../../src/settlement/payout-worker.ts';

test('defaults: minimum 10000, one requested payout an hour, 30 min to confirm, back-off from 1 min to 1 h', () => {
  const s = loadConfig({}).settlement;
  assert.deepEqual(s, { minAtomic: 10_000n, requestIntervalSeconds: 3_600, confirmTimeoutSeconds: 1_800, retryBaseMs: 60_000, retryMaxMs: 3_600_000, pollMs: 5_000, leaseMs: 300_000 });
  assert.deepEqual([0, 1, 2, 6, 7, 40].map((a) => retryDelayMs(s, a)), [60_000, 120_000, 240_000, 3_600_000, 3_600_000, 3_600_000]);
});

test('a bad value stops the start naming the variable', () => {
  for (const [name, value] of [['PAYOUT_MIN_ATOMIC', '0'], ['PAYOUT_MIN_ATOMIC', '1.5'], ['PAYOUT_REQUEST_INTERVAL_SECONDS', '-1'], ['PAYOUT_RETRY_BASE_MS', 'soon'], ['PAYOUT_LEASE_MS', '10']]) {
    assert.throws(() => loadConfig({ [name]: value }), (e: unknown) => e instanceof ConfigError && e.variable === name, `${name}=${value}`);
  }
});

test('the cut-off is 00:00 UTC of the clock day, whatever the time of day', () => {
  assert.deepEqual(settlementCutoff(new Date('2026-11-24T00:00:00.000Z')), { day: '2026-11-24', cutoff: new Date('2026-11-24T00:00:00.000Z') });
  assert.deepEqual(settlementCutoff(new Date('2026-11-24T23:59:59.999Z')), { day: '2026-11-24', cutoff: new Date('2026-11-24T00:00:00.000Z') });
  assert.deepEqual(settlementCutoff(new Date('2026-12-31T23:00:00-05:00')), { day: '2027-01-01', cutoff: new Date('2027-01-01T00:00:00.000Z') });
});
