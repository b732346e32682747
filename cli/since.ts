/**
 * `--since`: a duration back from now (`90m`, `1h`, `2d`, `1w`), a UTC date (`2026-11-25`) or
 * date-time (`2026-11-25T08:00:00Z`), or Unix seconds. Answers Unix seconds for the API.
 */
import { InvalidArgumentError } from 'commander';

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

export function parseSince(v: string, now: number = Date.now()): number {
  const nowSeconds = Math.floor(now / 1000);
  const rel = /^(\d{1,6})([smhdw])$/.exec(v);
  if (rel) return nowSeconds - Number(rel[1]) * UNIT_SECONDS[rel[2]];
  if (/^\d{9,12}$/.test(v)) return Number(v);
  if (/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v)) {
    // A bare date is midnight UTC (Date.parse reads date-only forms as UTC; date-times without a zone as local time, so add Z).
    const ms = Date.parse(/T[\d:.]+$/.test(v) ? `${v}Z` : v);
    if (Number.isFinite(ms)) return Math.floor(ms / 1000);
  }
  throw new InvalidArgumentError('give a duration back from now (30m, 1h, 2d, 1w), a date (2026-11-25) or Unix seconds');
}
