/**
 * The pieces of `paycall` that are pure text: `--since` as people write it, the tables and
 * the USDC amounts. (The command itself runs against the service in test/cli/cli.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidArgumentError } from 'commander';
import { parseSince } from '../../cli/since.ts';
import { table, usdc } from '../../cli/output.ts';

test('--since: durations back from now, UTC dates and date-times, Unix seconds; anything else is refused', () => {
  const now = Date.UTC(2026, 10, 25, 14, 30, 15, 500);
  const nowS = Math.floor(now / 1000);
  assert.equal(parseSince('90s', now), nowS - 90);
  assert.equal(parseSince('30m', now), nowS - 1800);
  assert.equal(parseSince('1h', now), nowS - 3600);
  assert.equal(parseSince('2d', now), nowS - 2 * 86_400);
  assert.equal(parseSince('1w', now), nowS - 7 * 86_400);
  assert.equal(parseSince('2026-11-25', now), Date.UTC(2026, 10, 25) / 1000);
  assert.equal(parseSince('2026-11-25T08:00:00', now), Date.UTC(2026, 10, 25, 8) / 1000, 'a date-time without a zone is UTC');
  assert.equal(parseSince('2026-11-25T08:00:00+02:00', now), Date.UTC(2026, 10, 25, 6) / 1000);
  assert.equal(parseSince('1764000000', now), 1764000000);
  for (const bad of ['yesterday', '1x', '-1h', '2026-13-45', '2026-11-25T99:00:00Z', '12', '', '1.5h']) assert.throws(() => parseSince(bad, now), InvalidArgumentError, bad);
});

test('tables: a header row, columns padded to their widest cell, no trailing spaces, "-" for nothing', () => {
  assert.equal(
    table(['ID', 'PATH', 'LAST'], [
      [1, '/v1/a/long-path', 'x'],
      [22, '/v1/b', null],
    ]),
    ['ID  PATH             LAST', '1   /v1/a/long-path  x', '22  /v1/b            -'].join('\n'),
  );
});

test('USDC amounts from atomic units (6 decimals), exact for any size', () => {
  assert.deepEqual(['0', '1', '19200', '1000000', '123456789012345678901'].map((v) => usdc(v)), ['0 USDC', '0.000001 USDC', '0.0192 USDC', '1 USDC', '123456789012345.678901 USDC']);
});
