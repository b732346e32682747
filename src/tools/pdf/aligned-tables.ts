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
 * Rows set wholly in a monospaced font (`isMono`) are a listing's unless other rows of the
 * run are not (Texinfo's @multitable of typewriter names under a header row in a text font,
 * or beside descriptions in it). Columns off the character grid of the font are no sign: a
 * listing whose spaces stretch (PassiveTeX) has them too.
 */
import type { Fragment } from './text-types.ts';
import type { Table } from './ruled-tables.ts';
import { ascending, byBaselineThenX0, byX0, median, widthsOf } from './fragments.ts';

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

/**
 * Finds aligned tables among a page's fragments. `skipRow` tells rows that belong to
 * something else (a contents line); they end a table. `isMono`: a fragment set in a
 * monospaced font (rows of them alone are a listing's).
 */
export function findAlignedTables(fragments: Fragment[], bodySize: number, skipRow: (row: Fragment[]) => boolean, isMono: (f: Fragment) => boolean = () => false): AlignedTable[] {
  const captions = sideCaptions(fragments);
  const rows = rowsOf(captions.size ? fragments.filter((f) => !captions.has(f)) : fragments);
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
        // A first column left of every cell so far opens under a header row alone when this row
        // fills every column and the new one (a header with no head over its first column:
        // "CPU  Versions  Provider" over "Debian  i386/amd64  squeeze/wheezy  Johannes Ranke").
        const headless = run.length === 1 && fresh.length === 1 && fresh[0] === r.fragments[0] && fresh[0].x1 < columns[0] - tol && r.fragments.length === columns.length + 1;
        if (fresh.length > 1 || (fresh.length === 1 && fresh[0] === r.fragments[0] && !headless)) break;
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
    const table = alignedTable(rows, i, run, columns, columnOf, tol, skipRow, isMono);
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
function alignedTable(rows: Row[], i: number, run: Row[], columns: number[], columnOf: (x: number) => number, tol: number, skipRow: (row: Fragment[]) => boolean, isMono: (f: Fragment) => boolean): AlignedTable | null {
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
  run.forEach((r, n) => {
    const cells = emptyCells(columns.length);
    let first: Fragment | null = null;
    for (const f of r.fragments) {
      const k = Math.max(0, columnOf(f.x0));
      cells[k] = cells[k] ? `${cells[k]} ${f.text}` : f.text;
      if (k === 0) first = f;
      used.push(f);
    }
    const lineAbove = firstEnd;
    if (first) firstEnd = first;
    const filled = cells.filter(Boolean).length;
    if (out.length && filled === 1) {
      const k = cells.findIndex(Boolean);
      const last = out[out.length - 1];
      // A first cell alone as far below the row above as rows are apart, not lines, is a row
      // of its own: a term with no description ("Rdconv" over "Rd2txt  Convert Rd format
      // ..."), or one too long for the column, its description on the next line ("javareconf").
      const apart = k === 0 && n > 0 && r.baseline - run[n - 1].baseline > 1.3 * lineStep;
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
      if (k > 0 || (last.slice(1).some(Boolean) && !apart && !fitted)) {
        last[k] = last[k] ? `${last[k]} ${cells[k]}` : cells[k];
        return;
      }
    }
    out.push(cells);
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
    fragments: used,
  };
}
