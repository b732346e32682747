/**
 * Turns a page's characters (from PDFium) into text fragments in reading order. Everything
 * is computed in a "reading frame": the page turned so that its dominant text direction runs
 * left to right with y growing downwards. That one normalisation covers /Rotate pages,
 * landscape pages drawn sideways and upside-down scans with a text layer, so the ordering
 * code below only ever deals with horizontal text.
 */
import { fontNameOf, isBoldFont } from './page-fonts.ts';
import { boxOf } from './geometry.ts';
import { ascending, byBaselineThenX0, byFirst, byX0, dominantBy, median, SAME_LINE, sortByKey, widthsOf } from './fragments.ts';
import type { PdfPage } from './open-pdf.ts';
import { readPdfiumRuns } from './pdfium-runs.ts';
import { layoutRuns } from './text-runs.ts';
import type { Fragment, PageText, TextRun } from './text-types.ts';

// The layout's vocabulary, re-exported (downward) for the tools that use it.
export type { Frame } from './geometry.ts';
export { applyMatrix, displayTransform, makeFrame, multiplyMatrix } from './geometry.ts';
export type { Fragment, PageText, RawPageText, RawRun, TextRun } from './text-types.ts';
export { buildFragments, makeFragment } from './fragments.ts';
export { readPdfiumRuns } from './pdfium-runs.ts';

/**
 * Reads the text layer of one page into fragments positioned in its reading frame: from the
 * fast content-stream reader when it understands the page (fast-text/), else from PDFium.
 */
export function readPageText(page: PdfPage): PageText {
  return layoutRuns(page.fastText() ?? readPdfiumRuns(page));
}

// ---------------------------------------------------------------------------------------
// Reading order: a recursive XY-cut with a preference for text columns.

/** The part of a fragment's box that ink reliably occupies; full boxes of adjacent lines overlap. */
const coreTop = (f: { baseline: number; size: number; top: number }) => Math.max(f.top, f.baseline - 0.7 * f.size);
const coreBottom = (f: { baseline: number; size: number; bottom: number }) => Math.min(f.bottom, f.baseline + 0.15 * f.size);

interface Gap {
  start: number;
  end: number;
}

/** Gaps widest first, a comparator made once (see fragments.ts' comparators). */
const widestFirst = (a: Gap, b: Gap): number => b.end - b.start - (a.end - a.start);

/** Whitespace bands in the projection of the intervals, largest first. */
function gapsOf(intervals: [number, number][]): Gap[] {
  const sorted = [...intervals].sort(byFirst);
  const gaps: Gap[] = [];
  let reach = sorted[0][1];
  for (let i = 1; i < sorted.length; i++) {
    const [s, e] = sorted[i];
    if (s > reach) gaps.push({ start: reach, end: s });
    reach = Math.max(reach, e);
  }
  return gaps.sort(widestFirst);
}

/**
 * gapsOf over intervals given as two arrays (starts[i] .. ends[i]), without an array per
 * interval, and for the small sets of the XY-cut's deeper levels ordered by a stable insertion
 * sort instead of Array.prototype.sort (which copies the array): the same order, so the same
 * gaps. NaN (no order to speak of) goes to gapsOf.
 */
function spanGaps(starts: number[], ends: number[]): Gap[] {
  const n = starts.length;
  if (n > 32 || starts.some(Number.isNaN)) return gapsOf(starts.map((s, i) => [s, ends[i]]));
  const order: number[] = [];
  for (let i = 0; i < n; i++) {
    let k = i;
    while (k > 0 && starts[order[k - 1]] > starts[i]) {
      order[k] = order[k - 1];
      k--;
    }
    order[k] = i;
  }
  const gaps: Gap[] = [];
  let reach = ends[order[0]];
  for (let i = 1; i < n; i++) {
    const s = starts[order[i]];
    if (s > reach) gaps.push({ start: reach, end: s });
    reach = Math.max(reach, ends[order[i]]);
  }
  return gaps.length > 1 ? gaps.sort(widestFirst) : gaps;
}

/** Distinct lines among fragments (baselines more than half a font size apart). */
const lineCount = (frags: Fragment[]): number => {
  // By push, not map: see widthsOf.
  const baselines: number[] = [];
  for (const f of frags) baselines.push(f.baseline);
  baselines.sort(ascending);
  let n = 0;
  let last = -Infinity;
  for (const b of baselines) {
    if (b - last > 2) n++;
    last = b;
  }
  return n;
};

/**
 * A side of a vertical gap reads as a column of running text (not a table column) when it
 * has several lines and its lines are long. Table columns (quantities, prices) are short,
 * and cutting them vertically would read a table column by column.
 */
function isTextColumn(frags: Fragment[], bodySize: number): boolean {
  if (lineCount(frags) < 2) return false;
  const width = median(widthsOf(frags));
  if (width >= 12 * bodySize) return true;
  // Or narrower lines of running words, a margin note's beside the text ("After you have read
  // the text / on the right, you can view"): 22 characters a line and more, where a table
  // column's cells are a word or a number.
  // (Not an index's or a contents list's column: lines that end in page numbers.)
  if (width < 6 * bodySize) return false;
  const chars: number[] = [];
  let numbered = 0;
  for (const f of frags) {
    chars.push(f.text?.length ?? 0);
    if (/\d\s*$/.test(f.text ?? '')) numbered++;
  }
  return median(chars) >= 22 && numbered <= 0.1 * frags.length;
}

export interface Box {
  x0: number;
  x1: number;
  baseline: number;
  top: number;
  bottom: number;
  size: number;
}

/**
 * One step of readingOrder's XY-cut: the set's boxes in reading order onto `out`. (At module
 * level, not a closure in readingOrder: V8 drops a closure's optimized code once its closures
 * are collected, so the closure was compiled again page after page.)
 */
function xyCut<T extends Box & { text?: string }>(set: T[], out: T[], bodySize: number): void {
  if (set.length <= 1) {
    out.push(...set);
    return;
  }
  const starts: number[] = [];
  const ends: number[] = [];
  for (const f of set) {
    starts.push(f.x0);
    ends.push(f.x1);
  }
  const xGaps = spanGaps(starts, ends);
  for (const g of xGaps) {
    if (g.end - g.start < 0.8 * bodySize) break;
    const mid = (g.start + g.end) / 2;
    const left = set.filter((f) => f.x1 <= mid);
    const right = set.filter((f) => f.x0 >= mid);
    if (isTextColumn(left as unknown as Fragment[], bodySize) && isTextColumn(right as unknown as Fragment[], bodySize)) {
      xyCut(left, out, bodySize);
      xyCut(right, out, bodySize);
      return;
    }
  }
  for (let i = 0; i < set.length; i++) {
    starts[i] = coreTop(set[i]);
    ends[i] = coreBottom(set[i]);
  }
  const yGaps = spanGaps(starts, ends);
  if (yGaps.length) {
    // Cut at every gap about as wide as the widest at once: a column of evenly spaced
    // lines becomes bands in one step instead of one recursion level per line.
    const widest = yGaps[0].end - yGaps[0].start;
    // By push, not filter and map: see widthsOf.
    const cuts: number[] = [];
    for (const g of yGaps) if (g.end - g.start >= widest * 0.9) cuts.push((g.start + g.end) / 2);
    cuts.sort(ascending);
    const sorted = sortByKey([...set], coreTop);
    let band: T[] = [];
    let next = 0;
    for (const f of sorted) {
      while (next < cuts.length && coreTop(f) >= cuts[next]) {
        if (band.length) xyCut(band, out, bodySize);
        band = [];
        next++;
      }
      band.push(f);
    }
    xyCut(band, out, bodySize);
    return;
  }
  if (xGaps.length) {
    // One row of cells: all cuts at once, left to right.
    const sorted = [...set].sort(byX0);
    const groups: T[][] = [];
    let reach = -Infinity;
    for (const f of sorted) {
      if (f.x0 > reach) groups.push([]);
      groups[groups.length - 1].push(f);
      reach = Math.max(reach, f.x1);
    }
    if (groups.length > 1) {
      for (const g of groups) xyCut(g, out, bodySize);
      return;
    }
  }
  out.push(...[...set].sort(byBaselineThenX0));
}

/** Orders boxes for reading: top to bottom, columns left to right, table rows row by row. */
export function readingOrder<T extends Box & { text?: string }>(items: T[]): T[] {
  if (items.length <= 1) return [...items];
  const bodySize = median(items.map((f) => f.size)) || 10;
  const out: T[] = [];
  xyCut(items, out, bodySize);
  return out;
}

// ---------------------------------------------------------------------------------------
// Blocks: consecutive fragments of one paragraph.

export interface Block {
  lines: Fragment[];
  x0: number;
  x1: number;
  top: number;
  bottom: number;
  size: number;
  fontId: string;
}

const roundedSize = (r: TextRun) => Math.round(r.size * 10) / 10;
const fontIdOf = (r: TextRun) => r.fontId;

const sameRow = (a: Box, b: Box) => Math.abs(a.baseline - b.baseline) <= SAME_LINE * Math.max(a.size, b.size);

/** Groups fragments (already in reading order) into paragraphs. */
export function buildBlocks(ordered: Fragment[]): Block[] {
  // By push, not .map/.flatMap: their results change elements kind with the tier of the code
  // that made them, and the callers deoptimized 'wrong map' on them (V8 recompile churn).
  const blocks: Block[] = [];
  for (const lines of groupBlocks(ordered)) {
    const { x0, x1, top, bottom } = boxOf(lines);
    let runs = lines[0].runs;
    if (lines.length !== 1) {
      runs = [];
      for (const f of lines) for (const r of f.runs) runs.push(r);
    }
    blocks.push({
      lines,
      x0,
      x1,
      top,
      bottom,
      size: dominantBy(runs, roundedSize),
      fontId: dominantBy(runs, fontIdOf),
    });
  }
  return blocks;
}

/**
 * The lines of each paragraph of buildBlocks, without the paragraph's box, size and font:
 * all that plain text needs to tell a line break from a paragraph break.
 */
/** Whether a fragment is set in a bold face (by its font's name). */
const boldOf = (f: Fragment): boolean => isBoldFont(fontNameOf(f.fontId));

/**
 * A bold line alone over a line in another weight that starts at its left edge or indented from
 * it, further below than a paragraph's lines are apart: a heading at the body size over its
 * paragraph (groff ms's .NH over .LP or .PP, set off by the paragraph spacing only), not the
 * paragraph's first line.
 */
const headingOverParagraph = (current: Fragment[], f: Fragment, step: number): boolean =>
  current.length === 1 && step >= 1.4 * f.size && f.x0 >= current[0].x0 - 1 && boldOf(current[0]) && !boldOf(f);

/**
 * A bold line alone, set out left of the text's common left edge, over a line that starts at
 * that edge: a man page's heading (.SS half way out, .SH at the margin) over its paragraph, at
 * the paragraph's own line spacing. The line under it may be bold too ("SEE ALSO" over a list
 * of names in bold) when the heading is a size larger. A tag of a tagged paragraph sits at the
 * edge itself, its text indented further: it stays. Alone on its row (a contents line's page number
 * beside it makes it no heading), and not numbered (an outline's "1 Introduction" over its
 * entries).
 */
const outdentedHeading = (current: Fragment[], f: Fragment, left: number, alone: (f: Fragment) => boolean): boolean =>
  current.length === 1 && boldOf(current[0]) && alone(current[0]) && !/^\d/.test(current[0].text) && Math.abs(f.x0 - left) <= 1 && current[0].x0 <= left - f.size && (!boldOf(f) || current[0].size >= 1.05 * f.size);

/** The x-position most lines start at (to the point): the text's left edge. */
export function commonLeft(lines: Fragment[]): number {
  const counts = new Map<number, number>();
  let best = NaN;
  let most = 0;
  for (const f of lines) {
    const x = Math.round(f.x0);
    const n = (counts.get(x) ?? 0) + 1;
    counts.set(x, n);
    if (n > most) {
      most = n;
      best = x;
    }
  }
  return best;
}

export function groupBlocks(ordered: Fragment[]): Fragment[][] {
  const blocks: Fragment[][] = [];
  let current: Fragment[] = [];
  const left = commonLeft(ordered);
  const rows = new Map<number, number>();
  for (const f of ordered) rows.set(Math.round(f.baseline), (rows.get(Math.round(f.baseline)) ?? 0) + 1);
  const alone = (f: Fragment): boolean => rows.get(Math.round(f.baseline)) === 1;
  const flush = () => {
    if (current.length) splitAtIndents(current, blocks);
    current = [];
  };
  // The step from a heading parted by outdentedHeading to its paragraph's first line, when it is
  // as close as lines are: that paragraph's line spacing, as a second line would show it.
  let headStep: number | null = null;
  for (const f of ordered) {
    const last = current[current.length - 1];
    if (last) {
      const step = f.baseline - last.baseline;
      const prevStep = current.length >= 2 ? last.baseline - current[current.length - 2].baseline : current.length === 1 ? headStep : null;
      const maxStep = prevStep !== null ? Math.max(prevStep * 1.3, last.size * 1.05) : Math.max(last.size, f.size) * 1.8;
      const overlaps = f.x0 < last.x1 && f.x1 > last.x0;
      // (Sizes a step apart in one weight may be one paragraph's; a bold line a size larger over
      // a line of another weight is a heading over its paragraph: \large bold "1.1 Apples"
      // in an 11pt document is within 12 % of the text under it.)
      const sameSize = Math.abs(f.size - last.size) <= 0.12 * Math.max(f.size, last.size) && !(Math.abs(f.size - last.size) > 0.05 * Math.max(f.size, last.size) && boldOf(f) !== boldOf(last));
      const outdented = outdentedHeading(current, f, left, alone);
      // (Nor does a line of text go on into such a heading under it: it starts a block.)
      const heads = boldOf(f) && !boldOf(last) && alone(f) && f.x0 <= left - f.size && !/^\d/.test(f.text);
      if (!(step > 0 && step <= maxStep && overlaps && sameSize && !sameRow(f, last)) || headingOverParagraph(current, f, step) || outdented || heads) {
        flush();
        headStep = outdented && step <= 1.5 * f.size ? step : null;
      }
    }
    current.push(f);
  }
  flush();
  return blocks;
}

/** A list item's marker at a line's start: a bullet or dash, or a number or letter with "." or ")". */
const LIST_MARKER = /^(?:[•◦▪▫‣●○■□·∙–—*+-]|\(?(?:\d{1,3}|[a-zA-Z]|[ivxIVX]{1,4})[.)])\s/u;

/**
 * Paragraphs set with no space between them (LaTeX's \parskip 0, a first-line indent in a word
 * processor) show where one starts only by its first line's indent: a line that starts 0.7 to
 * 4.5 font sizes right of the lines just before and after it, which start together, and that
 * runs to the block's right edge as a paragraph's first line does, starts a paragraph (a
 * centred line ends short and stays). Not in a block set with a hanging indent (a list of
 * references: each entry's first line at the left, the rest indented), which shows itself by
 * two indented lines in a row, or by its indented lines following full lines more often than
 * short ones (a paragraph's last line, before the next one's indent, is mostly short). The
 * lines' blocks go onto `out`.
 */
function splitAtIndents(lines: Fragment[], out: Fragment[][]): void {
  if (lines.length < 3) {
    out.push(lines);
    return;
  }
  let right = -Infinity;
  let left = Infinity;
  for (const l of lines) {
    if (l.x1 > right) right = l.x1;
    if (l.x0 < left) left = l.x0;
  }
  // Two indented lines in a row: a hanging indent's entry of three lines or more.
  for (let i = 1; i < lines.length; i++) {
    const f = lines[i];
    if (Math.abs(lines[i - 1].x0 - f.x0) <= 0.1 * f.size && f.x0 - left >= 0.7 * f.size && f.x0 - left <= 4.5 * f.size) {
      out.push(lines);
      return;
    }
  }
  const starts: number[] = [];
  let afterShort = 0;
  let afterFull = 0;
  for (let i = 1; i + 1 < lines.length; i++) {
    const f = lines[i];
    const prev = lines[i - 1];
    const next = lines[i + 1].x0;
    const indent = f.x0 - next;
    if (Math.abs(prev.x0 - next) > 0.1 * f.size || indent < 0.7 * f.size || indent > 4.5 * f.size) continue;
    // A line that ends in a comma or a broken word ends no paragraph (an index entry's pages run on),
    // and a list item's text goes on under its own start, right of the marker ("– argument ...").
    if (/[,\-‐]$/.test(prev.text) || LIST_MARKER.test(prev.text) || prev.runs.some((r) => Math.abs(r.x0 - f.x0) <= 0.1 * f.size)) continue;
    if (prev.x1 < right - 2 * f.size) afterShort++;
    else if (prev.x1 >= right - 0.5 * f.size) afterFull++;
    if (f.x1 >= right - 0.5 * f.size) starts.push(i);
  }
  if (!starts.length || afterFull > afterShort) {
    out.push(lines);
    return;
  }
  let from = 0;
  for (const i of starts) {
    out.push(lines.slice(from, i));
    from = i;
  }
  out.push(lines.slice(from));
}

export const sameRowOf = sameRow;
export { median };
