/**
 * Runs -> fragments: runs on one baseline with no wide gap between them, a line of a
 * paragraph or a table cell.
 */
import type { Fragment, TextRun } from './text-types.ts';

export const median = (values: number[]): number => {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

export const dominantBy = <T>(runs: TextRun[], key: (r: TextRun) => T): T => {
  const counts = new Map<T, number>();
  for (const r of runs) counts.set(key(r), (counts.get(key(r)) ?? 0) + r.text.length);
  let best = key(runs[0]);
  let bestN = -1;
  for (const [k, n] of counts) if (n > bestN) [best, bestN] = [k, n];
  return best;
};

export function makeFragment(runs: TextRun[]): Fragment {
  // Most fragments are one run (a line set in one text object): the general case below
  // reduced to it, without its arrays and maps.
  if (runs.length === 1) {
    const r = runs[0];
    const size = Math.round((Math.round(r.size * 10) / 10) * 10) / 10;
    return { runs, text: r.text.replace(/\s+/g, ' ').trim(), x0: r.x0, x1: r.x1, baseline: r.baseline, top: r.top, bottom: r.bottom, size, fontId: r.fontId };
  }
  let text = '';
  let prev: TextRun | null = null;
  for (const r of runs) {
    if (prev) {
      const gap = r.x0 - prev.x1;
      const needsSpace = gap > 0.15 * Math.min(prev.size, r.size) && !/\s$/.test(text) && !/^\s/.test(r.text);
      if (needsSpace) text += ' ';
    }
    text += r.text;
    prev = r;
  }
  return {
    runs,
    text: text.replace(/\s+/g, ' ').trim(),
    x0: Math.min(...runs.map((r) => r.x0)),
    x1: Math.max(...runs.map((r) => r.x1)),
    baseline: median(runs.map((r) => r.baseline)),
    top: Math.min(...runs.map((r) => r.top)),
    bottom: Math.max(...runs.map((r) => r.bottom)),
    size: Math.round(dominantBy(runs, (r) => Math.round(r.size * 10) / 10) * 10) / 10,
    fontId: dominantBy(runs, (r) => r.fontId),
  };
}

/** Runs whose baselines are this close (relative to the font size) share a line. */
export const SAME_LINE = 0.35;
/** A horizontal gap wider than this many font sizes separates fragments (columns, table cells). */
const FRAGMENT_GAP = 1.2;

/** Groups runs into lines, and splits each line at wide gaps into fragments. */
export function buildFragments(runs: TextRun[], gapFactor = FRAGMENT_GAP): Fragment[] {
  const sorted = [...runs].sort((a, b) => a.baseline - b.baseline || a.x0 - b.x0);
  const lines: TextRun[][] = [];
  for (const run of sorted) {
    const line = lines[lines.length - 1];
    if (line && Math.abs(run.baseline - line[0].baseline) <= SAME_LINE * Math.max(run.size, line[0].size)) line.push(run);
    else lines.push([run]);
  }
  const fragments: Fragment[] = [];
  for (const line of lines) {
    line.sort((a, b) => a.x0 - b.x0);
    let current: TextRun[] = [];
    // Right edge of the fragment so far, kept as runs join (a line of single-glyph runs would
    // otherwise cost a scan per run).
    let reach = -Infinity;
    for (const run of line) {
      const last = current[current.length - 1];
      if (last && run.x0 - reach > gapFactor * Math.max(last.size, run.size)) {
        fragments.push(makeFragment(current));
        current = [];
        reach = -Infinity;
      }
      current.push(run);
      if (run.x1 > reach) reach = run.x1;
    }
    if (current.length) fragments.push(makeFragment(current));
  }
  return fragments.filter((f) => f.text !== '');
}
