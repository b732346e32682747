/**
 * Tables without rules: rows of cells set apart by wide gaps whose left edges line up in
 * columns over several lines ("Directory   Description / bin   Essential command binaries").
 * Ruled tables are found from their lines (ruled-tables.ts); these only from x-positions.
 *
 * What is not a table, though it also lines up:
 * - two columns of running text (two columns whose lines are long: a table has at most one
 *   column of long cells);
 * - a numbered or bulleted list whose markers sit apart from the text (the first column is
 *   only markers);
 * - code listings (monospaced lines are the code block's, indentation and all) and
 *   table-of-contents lines.
 * A line with one fragment under a column other than the first continues the row above
 * (a cell that wraps); a cell that wraps in the first column does the same when the other
 * cells of its row are empty.
 *
 * Cells set closer than the gap that parts fragments (LaTeX's 2\tabcolsep after a column's
 * widest cell) are one fragment; they are cut apart where the gap lines up with a column
 * (cellPieces).
 *
 * Rows set wholly in a monospaced font (`isMono`) are a listing's unless other rows of the
 * run are not (Texinfo's @multitable of typewriter names under a header row in a text font,
 * or beside descriptions in it). Columns off the character grid of the font are no sign: a
 * listing whose spaces stretch (PassiveTeX) has them too.
 */
import type { Fragment } from './text-types.ts';
import type { Table } from './ruled-tables.ts';
import { ascending, byBaselineThenX0, byX0, makeFragment, median, widthsOf } from './fragments.ts';

export interface AlignedTable extends Table {
  fragments: Fragment[];
}

const MARKER = /^(?:[•◦▪▫‣●○■□·∙–—*+-]|\(?\d{1,2}[.)]?|\(?[a-z][.)]|[ivx]{1,4}[.)])$/u;

interface Row {
  fragments: Fragment[];
  baseline: number;
  size: number;
}

function rowsOf(fragments: Fragment[]): Row[] {
  const sorted = [...fragments].sort(byBaselineThenX0);
  const rows: Row[] = [];
  for (const f of sorted) {
    const last = rows[rows.length - 1];
    if (last && Math.abs(f.baseline - last.baseline) <= 0.35 * Math.max(f.size, last.size)) last.fragments.push(f);
    else rows.push({ fragments: [f], baseline: f.baseline, size: f.size });
  }
  for (const r of rows) r.fragments.sort(byX0);
  return rows;
}

/** A caption's label: "Table 4:", "Tab. 2.1.", "Figure 3:". */
export const CAPTION = /^(?:Table|Tab\.|Figure|Fig\.)\s*[\dIVX]+(?:\.\d+)*[:.]/;

/**
 * Captions set beside a table, in the margin (sidecap's SCtable, tufte-handout, a minipage in
 * the margin): a line that opens with a caption's label while other text stands on its line,
 * apart from it, with the lines under it (at its left edge or hanging in under the label's
 * words, a justified line in pieces) kept on its side of that text. They are the page's text,
 * not a first or last column of the table beside them.
 */
function sideCaptions(fragments: Fragment[]): Set<Fragment> {
  const out = new Set<Fragment>();
  for (const f of fragments) {
    if (!CAPTION.test(f.text.trim())) continue;
    const sameLine = fragments.filter((g) => g !== f && Math.abs(g.baseline - f.baseline) <= 0.5 * Math.max(f.size, g.size));
    // Text beside it on the right: past the first gap right of the label that runs empty down
    // the label's line and the two under it (a justified caption's stretched word spaces do
    // not: the words of the lines under it cover them).
    const band = fragments.filter((g) => g.x0 >= f.x0 - 1 && g.baseline > f.baseline - 0.5 * f.size && g.baseline <= f.baseline + 2.6 * f.size).sort(byX0);
    let x1 = f.x1;
    let limit = Infinity;
    for (const g of band) {
      if (g.x0 - x1 >= f.size && g.x0 > f.x1) {
        limit = g.x0;
        break;
      }
      x1 = Math.max(x1, g.x1);
    }
    const right = limit < Infinity && sameLine.some((g) => g.x0 >= limit - 1);
    const left = sameLine.some((g) => g.x1 <= f.x0 - f.size);
    if (!right && !left) continue;
    // Its side: from its left edge to the text right of it (or on, when the text is left of it).
    const onSide = (g: Fragment) => g.x0 >= f.x0 - 1 && (right ? g.x1 <= limit - 0.5 * f.size : g.x0 <= f.x1) && Math.abs(g.size - f.size) <= 0.2;
    for (const g of [f, ...sameLine.filter(onSide)]) out.add(g);
    let baseline = f.baseline;
    for (;;) {
      const next = fragments.filter((g) => g.baseline > baseline + 0.5 * f.size && g.baseline - baseline <= 1.6 * f.size && onSide(g));
      if (!next.length) break;
      const first = Math.min(...next.map((g) => g.baseline));
      const line = next.filter((g) => g.baseline - first <= 0.5 * f.size);
      for (const g of line) out.add(g);
      baseline = first;
    }
  }
  return out;
}

/**
 * The fragments' left edges, built by push: an array made by map is packed from the builtin and
 * holey from TurboFan's inlined map, and each kind `columns` came in deoptimized findAlignedTables
 * and the functions it calls ("wrong map"), over and over as their tiers changed.
 */
function x0sOf(fragments: Fragment[]): number[] {
  const xs: number[] = [];
  for (const f of fragments) xs.push(f.x0);
  return xs;
}

/** n empty cells, by push (see x0sOf). */
function emptyCells(n: number): string[] {
  const cells: string[] = [];
  for (let k = 0; k < n; k++) cells.push('');
  return cells;
}

/** A gap inside a fragment at least this many font sizes wide may part two cells (a word space is about 0.33). */
const CELL_GAP = 0.6;
/** How far (in font sizes) above or below a gap another line may hold the column start it lines up with. */
const CELL_REACH = 10;
/**
 * A spreadsheet printed without grid lines (LibreOffice Calc) draws each cell's text as a text
 * object of its own at the cell's left edge, and a column as wide as its widest entry leaves that
 * entry touching the next cell ("2010-04-292010-10-10"): no gap tells the cells apart. A run of
 * another text object that starts closer than CELL_GAP after the one before it (or overlaps it
 * by less than TIGHT_OVERLAP font sizes) is a cell's start when
 * - it is in the same font as the run before it (a sheet sets its cells in one; a symbol or a
 *   math sign in a font of its own is set close to its text), which holds a letter or a digit (a
 *   mark alone, a pilcrow, is set close before its text);
 * - it and the text before it both start where text starts, to TIGHT_TOL points, on at least
 *   TIGHT_LINES other lines within TIGHT_REACH font sizes (a column's cells), and a line of the
 *   page has a fragment or a wide gap there (some cells of a column, or its header, are shorter
 *   than it; lines that all open with the same words, a list's "Copyright ©", line up too);
 * - and cellEnd and clearGap hold (a paragraph's words set as objects of their own have the lines
 *   above and below across their gaps).
 */
const TIGHT_LINES = 4;
/** A run before a tight cut holds a letter or a digit: a mark alone (a pilcrow) is set close before its text. */
const WORDLIKE = /[\p{L}\p{N}]/u;
/** A sheet's column may be sparse (a date few rows have): its cells are looked for this far, in font sizes. */
const TIGHT_REACH = 30;
const TIGHT_TOL = 0.5;
const TIGHT_OVERLAP = 0.15;

/**
 * Fragments cut at gaps that part cells. Runs join into one fragment across gaps up to 1.2 font
 * sizes, and LaTeX sets a column's widest cell only 2\tabcolsep (12pt) before the next column:
 * at 10pt, and always at 11pt and up, "boolean" and "false" of an options table are one
 * fragment, "magenta Color for linked URLs." another. Such a gap is a cell's end when
 * - it is wider than any word space (CELL_GAP font sizes),
 * - the lines right above and below have no ink across it (a wide word space of a justified
 *   line has its paragraph's lines across it; a column's gap runs empty down the table),
 * - the line is not one of a paragraph going on under its start (a justified cell's line
 *   stretched at a sentence's end, the next line under its first word, as Texinfo's
 *   "... is run.   (cipher/sha256.c:" over "selftests_sha256)"),
 * - and the text after it starts where a fragment, or text after another such gap, starts on
 *   another line near it (a column: "false" under "true", "Color ..." over the description's
 *   next line).
 * It is not when the text before it is a long line (a paragraph's, beside a margin note: cells
 * this close are short values), when three more gaps of the line are as wide (a justified
 * line's stretched word spaces), when that text is a label that opens the line (a list's "A.",
 * a contents line's section number "6": their lists and contents lines are read as such), when
 * the text after it is monospaced (a listing's own alignment, its code after a line number), or
 * when the two sides differ in size (a listing's smaller line number, a label in the margin).
 * The pieces go in `origin` (piece -> fragment); fragments not cut are returned as they are.
 */
function cellPieces(fragments: Fragment[], origin: Map<Fragment, Fragment>, isMono: (f: Fragment) => boolean): Fragment[] {
  // Most fragments are one run: nothing to cut, and no lines to build.
  let any = false;
  for (const f of fragments) if (f.runs.length > 1) any = true;
  if (!any) return fragments;
  const lines = rowsOf(fragments);
  // Gaps that may part cells (line, fragment, run index after the gap), and where text starts
  // on each line: fragments and the text after those gaps.
  const gaps: { n: number; f: Fragment; k: number }[] = [];
  const starts: number[][] = [];
  // Runs of two text objects that (nearly) touch, which may be cells of a sheet (see TIGHT_LINES).
  const tight: { n: number; f: Fragment; k: number; from: number }[] = [];
  const tightStarts: number[][] = [];
  const none: number[][] = lines.map(() => []);
  // Where text starts on each line after a fragment's start or a gap wider than a word space.
  const openings: number[][] = [];
  for (const line of lines) {
    const xs: number[] = [];
    for (const f of line.fragments) {
      xs.push(f.x0);
      let reach = f.runs[0].x1;
      for (let k = 1; k < f.runs.length; k++) {
        if (f.runs[k].x0 - reach >= CELL_GAP * f.size) xs.push(f.runs[k].x0);
        if (f.runs[k].x1 > reach) reach = f.runs[k].x1;
      }
    }
    openings.push(xs);
  }
  for (let n = 0; n < lines.length; n++) {
    const xs: number[] = [];
    const ts: number[] = [];
    for (const f of lines[n].fragments) {
      xs.push(f.x0);
      let reach = f.runs[0].x1;
      let from = f.x0;
      for (let k = 1; k < f.runs.length; k++) {
        const r = f.runs[k];
        const gap = r.x0 - reach;
        if (gap >= CELL_GAP * f.size && cellEnd(f, k, from, reach, isMono) && clearGap(lines, n, from, reach, r.x0, f.size)) {
          gaps.push({ n, f, k });
          xs.push(r.x0);
          from = r.x0;
        } else if (gap < CELL_GAP * f.size && gap > -TIGHT_OVERLAP * f.size && r.fontId === f.runs[k - 1].fontId && WORDLIKE.test(f.runs[k - 1].text) && cellEnd(f, k, from, reach, isMono) && clearGap(lines, n, from, reach, r.x0, f.size)) {
          tight.push({ n, f, k, from });
          ts.push(r.x0);
          from = r.x0;
        }
        if (r.x1 > reach) reach = r.x1;
      }
    }
    starts.push(xs);
    tightStarts.push(ts);
  }
  if (!gaps.length && !tight.length) return fragments;
  const cutsOf = new Map<Fragment, number[]>();
  // Tight cuts first: a column start they confirm is one for the wider gaps too (a header's
  // last cell set a little apart, over cells that touch the ones before them).
  const confirmed: number[][] = lines.map(() => []);
  for (const t of tight) {
    const x = t.f.runs[t.k].x0;
    // (One line of the page at least has a fragment or a wide gap there, a header's cell maybe:
    // lines that all open with the same words, a list's "Copyright ©", line up to the point too.)
    if (linesStartingAt(lines, starts, tightStarts, t.n, x) < TIGHT_LINES || linesStartingAt(lines, starts, tightStarts, t.n, t.from) < TIGHT_LINES || linesStartingAt(lines, openings, none, t.n, x, Infinity) < 1) continue;
    confirmed[t.n].push(x);
    const cuts = cutsOf.get(t.f);
    if (cuts) cuts.push(t.k);
    else cutsOf.set(t.f, [t.k]);
  }
  // (Two such cuts are enough there: each was confirmed by its column already.)
  const confirms = (n: number, x: number) => linesStartingAt(lines, confirmed, none, n, x) >= 2;
  for (let n = 0; n < lines.length; n++) for (const x of confirmed[n]) starts[n].push(x);
  for (const { n, f, k } of gaps) {
    if (!startsNear(lines, starts, n, f.runs[k].x0, f.size) && !confirms(n, f.runs[k].x0)) continue;
    const cuts = cutsOf.get(f);
    if (cuts) cuts.push(k);
    else cutsOf.set(f, [k]);
  }
  if (!cutsOf.size) return fragments;
  const out: Fragment[] = [];
  for (const f of fragments) {
    const cuts = cutsOf.get(f);
    if (!cuts) {
      out.push(f);
      continue;
    }
    cuts.sort(ascending);
    cuts.push(f.runs.length);
    let from = 0;
    for (const k of cuts) {
      const piece = makeFragment(f.runs.slice(from, k));
      if (f.page !== undefined) piece.page = f.page;
      origin.set(piece, f);
      out.push(piece);
      from = k;
    }
  }
  return out;
}

/** A label that opens a line: a list's marker ("A.", "iv)", "[12]", a bullet) or a section number ("6", "2.4", appendix "B"). */
const LINE_LABEL = /^(?:[•◦▪▫‣●○■□·∙–—*+-]|[A-Z]|\(?[A-Za-z][.)]|\(?[ivxlcIVXLC]{1,5}[.)]|\(?\d{1,3}(?:\.\d{1,3})*[.)]?|\[\d{1,3}\])$/u;
/** A cell this close to the next one holds a short value: text before a gap longer than this (font sizes) is not one. */
const CELL_WIDTH = 15;

/**
 * Whether the text of f before run k (from x `from` to `a`) may be a cell (see cellPieces): not
 * too long, the gap not one of a justified line's alike word spaces, the text after it not
 * monospaced nor of another size, and not a label opening the line.
 */
function cellEnd(f: Fragment, k: number, from: number, a: number, isMono: (f: Fragment) => boolean): boolean {
  if (a - from > CELL_WIDTH * f.size) return false;
  // A justified line's word spaces are stretched alike (an index's "322, 323, 324,"): three more
  // gaps between its runs as wide as this one make it a word space (a row of four cells, each
  // the widest of its column, has its three gaps alike: "plantlist boolean false adds ...").
  const gap = f.runs[k].x0 - a;
  let alike = 0;
  let reach = f.runs[0].x1;
  for (let j = 1; j < f.runs.length; j++) {
    const g = f.runs[j].x0 - reach;
    if (j !== k && Math.abs(g - gap) <= 0.2 * gap) alike++;
    if (f.runs[j].x1 > reach) reach = f.runs[j].x1;
  }
  if (alike >= 3) return false;
  const next = f.runs[k];
  if (isMono({ ...f, runs: [next], text: next.text })) return false;
  // Cells of a row share a size; a listing's line number or a label in the margin is smaller.
  const prev = f.runs[k - 1];
  if (Math.abs(next.size - prev.size) > 0.1 * Math.max(next.size, prev.size)) return false;
  if (from !== f.x0) return true;
  let text = '';
  for (let j = 0; j < k; j++) text += f.runs[j].text;
  return !LINE_LABEL.test(text.trim());
}

/**
 * Whether the gap from a to b on line n, in text that starts at `from`, runs clear (see
 * cellPieces): no ink across it on the lines right above and below, and the line below does not
 * go on under `from` with nothing past the gap.
 */
function clearGap(lines: Row[], n: number, from: number, a: number, b: number, size: number): boolean {
  const tol = Math.max(1, 0.1 * size);
  const baseline = lines[n].baseline;
  for (const m of [n - 1, n + 1]) {
    const line = lines[m];
    if (!line || Math.abs(line.baseline - baseline) > 1.6 * Math.max(size, line.size)) continue;
    // (A short line across it, a table's title over its first row, is no paragraph.)
    // (Nor is a sheet's cell wider than the cell above it, ending before the next cell, which
    // starts at b: "1962-01-08" under a header's "in-service", "1971-01-29" under "refit".)
    const cellAtB = line.fragments.some((g) => g.runs.some((r) => Math.abs(r.x0 - b) <= TIGHT_TOL));
    for (const g of line.fragments) {
      if (g.x1 - g.x0 < CELL_WIDTH * size) continue;
      for (const r of g.runs) if (r.x0 < b - tol && r.x1 > a + tol && !(cellAtB && r.x1 <= b)) return false;
    }
    if (m === n + 1 && Math.abs(line.fragments[0].x0 - from) <= tol) {
      let past = false;
      for (const g of line.fragments) if (g.x1 > a + tol) past = true;
      if (!past) return false;
    }
  }
  return true;
}

/**
 * How many other lines within `reach` font sizes of line n start text at x, to a fraction of
 * a point (a sheet's cells are drawn at their column's edge plus a fixed padding): a fragment, the
 * text after a gap that may part cells, or a run touching the one before it.
 */
function linesStartingAt(lines: Row[], starts: number[][], tightStarts: number[][], n: number, x: number, reach = TIGHT_REACH): number {
  const baseline = lines[n].baseline;
  const size = lines[n].size;
  let count = 0;
  for (let m = 0; m < lines.length; m++) {
    if (m === n || Math.abs(lines[m].baseline - baseline) > reach * size) continue;
    let hit = false;
    for (const s of starts[m]) if (Math.abs(s - x) <= TIGHT_TOL) hit = true;
    for (const s of tightStarts[m]) if (Math.abs(s - x) <= TIGHT_TOL) hit = true;
    if (hit) count++;
  }
  return count;
}

/** Whether text starts at x on another line within CELL_REACH font sizes of line n. */
function startsNear(lines: Row[], starts: number[][], n: number, x: number, size: number): boolean {
  const tol = Math.max(1, 0.1 * size);
  const baseline = lines[n].baseline;
  for (let m = 0; m < lines.length; m++) {
    if (m === n || Math.abs(lines[m].baseline - baseline) > CELL_REACH * size) continue;
    for (const s of starts[m]) if (Math.abs(s - x) <= tol) return true;
  }
  return false;
}

/**
 * Finds aligned tables among a page's fragments. `skipRow` tells rows that belong to
 * something else (a contents line); they end a table. `isMono`: a fragment set in a
 * monospaced font (rows of them alone are a listing's).
 */
export function findAlignedTables(fragments: Fragment[], bodySize: number, skipRow: (row: Fragment[]) => boolean, isMono: (f: Fragment) => boolean = () => false): AlignedTable[] {
  const captions = sideCaptions(fragments);
  // Cells set closer than the gap that parts fragments, cut apart (the pieces stand for their
  // fragment: a table lists the page's fragments it took, not pieces).
  const origin = new Map<Fragment, Fragment>();
  const pieces = cellPieces(captions.size ? fragments.filter((f) => !captions.has(f)) : fragments, origin, isMono);
  const rows = rowsOf(pieces);
  const monoRow = (r: Row) => r.fragments.every(isMono);
  const tables: AlignedTable[] = [];
  let i = 0;
  while (i < rows.length) {
    // A table starts at a row of two or more cells.
    if (rows[i].fragments.length < 2 || skipRow(rows[i].fragments)) {
      i++;
      continue;
    }
    const run: Row[] = [rows[i]];
    let columns = x0sOf(rows[i].fragments);
    const tol = Math.max(2, 0.6 * rows[i].size);
    const columnOf = (x: number) => {
      let k = -1;
      for (let c = 0; c < columns.length; c++) if (columns[c] <= x + tol) k = c;
      return k;
    };
    const aligned = (x: number) => columns.some((c) => Math.abs(c - x) <= tol);
    // The largest step between the run's rows so far (kept as rows join, not recounted per row).
    let maxStep = 0;
    let j = i + 1;
    for (; j < rows.length; j++) {
      const r = rows[j];
      const prev = run[run.length - 1];
      if (skipRow(r.fragments)) break;
      // A wide vertical gap ends the table (a paragraph follows); tables with padded rows
      // have wide steps throughout, so the bar grows with the steps seen.
      const step = r.baseline - prev.baseline;
      if (step > Math.max(2.6 * Math.max(r.size, prev.size), 1.5 * maxStep)) break;
      if (step > 4 * Math.max(r.size, prev.size)) break;
      if (r.fragments.length >= 2) {
        // Every cell starts at a known column, or at most one new column appears.
        let fresh = r.fragments.filter((f) => !aligned(f.x0));
        // A justified cell of the last column comes as several fragments (its word spaces
        // stretched): words right of the last column, each close after the one before, are
        // that cell's, not new columns.
        const last = columns[columns.length - 1];
        if (fresh.length > 1 && fresh.every((f) => f.x0 > last + tol && r.fragments[r.fragments.indexOf(f) - 1]?.x1 > f.x0 - 2.5 * f.size)) fresh = [];
        // So is one such word alone when its line, begun at the last column, ends where that
        // column's lines end and two lines of it above run past the word's start ("sible vatues
        // are:   Simplex (print single-", a few long words stretched to the column's width).
        if (fresh.length === 1 && stretchedLine(run, r, fresh[0], last, tol, columnOf)) fresh = [];
        // A first column left of every cell so far opens under a header row alone when this row
        // fills every column and the new one (a header with no head over its first column:
        // "CPU  Versions  Provider" over "Debian  i386/amd64  squeeze/wheezy  Johannes Ranke").
        const headless = run.length === 1 && fresh.length === 1 && fresh[0] === r.fragments[0] && fresh[0].x1 < columns[0] - tol && r.fragments.length === columns.length + 1;
        // A first row whose middle cells are empty (a name and its description only, "encap ...
        // Sets encap character" over "linktoc  text  section  make text ...") opens under a row
        // that fills each of its columns and more: that row's columns are the table's.
        if (fresh.length > 1 && fillsUnder(run, r, columns, fresh, tol)) {
          for (const f of fresh) columns.push(f.x0);
          columns.sort(ascending);
          run.push(r);
          maxStep = Math.max(maxStep, step);
          continue;
        }
        if (fresh.length > 1 || (fresh.length === 1 && fresh[0] === r.fragments[0] && !headless)) break;
        // A new column beside the first alone, under lines of one cell (a caption, a title),
        // opens the next table ("cmsD50Z  0.8249", "Table 18", "V4 perceptual black", then
        // "cmsPERCEPTUAL_BLACK_X  0.00336" at other x-positions).
        if (fresh.length === 1 && r.fragments.length === 2 && columns.length >= 2 && prev.fragments.length === 1 && run.length > 1) break;
        if (fresh.length === 1) columns = [...columns, fresh[0].x0].sort(ascending);
        run.push(r);
        maxStep = Math.max(maxStep, step);
        continue;
      }
      // One fragment: a wrapped cell when it starts at a column (and, in the first column,
      // is no wider than a table's cell: a paragraph after the table starts there too).
      const only = r.fragments[0];
      const firstWidth = columns.length > 1 ? columns[1] - columns[0] : Infinity;
      if (aligned(only.x0) && !(Math.abs(only.x0 - columns[0]) <= tol && only.x1 - only.x0 > firstWidth * 1.2)) {
        run.push(r);
        maxStep = Math.max(maxStep, step);
        continue;
      }
      break;
    }
    const full = run.filter((r) => r.fragments.length >= 2);
    // Monospaced rows without a text row beside them: a listing.
    const listing = run.every(monoRow);
    if (listing) {
      i += run.length;
      continue;
    }
    // A column that one fragment alone opens, a stretched word space after the fragment before
    // it, while that fragment's column runs past its start on other rows, is the end of a
    // justified line of that column ("... is run.      (cipher/sha1.c:" over lines as wide as
    // the whole line): no column.
    // (Only with three columns or more: without the stray one, two are left to make a table.)
    const stray = strayColumns(columns, run, columnOf);
    if (stray.some(Boolean)) columns = columns.filter((_, k) => !stray[k]);
    const accept = acceptRun(rows, i, run, full, columns, columnOf, bodySize);
    if (!accept) {
      i++;
      continue;
    }
    const table = alignedTable(rows, i, run, columns, columnOf, tol, skipRow, isMono, origin);
    if (!table) {
      i++;
      continue;
    }
    tables.push(table);
    i = i + run.length;
  }
  return tables;
}

// findAlignedTables' parts below are functions of their own so that V8 compiles each apart: as
// one function (with these as closures inside it) TurboFan recompiled all of it, 50-90 ms a
// time, whenever one site met a new map, and the closures' optimized code died with them.

/**
 * Whether fragment f of row r is the end of a justified line of the last column (at x `last`):
 * close after the fragment before it, which starts at that column; ending within a few points
 * of the column's right edge as the run's rows show it; and two of the column's lines above run
 * past f's start.
 */
function stretchedLine(run: Row[], r: Row, f: Fragment, last: number, tol: number, columnOf: (x: number) => number): boolean {
  const n = r.fragments.indexOf(f);
  const before = r.fragments[n - 1];
  if (!before || Math.abs(before.x0 - last) > tol || f.x0 - before.x1 > 2.5 * f.size || n !== r.fragments.length - 1) return false;
  let right = -Infinity;
  let past = 0;
  const k = columnOf(last);
  for (const row of run) {
    for (const g of row.fragments) {
      if (columnOf(g.x0) !== k) continue;
      if (g.x1 > right) right = g.x1;
      if (g.x0 < f.x0 - f.size && g.x1 > f.x0 + f.size) past++;
    }
  }
  return past >= 2 && Math.abs(f.x1 - right) <= tol;
}

/**
 * Whether every filled cell of a line goes on with the cell above it (see alignedTable): some
 * column but the first is empty on the line and the last is not, the last is a column of
 * paragraphs whose line above is filled, and in each filled column the cell above has a last
 * line after which this line's first word would not have fitted within the column's widest
 * line (or that line ends in a hyphen).
 */
function wrapsOn(cells: string[], firstIn: (Fragment | null)[], lastIn: (Fragment | null)[], colRight: number[], columns: number[]): boolean {
  // Cells wrap where they run out of room, not all at once: a line filling every column but
  // the first is a row under a first cell that spans it ("Debian  i386/amd64 ..." over
  // "armel  wheezy  Johannes Ranke").
  // The last column (a description) is one of them.
  let empty = 0;
  for (let k = 1; k < cells.length; k++) if (!cells[k]) empty++;
  if (empty === 0 || !cells[cells.length - 1]) return false;
  // A column of paragraphs: at least 8 font sizes wide, its line above filled to the edge
  // (short values in narrow columns never seem to have room for the next word).
  const k = cells.length - 1;
  const above = lastIn[k];
  if (!above || colRight[k] - columns[k] < 8 * above.size || above.x1 < colRight[k] - 2 * above.size) return false;
  for (let k = 0; k < cells.length; k++) {
    if (!cells[k]) continue;
    const above = lastIn[k];
    const f = firstIn[k];
    if (!above || !f) return false;
    if (/-$/.test(above.text.trim())) continue;
    const text = f.text.trim();
    const word = (text.split(/\s/)[0].length / Math.max(1, text.length)) * (f.x1 - f.x0);
    if (above.x1 + 0.25 * f.size + word <= colRight[k] + 1) return false;
  }
  return true;
}

/**
 * Whether row r, second in the run, fills every column of the first row and adds the `fresh`
 * ones between or after them (not left of the first: see `headless` for that).
 */
function fillsUnder(run: Row[], r: Row, columns: number[], fresh: Fragment[], tol: number): boolean {
  if (run.length !== 1 || fresh[0] === r.fragments[0]) return false;
  for (const c of columns) {
    let hit = false;
    for (const f of r.fragments) if (Math.abs(f.x0 - c) <= tol) hit = true;
    if (!hit) return false;
  }
  return true;
}

/** For each column, whether it is a stray one (see findAlignedTables). */
function strayColumns(columns: number[], run: Row[], columnOf: (x: number) => number): boolean[] {
  // Loops and push rather than map, flatMap and filter: see x0sOf.
  const stray: boolean[] = [];
  for (let k = 0; k < columns.length; k++) stray.push(strayColumn(k, columns, run, columnOf));
  return stray;
}

function strayColumn(k: number, columns: number[], run: Row[], columnOf: (x: number) => number): boolean {
  if (k === 0 || columns.length < 3) return false;
  const at: { f: Fragment; prev: Fragment | undefined }[] = [];
  for (const r of run) r.fragments.forEach((f, n) => {
    if (columnOf(f.x0) === k) at.push({ f, prev: r.fragments[n - 1] });
  });
  if (at.length !== 1) return false;
  const { f, prev } = at[0];
  if (!prev || f.x0 - prev.x1 > 2.5 * f.size || columnOf(prev.x0) !== k - 1) return false;
  return run.some((r) => r.fragments.some((g) => g !== prev && columnOf(g.x0) === k - 1 && g.x1 > f.x0 + f.size));
}

/** Whether a run of rows under these columns is a table (see the module comment for what is not). */
function acceptRun(rows: Row[], i: number, run: Row[], full: Row[], columns: number[], columnOf: (x: number) => number, bodySize: number): boolean {
  if (full.length < 3 || columns.length < 2) return false;
  const cells: Fragment[][] = [];
  for (let k = 0; k < columns.length; k++) cells.push([]);
  for (const r of run) for (const f of r.fragments) cells[Math.max(0, columnOf(f.x0))].push(f);
  // Columns of real cells: a lowered letter or a footnote mark is not one.
  const real = cells.filter((c) => c.filter((f) => f.text.trim().length >= 2).length >= 2);
  if (real.length < 2) return false;
  // Running text in columns: two columns whose lines are long.
  if (real.filter((c) => median(widthsOf(c)) >= 10 * bodySize).length >= 2) return false;
  // A list whose markers stand apart (marker and text: two columns; a column of numbers
  // before two more is a table's, "15 CPLXSXP complex vectors").
  if (real.length <= 2 && cells[0].length && cells[0].every((f) => MARKER.test(f.text.trim()))) return false;
  // Two columns of running text with a listing in one of them (a two-column page): just
  // above or below the rows, both columns go on with long lines. A table's long column
  // starts and ends with the table, and the text around a table spans its width.
  for (let k = 1; k < columns.length; k++) {
    if (!cells[k].length || median(widthsOf(cells[k])) < 10 * bodySize) continue;
    const x0 = Math.min(...cells[k].map((f) => f.x0));
    const x1 = Math.max(...cells[k].map((f) => f.x1));
    const long = (f: Fragment) => f.x1 - f.x0 >= 10 * bodySize;
    const goesOn = (row: Row | undefined, near: Row) =>
      row !== undefined &&
      Math.abs(row.baseline - near.baseline) <= 2.6 * Math.max(row.size, near.size) &&
      row.fragments.some((f) => long(f) && f.x1 < x0) &&
      row.fragments.some((f) => long(f) && Math.min(f.x1, x1) - Math.max(f.x0, x0) >= 0.5 * (f.x1 - f.x0));
    if (goesOn(rows[i - 1], run[0]) || goesOn(rows[i + run.length], run[run.length - 1])) return false;
  }
  return true;
}

/** The table the run of rows at rows[i] makes under these columns, or null when too few of its cells are filled. */
function alignedTable(rows: Row[], i: number, run: Row[], columns: number[], columnOf: (x: number) => number, tol: number, skipRow: (row: Fragment[]) => boolean, isMono: (f: Fragment) => boolean, origin: Map<Fragment, Fragment>): AlignedTable | null {
  // Rows: a full row starts one; a single fragment joins the row above in its column.
  const out: string[][] = [];
  const used: Fragment[] = [];
  // A header whose cells sit closer than the gap that parts fragments ("Model object Array
  // member") is one fragment above the table: split it at its runs that start at columns.
  const above = rows[i - 1];
  if (above && above.fragments.length === 1 && rows[i].baseline - above.baseline <= 2.6 * above.size && !skipRow(above.fragments)) {
    const runs = above.fragments[0].runs;
    // (Loops and push, not .map/.filter: V8 recompile churn.)
    const starts: number[] = [];
    const startSet = new Set<number>();
    for (const r of runs) {
      let k = -1;
      for (let c = 0; c < columns.length; c++) {
        if (Math.abs(columns[c] - r.x0) <= tol) {
          k = c;
          break;
        }
      }
      starts.push(k);
      if (k >= 0) startSet.add(k);
    }
    if (runs.length >= 2 && starts[0] === 0 && startSet.size >= 2) {
      const cells = emptyCells(columns.length);
      let k = 0;
      runs.forEach((r, n) => {
        if (starts[n] >= 0) k = starts[n];
        cells[k] = `${cells[k]} ${r.text}`.trim();
      });
      for (let c = 0; c < cells.length; c++) cells[c] = cells[c].replace(/\s+/g, ' ');
      out.push(cells);
      used.push(above.fragments[0]);
    }
  }
  // The step between the lines of a wrapped cell: the run's smallest. Rows set further apart
  // than that (Texinfo's @table puts space between items) tell a row from a wrapped line.
  const lineStep = Math.min(...run.slice(1).map((r, n) => r.baseline - run[n].baseline));
  // The last line of the first column so far: where it ends, and whether it breaks a word.
  let firstEnd: Fragment | null = null;
  // The index in run of that line.
  let firstEndAt = -1;
  // Where each column's text ends in the run (its widest line), and the last line of each cell
  // of the row so far: a cell's next line goes on with it only if its first word did not fit.
  const colRight: number[] = [];
  for (let k = 0; k < columns.length; k++) colRight.push(-Infinity);
  for (const r of run) {
    for (const f of r.fragments) {
      const k = Math.max(0, columnOf(f.x0));
      if (f.x1 > colRight[k]) colRight[k] = f.x1;
    }
  }
  let lastIn: (Fragment | null)[] = [];
  run.forEach((r, n) => {
    const cells = emptyCells(columns.length);
    let first: Fragment | null = null;
    const firstIn: (Fragment | null)[] = [];
    const endIn: (Fragment | null)[] = [];
    for (let k = 0; k < columns.length; k++) {
      firstIn.push(null);
      endIn.push(null);
    }
    for (const f of r.fragments) {
      const k = Math.max(0, columnOf(f.x0));
      cells[k] = cells[k] ? `${cells[k]} ${f.text}` : f.text;
      if (k === 0) first = f;
      if (!firstIn[k]) firstIn[k] = f;
      endIn[k] = f;
      used.push(f);
    }
    const lineAbove = firstEnd;
    const lineAboveAt = firstEndAt;
    if (first) {
      firstEnd = first;
      firstEndAt = n;
    }
    const filled = cells.filter(Boolean).length;
    if (out.length && filled === 1) {
      const k = cells.findIndex(Boolean);
      const last = out[out.length - 1];
      // A first cell alone as far below the row above as rows are apart, not lines, is a row
      // of its own: a term with no description ("Rdconv" over "Rd2txt  Convert Rd format
      // ..."), or one too long for the column, its description on the next line ("javareconf").
      const apart = k === 0 && n > 0 && r.baseline - run[n - 1].baseline > 1.3 * lineStep;
      // So is one under a line with the first column empty: a first cell that wraps goes on on
      // the very next line, so the one above had ended ("implicit", its remark empty, under
      // "all driver options, e.g. pdftex" whose remark took a second line).
      const ended = k === 0 && lineAboveAt >= 0 && lineAboveAt < n - 1;
      // So is one whose first word would have fitted on the first cell's line above, before
      // the next column (a cell that wraps breaks only where the next word does not fit): a
      // row whose description is empty ("tl_add" over "tl_add_many", then "tl_sub  Subtract ...").
      // And so is a typewriter name under a typewriter name, each one word (an identifier
      // does not wrap into another: "tl_add" over "tl_add_many"), unless the one above ends
      // as a wrapped line would (a comma, an open parenthesis, an operator).
      const fitted = k === 0 && first !== null && lineAbove !== null && columns.length > 1 && (() => {
        const text = first.text.trim();
        const above = lineAbove.text.trim();
        if (/-$/.test(above)) return false;
        if (isMono(first) && isMono(lineAbove) && !/\s/.test(text) && !/\s/.test(above) && !/[,([{=+*/\\|&-]$/.test(above) && /^[\p{L}_$.]/u.test(text)) return true;
        const word = (text.split(/\s/)[0].length / Math.max(1, text.length)) * (first.x1 - first.x0);
        return lineAbove.x1 + 0.35 * first.size + word < columns[1] - 0.5 * first.size;
      })();
      // Under a later column, or under the first when the row above has its first cell only partly set.
      if (k > 0 || (last.slice(1).some(Boolean) && !apart && !ended && !fitted)) {
        last[k] = last[k] ? `${last[k]} ${cells[k]}` : cells[k];
        lastIn[k] = endIn[k];
        return;
      }
    }
    // A line with its first column empty and several cells, each the next line of a cell of the
    // row above that had no room for its first word, goes on with that row: cells of several
    // columns wrapping together ("key value" / "list" beside "... setting the document" /
    // "information."). A row of its own under it has room ("color links" over "(tex4ht, dviwindo)").
    if (out.length && filled >= 2 && !cells[0] && n > 0 && r.baseline - run[n - 1].baseline <= 1.3 * lineStep && wrapsOn(cells, firstIn, lastIn, colRight, columns)) {
      const last = out[out.length - 1];
      for (let k = 0; k < cells.length; k++) {
        if (!cells[k]) continue;
        last[k] = last[k] ? `${last[k]} ${cells[k]}` : cells[k];
        lastIn[k] = endIn[k];
      }
      return;
    }
    out.push(cells);
    lastIn = endIn;
  });
  // Columns nobody uses (a stray x-position) go.
  // (Loops and push, not callbacks made per call, V8 compiled again after every GC.)
  const keep: boolean[] = [];
  for (let k = 0; k < columns.length; k++) {
    let kept = false;
    for (const row of out) if (row[k]) kept = true;
    keep.push(kept);
  }
  const rowsOut: string[][] = [];
  for (const row of out) {
    const cells: string[] = [];
    for (let k = 0; k < row.length; k++) if (keep[k]) cells.push(row[k]);
    rowsOut.push(cells);
  }
  const keptColumns: number[] = [];
  for (let k = 0; k < columns.length; k++) if (keep[k]) keptColumns.push(columns[k]);
  let x0 = Infinity;
  let x1 = -Infinity;
  let top = Infinity;
  let bottom = -Infinity;
  // The page's fragments the table took: a piece stands for the fragment it was cut from.
  const taken: Fragment[] = [];
  const seen = new Set<Fragment>();
  for (const f of used) {
    const whole = origin.get(f) ?? f;
    if (seen.has(whole)) continue;
    seen.add(whole);
    taken.push(whole);
  }
  for (const f of used) {
    x0 = Math.min(x0, f.x0);
    x1 = Math.max(x1, f.x1);
    top = Math.min(top, f.top);
    bottom = Math.max(bottom, f.bottom);
  }
  // Most cells of a table are filled; prose beside scattered formula pieces is not a table.
  const fill = rowsOut.reduce((n, row) => n + row.filter(Boolean).length / row.length, 0) / rowsOut.length;
  if (fill < 0.6) return null;
  return {
    x0,
    x1,
    top,
    bottom,
    rows: rowsOut,
    columns: keptColumns,
    fragments: taken,
  };
}
