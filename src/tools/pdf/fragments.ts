/**
 * Runs -> fragments: runs on one baseline with no wide gap between them, a line of a
 * paragraph or a table cell.
 */
import { boxOf } from './geometry.ts';
import type { Fragment, TextRun } from './text-types.ts';

/**
 * Comparators for sort, made once here: a comparator written inline is a new closure per call,
 * and V8 drops a closure's optimized code once its closures are collected, so the inline ones
 * were compiled again and again (--trace-opt: every pass over a suite, never settling).
 */
export const ascending = (a: number, b: number): number => a - b;
export const byX0 = (a: { x0: number }, b: { x0: number }): number => a.x0 - b.x0;
export const byBaseline = (a: { baseline: number }, b: { baseline: number }): number => a.baseline - b.baseline;
/** Intervals ([start, end]) by start. */
export const byFirst = (a: [number, number], b: [number, number]): number => a[0] - b[0];
/**
 * The boxes' widths, by push: arrays made by map are packed from the builtin and holey from
 * TurboFan's inlined map, and median and its callers deoptimized on each kind ("wrong map").
 */
export function widthsOf(boxes: { x0: number; x1: number }[]): number[] {
  const widths: number[] = [];
  for (const b of boxes) widths.push(b.x1 - b.x0);
  return widths;
}
export const byBaselineThenX0 = (a: { baseline: number; x0: number }, b: { baseline: number; x0: number }): number => a.baseline - b.baseline || a.x0 - b.x0;

/**
 * The body text's size: the size (to half a point) most characters are set in; the first seen
 * on a tie, `fallback` with no text at all.
 */
export function mostUsedSize(items: Iterable<{ size: number; text: string }>, fallback = 0): number {
  const chars = new Map<number, number>();
  for (const f of items) {
    const size = Math.round(f.size * 2) / 2;
    chars.set(size, (chars.get(size) ?? 0) + f.text.length);
  }
  let best = fallback;
  let most = -1;
  for (const [size, n] of chars) if (n > most) [best, most] = [size, n];
  return best;
}

export const median = (values: number[]): number => {
  if (values.length === 0) return 0;
  if (values.length === 1) return values[0];
  if (values.length <= 16 && !values.some(Number.isNaN)) {
    // A stable insertion sort of a copy: the same order as Array.prototype.sort (also stable)
    // with this comparator, without its work array; most calls sort a handful of values.
    const s = values.slice();
    for (let i = 1; i < s.length; i++) {
      const v = s[i];
      let k = i;
      while (k > 0 && s[k - 1] - v > 0) {
        s[k] = s[k - 1];
        k--;
      }
      s[k] = v;
    }
    return s[Math.floor(s.length / 2)];
  }
  const s = [...values].sort(ascending);
  return s[Math.floor(s.length / 2)];
};

/**
 * items.sort((a, b) => key(a) - key(b)), in place: for a few items (and no NaN key) by a stable
 * insertion sort, which gives the same order as the (stable) built-in sort without its work
 * array; most sorts in the layout are of a handful of runs or fragments.
 */
export function sortByKey<T>(items: T[], key: (item: T) => number): T[] {
  if (items.length < 2) return items;
  if (items.length > 16 || items.some((item) => Number.isNaN(key(item)))) return items.sort((a, b) => key(a) - key(b));
  for (let i = 1; i < items.length; i++) {
    const item = items[i];
    const k = key(item);
    let j = i;
    while (j > 0 && key(items[j - 1]) - k > 0) {
      items[j] = items[j - 1];
      j--;
    }
    items[j] = item;
  }
  return items;
}

export const dominantBy = <T>(runs: TextRun[], key: (r: TextRun) => T): T => {
  // One run (most lines, most blocks of one line): its value, without a map.
  if (runs.length === 1) return key(runs[0]);
  if (runs.length <= 16) {
    // Few runs (most lines of several): the same count in two small arrays, no Map. Keys
    // compare as a Map's do (SameValueZero); the first key to reach the largest count wins.
    const keys: T[] = [];
    const chars: number[] = [];
    for (const r of runs) {
      const k = key(r);
      let i = 0;
      while (i < keys.length && !(keys[i] === k || (keys[i] !== keys[i] && k !== k))) i++;
      if (i === keys.length) {
        // A Map keeps -0 as +0.
        keys.push(Object.is(k, -0) ? (0 as T) : k);
        chars.push(r.text.length);
      } else chars[i] += r.text.length;
    }
    let best = 0;
    for (let i = 1; i < keys.length; i++) if (chars[i] > chars[best]) best = i;
    return keys[best];
  }
  const counts = new Map<T, number>();
  for (const r of runs) {
    const k = key(r);
    counts.set(k, (counts.get(k) ?? 0) + r.text.length);
  }
  let best = key(runs[0]);
  let bestN = -1;
  for (const [k, n] of counts) {
    if (n > bestN) {
      best = k;
      bestN = n;
    }
  }
  return best;
};

/** Whether the code unit is whitespace to JavaScript (\s, and what trim() removes). */
const isJsSpace = (c: number): boolean =>
  c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;

/**
 * s.replace(/\s+/g, ' ').trim(), without the two new strings when s has nothing to change (most
 * runs: single spaces between words, none at the ends).
 */
export function collapseSpaces(s: string): string {
  // Starts as if after a space, so a leading space takes the slow path too.
  let afterSpace = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 32) {
      if (afterSpace) return s.replace(/\s+/g, ' ').trim();
      afterSpace = true;
    } else if (c < 0x21 || c >= 0xa0 ? isJsSpace(c) : false) return s.replace(/\s+/g, ' ').trim();
    else afterSpace = false;
  }
  return afterSpace && s.length ? s.replace(/\s+/g, ' ').trim() : s;
}

/**
 * A run off its line: smaller than the line's largest size, or off its baseline. (At module
 * level: a named closure inside a function costs a defineProperty per creation under tsx.)
 */
const isScript = (r: TextRun, maxSize: number, baseline: number) => r.size < SCRIPT_SIZE * maxSize || Math.abs(r.baseline - baseline) > 0.15 * maxSize;
/**
 * A mark set well off the line (an accent, a footnote number), not a glyph a font draws a little
 * high. A smaller run must be off the baseline too: a browser sets <code> a size smaller on the
 * line's own baseline ("host/year/yday"), and the text after it is no word after a mark.
 */
const isMark = (r: TextRun, maxSize: number, baseline: number) => {
  const off = Math.abs(r.baseline - baseline);
  return off > 0.3 * maxSize || (r.size < SCRIPT_SIZE * maxSize && off > 0.1 * maxSize);
};

export function makeFragment(runs: TextRun[]): Fragment {
  // Most fragments are one run (a line set in one text object): the general case below
  // reduced to it, without its arrays and maps.
  if (runs.length === 1) {
    const r = runs[0];
    const size = Math.round((Math.round(r.size * 10) / 10) * 10) / 10;
    return { runs, text: collapseSpaces(r.text), x0: r.x0, x1: r.x1, baseline: r.baseline, top: r.top, bottom: r.bottom, size, fontId: r.fontId };
  }
  let text = '';
  let prev: TextRun | null = null;
  let maxSize = 0;
  for (const r of runs) if (r.size > maxSize) maxSize = r.size;
  const baselines: number[] = [];
  for (const r of runs) if (r.size >= SCRIPT_SIZE * maxSize) baselines.push(r.baseline);
  const baseline = median(baselines);
  // The last code unit of `text` (-1 while empty): /\s$/ on the text as it grows would flatten
  // the concatenated string at every run.
  let lastCode = -1;
  // The last run on the line's own baseline: after a script, the word space is measured from it.
  let lastNormal: TextRun | null = null;
  for (const r of runs) {
    if (prev) {
      const gap = r.x0 - prev.x1;
      const space = 0.15 * Math.min(prev.size, r.size);
      // A raised mark that opens a line is a footnote's number: a word of its own ("4 WGM occur").
      const leadingMark = prev === runs[0] && prev.size < SCRIPT_SIZE * r.size && prev.baseline < r.baseline - 0.2 * r.size && gap > -0.05 * r.size;
      // After a script not kerned into the next letter, the gap from the text before it counts.
      const afterScript = lastNormal !== null && prev !== lastNormal && isMark(prev, maxSize, baseline) && !isScript(r, maxSize, baseline) && gap >= 0 && r.x0 - lastNormal.x1 > space;
      const needsSpace = (leadingMark || afterScript || gap > space) && !isJsSpace(lastCode) && !isJsSpace(r.text.charCodeAt(0));
      if (needsSpace) {
        text += ' ';
        lastCode = 32;
      }
    }
    text += r.text;
    if (r.text.length) lastCode = r.text.charCodeAt(r.text.length - 1);
    prev = r;
    if (!isScript(r, maxSize, baseline)) lastNormal = r;
  }
  const { x0, x1, top, bottom } = boxOf(runs);
  return {
    runs,
    text: collapseSpaces(text),
    x0,
    x1,
    // The baseline of the line's own text: a raised footnote mark or a lowered index (attached
    // by attachScripts) does not move it.
    baseline,
    top,
    bottom,
    size: Math.round(dominantBy(runs, (r) => Math.round(r.size * 10) / 10) * 10) / 10,
    fontId: dominantBy(runs, (r) => r.fontId),
  };
}

/** Runs whose baselines are this close (relative to the font size) share a line. */
export const SAME_LINE = 0.35;
/** A horizontal gap wider than this many font sizes separates fragments (columns, table cells). */
const FRAGMENT_GAP = 1.2;

/** A run this much smaller than a line's text, raised or lowered against it, may be its script. */
const SCRIPT_SIZE = 0.85;

/** Whether run r reaches within 0.3 font sizes of a run of the line at least `size` large. */
const touches = (r: TextRun, line: TextRun[], size: number) => line.some((q) => q.size >= size && r.x0 <= q.x1 + 0.3 * q.size && r.x1 >= q.x0 - 0.3 * q.size);

/** A line's own baseline: that of its first run of text at least `size` large (not a script's). */
const baselineOf = (line: TextRun[], size: number) => (line.find((q) => q.size >= SCRIPT_SIZE * size) ?? line[0]).baseline;

/** Whether a small run r touches a run of text of its line (not itself) large enough to be that line's. */
const sharesLine = (r: TextRun, line: TextRun[]) => line.some((q) => q !== r && q.size >= r.size / SCRIPT_SIZE && r.x0 <= q.x1 + 0.3 * q.size && r.x1 >= q.x0 - 0.3 * q.size);

/**
 * Superscripts and subscripts (footnote marks, the raised A of the LaTeX logo, indices) sit
 * too far off their line's baseline to share it, so they would become a line of their own
 * between two lines of text and cut a paragraph there. A small run raised up to 0.75 of the
 * size of the line below it, or lowered up to half of it against the line above, and touching
 * a run of that line, joins that line (pdftotext keeps them in the line too); so does a
 * letter lowered at full size (the E of the TeX logo).
 */
function attachScripts(lines: TextRun[][]): void {
  if (lines.length < 2) return;
  const sizes = lines.map((line) => line.reduce((m, q) => Math.max(m, q.size), 0));
  const attached = new Set<TextRun>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    for (let k = 0; k < line.length; k++) {
      const r = line[k];
      // Cheap test first: most runs are not smaller than their neighbours' text.
      // A letter or two lowered at full size is the E of the TeX logo.
      const letter = r.text.trim().length <= 2;
      const lowered = /^\p{Lu}$/u.test(r.text.trim());
      if ((!letter && r.size > SCRIPT_SIZE * Math.max(sizes[i - 1] ?? 0, sizes[i + 1] ?? 0)) || attached.has(r)) continue;
      // Already on a line beside that line's own text: it stays there. (The raised A of the LaTeX
      // logo shares its line with the L; the lowered E beside it forms a line of its own below,
      // which the A would otherwise join before that E goes back up, leaving the A alone.)
      if (sharesLine(r, line)) continue;
      let target: TextRun[] | null = null;
      const below = lines[i + 1];
      const above = lines[i - 1];
      if (below && below.length) {
        const d = below[0].baseline - r.baseline;
        if (d > 0 && d <= 0.75 * sizes[i + 1] && touches(r, below, r.size / SCRIPT_SIZE)) target = below;
      }
      if (!target && above && above.length) {
        // (A lowered capital, the E of a TeX logo, measured from the line's own text: the raised A
        // of "LaTeX" may open that line, sorted first by its baseline.)
        const d = r.baseline - (lowered && r.size >= SCRIPT_SIZE * sizes[i - 1] ? baselineOf(above, sizes[i - 1]) : above[0].baseline);
        if (d > 0 && d <= 0.5 * sizes[i - 1] && touches(r, above, letter ? r.size * SCRIPT_SIZE : r.size / SCRIPT_SIZE)) target = above;
      }
      if (!target) continue;
      target.push(r);
      attached.add(r);
      line[k] = line[line.length - 1];
      line.pop();
      k--;
    }
  }
  for (let i = lines.length - 1; i >= 0; i--) if (!lines[i].length) lines.splice(i, 1);
}

const x0Of = (r: TextRun) => r.x0;

/** Groups runs into lines, and splits each line at wide gaps into fragments. */
export function buildFragments(runs: TextRun[], gapFactor = FRAGMENT_GAP): Fragment[] {
  const sorted = [...runs].sort(byBaselineThenX0);
  const lines: TextRun[][] = [];
  for (const run of sorted) {
    const line = lines[lines.length - 1];
    if (line && Math.abs(run.baseline - line[0].baseline) <= SAME_LINE * Math.max(run.size, line[0].size)) line.push(run);
    else lines.push([run]);
  }
  attachScripts(lines);
  const fragments: Fragment[] = [];
  for (const line of lines) {
    sortByKey(line, x0Of);
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
