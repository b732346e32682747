/**
 * Finds ruled tables from the lines a page draws. Text alone cannot tell a table from a
 * list of short lines, but rules can: a grid of strokes is a table, and so is a stack of
 * full-width rules (booktabs style) with aligned cells between them.
 */
import type { PdfPage } from './open-pdf.ts';
import { applyMatrix, frameU, frameV, multiplyMatrix, type Frame } from './geometry.ts';
import type { Fragment, RawRules, TextRun } from './text-types.ts';
import { ascending, byBaseline, byBaselineThenX0, byFirst, byX0, buildFragments } from './fragments.ts';

export interface Segment {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Rulings from the paths a text reader collected (user space), as readRulings finds them with PDFium. */
function rulingsOf(rules: RawRules, frame: Frame): Segment[] {
  const segments: Segment[] = [];
  // frame.toFrame(applyMatrix(viewportTransform, px, py)) as two numbers (no tuples per point:
  // a page of vector drawing has thousands).
  const vt = frame.viewportTransform;
  const { quarter: q, displayWidth: W, displayHeight: H } = frame;
  const u = (px: number, py: number) => frameU(q, W, H, vt[0] * px + vt[2] * py + vt[4], vt[1] * px + vt[3] * py + vt[5]);
  const v = (px: number, py: number) => frameV(q, W, H, vt[0] * px + vt[2] * py + vt[4], vt[1] * px + vt[3] * py + vt[5]);
  const push = (ax: number, ay: number, bx: number, by: number) => {
    const x0 = u(ax, ay);
    const y0 = v(ax, ay);
    const x1 = u(bx, by);
    const y1 = v(bx, by);
    segments.push({ x0: Math.min(x0, x1), y0: Math.min(y0, y1), x1: Math.max(x0, x1), y1: Math.max(y0, y1) });
  };
  const { strokes, fills } = rules;
  for (let i = 0; i + 3 < strokes.length; i += 4) push(strokes[i], strokes[i + 1], strokes[i + 2], strokes[i + 3]);
  for (let i = 0; i + 3 < fills.length; i += 4) {
    const [minX, minY, maxX, maxY] = [fills[i], fills[i + 1], fills[i + 2], fills[i + 3]];
    const ax = u(minX, minY);
    const ay = v(minX, minY);
    const bx = u(maxX, maxY);
    const by = v(maxX, maxY);
    const w = Math.abs(bx - ax);
    const h = Math.abs(by - ay);
    if (h <= 2.5 && w > 10) push(minX, (minY + maxY) / 2, maxX, (minY + maxY) / 2);
    else if (w <= 2.5 && h > 10) push((minX + maxX) / 2, minY, (minX + maxX) / 2, maxY);
  }
  return segments;
}

/** fpdf_edit.h constants. */
const OBJ = { PATH: 2, FORM: 5 } as const;
const SEGMENT = { LINETO: 0, BEZIERTO: 1, MOVETO: 2 } as const;
/** Nested forms deeper than this are not searched for rules (a table is never that deep). */
const MAX_FORM_DEPTH = 8;

/**
 * Straight horizontal and vertical strokes of the page (and thin filled bars), in its reading
 * frame: from the paths its text reader collected when it did (no PDFium page to load), else
 * from PDFium's page objects.
 */
export function readRulings(page: PdfPage, frame: Frame, rules?: RawRules): Segment[] {
  if (rules) return rulingsOf(rules, frame);
  const { pdfium } = page;
  const { x } = pdfium;
  const segments: Segment[] = [];
  // Scratch: a matrix (6 floats), a point (2 floats), fill mode + stroke flag (2 ints).
  const scratch = x.malloc(48);
  const matrixOf = (object: number): number[] => {
    if (!x.FPDFPageObj_GetMatrix(object, scratch)) return [1, 0, 0, 1, 0, 0];
    const f32 = pdfium.f32();
    return Array.from(f32.subarray(scratch >> 2, (scratch >> 2) + 6));
  };
  const visitPath = (path: number, ctm: number[]) => {
    if (!x.FPDFPath_GetDrawMode(path, scratch + 32, scratch + 36)) return;
    const i32 = new Int32Array(pdfium.u8().buffer, scratch + 32, 2);
    const fillMode = i32[0];
    const stroke = i32[1] !== 0;
    if (!stroke && !fillMode) return;
    const toFrame = (px: number, py: number): [number, number] => {
      const [dx, dy] = applyMatrix(frame.viewportTransform, ...applyMatrix(ctm, px, py));
      return frame.toFrame(dx, dy);
    };
    const push = (ax: number, ay: number, bx: number, by: number) => {
      const [x0, y0] = toFrame(ax, ay);
      const [x1, y1] = toFrame(bx, by);
      segments.push({ x0: Math.min(x0, x1), y0: Math.min(y0, y1), x1: Math.max(x0, x1), y1: Math.max(y0, y1) });
    };
    const n = x.FPDFPath_CountSegments(path);
    let cx = 0;
    let cy = 0;
    let sx = 0;
    let sy = 0;
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    for (let i = 0; i < n; i++) {
      const seg = x.FPDFPath_GetPathSegment(path, i);
      if (!seg || !x.FPDFPathSegment_GetPoint(seg, scratch + 24, scratch + 28)) continue;
      const f32 = pdfium.f32();
      const px = f32[(scratch + 24) >> 2];
      const py = f32[(scratch + 28) >> 2];
      minX = Math.min(minX, px);
      maxX = Math.max(maxX, px);
      minY = Math.min(minY, py);
      maxY = Math.max(maxY, py);
      const type = x.FPDFPathSegment_GetType(seg);
      if (type === SEGMENT.MOVETO) {
        cx = sx = px;
        cy = sy = py;
      } else {
        if (type === SEGMENT.LINETO && stroke) push(cx, cy, px, py);
        cx = px;
        cy = py;
      }
      if (x.FPDFPathSegment_GetClose(seg)) {
        if (stroke) push(cx, cy, sx, sy);
        cx = sx;
        cy = sy;
      }
    }
    if (!stroke && fillMode && n > 0) {
      // A thin filled rectangle is how many producers draw a rule.
      const [ax, ay] = toFrame(minX, minY);
      const [bx, by] = toFrame(maxX, maxY);
      const w = Math.abs(bx - ax);
      const h = Math.abs(by - ay);
      if (h <= 2.5 && w > 10) push(minX, (minY + maxY) / 2, maxX, (minY + maxY) / 2);
      else if (w <= 2.5 && h > 10) push((minX + maxX) / 2, minY, (minX + maxX) / 2, maxY);
    }
  };
  const visit = (object: number, parent: number[], depth: number) => {
    const type = x.FPDFPageObj_GetType(object);
    if (type === OBJ.PATH) visitPath(object, multiplyMatrix(parent, matrixOf(object)));
    else if (type === OBJ.FORM && depth < MAX_FORM_DEPTH) {
      const ctm = multiplyMatrix(parent, matrixOf(object));
      const n = x.FPDFFormObj_CountObjects(object);
      for (let i = 0; i < n; i++) visit(x.FPDFFormObj_GetObject(object, i), ctm, depth + 1);
    }
  };
  try {
    const n = x.FPDFPage_CountObjects(page.handle);
    for (let i = 0; i < n; i++) visit(x.FPDFPage_GetObject(page.handle, i), [1, 0, 0, 1, 0, 0], 0);
  } finally {
    x.free(scratch);
  }
  return segments;
}

export interface Table {
  x0: number;
  x1: number;
  top: number;
  bottom: number;
  /** Cell texts, row by row (a spanning cell's text in its first position, '' in the others). */
  rows: string[][];
  /**
   * The cells as drawn, when some span columns or rows (a rule missing between two grid
   * cells joins them): each row lists the cells that start in it, left to right. A pipe table
   * cannot say this, so such a table is written as HTML.
   */
  cells?: GridCell[][];
  /**
   * The left edge of each column, when the table was found from x-positions; for a ruled
   * table, its column bounds with both sides (a table cut by a page break is joined by them).
   */
  columns?: number[];
  /**
   * Set when the table is one of lists set side by side with a vertical rule between them
   * (splitAtListRules): x-positions shared across that rule make no wider table.
   */
  beside?: boolean;
}

export interface GridCell {
  text: string;
  col: number;
  colspan: number;
  rowspan: number;
}

const TOL = 2.5;

const cluster = (values: number[], tol: number): number[] => {
  const sorted = [...values].sort(ascending);
  const out: number[] = [];
  for (const v of sorted) if (!out.length || v - out[out.length - 1] > tol) out.push(v);
  return out;
};

/**
 * A cell's text: its runs line by line as the page's text is read (scripts kept on their line,
 * a space only where the runs stand apart: "H(Mu) + F2", "80.9°"), the lines joined by spaces.
 */
const cellText = (runs: TextRun[]): string => {
  // (A loop, not a .map callback made per call: V8 recompile churn.)
  const texts: string[] = [];
  for (const f of buildFragments(runs, Infinity)) texts.push(f.text);
  return texts.join(' ').replace(/\s+/g, ' ').trim();
};

const inBox = (r: TextRun, t: { x0: number; x1: number; top: number; bottom: number }) => {
  const cx = (r.x0 + r.x1) / 2;
  const cy = (r.baseline - r.size * 0.3);
  return cx > t.x0 && cx < t.x1 && cy > t.top && cy < t.bottom;
};

/** Tables drawn as a grid: connected horizontal and vertical rules. */
function gridTables(h: Segment[], v: Segment[], runs: TextRun[]): Table[] {
  // Built by push, not map and spread: the arrays' elements kinds then do not depend on whether
  // V8 ran map as a builtin or inlined it (each new kind here deoptimized gridTables: "wrong map").
  const all: { s: Segment; horizontal: boolean }[] = [];
  for (const s of h) all.push({ s, horizontal: true });
  for (const s of v) all.push({ s, horizontal: false });
  const parent: number[] = [];
  for (let i = 0; i < all.length; i++) parent.push(i);
  // Only a horizontal and a vertical rule can cross: `all` holds the horizontal ones first.
  for (let i = 0; i < h.length; i++) joinCrossing(all, i, h.length, parent);
  // A double rule (\hline\hline under a header) cuts the vertical rules: the grids above and
  // below it, framed at the same x-positions and only the rule's gap apart, are one table.
  const boxes = new Map<number, { x0: number; x1: number; top: number; bottom: number }>();
  // (Loops, not forEach callbacks made per call: V8 recompile churn.)
  for (let i = 0; i < all.length; i++) {
    const e = all[i];
    if (e.horizontal) continue;
    const root = findRoot(parent, i);
    const b = boxes.get(root);
    if (!b) boxes.set(root, { x0: e.s.x0, x1: e.s.x0, top: e.s.y0, bottom: e.s.y1 });
    else {
      b.x0 = Math.min(b.x0, e.s.x0);
      b.x1 = Math.max(b.x1, e.s.x0);
      b.top = Math.min(b.top, e.s.y0);
      b.bottom = Math.max(b.bottom, e.s.y1);
    }
  }
  // (Indexed loops, the narrow boxes skipped before the inner one: a page of short vertical
  // strokes, each its own group, made this a million pairs, each destructured through an iterator.)
  const roots = [...boxes.keys()];
  const framed = [...boxes.values()];
  for (let p = 0; p < framed.length; p++) {
    const a = framed[p];
    if (!(a.x1 - a.x0 > 10)) continue;
    const ra = roots[p];
    for (let q = 0; q < framed.length; q++) {
      const b = framed[q];
      const rb = roots[q];
      if (ra !== rb && Math.abs(a.x0 - b.x0) <= TOL && Math.abs(a.x1 - b.x1) <= TOL && b.top - a.bottom >= 0 && b.top - a.bottom <= 4) parent[findRoot(parent, ra)] = findRoot(parent, rb);
    }
  }
  joinHeaderRules(all, h.length, parent, runs);
  const groups = new Map<number, typeof all>();
  for (let i = 0; i < all.length; i++) {
    const root = findRoot(parent, i);
    if (!groups.has(root)) groups.set(root, []);
    groups.get(root)!.push(all[i]);
  }
  const tables: Table[] = [];
  for (const group of groups.values()) {
    const table = gridTable(group, runs);
    if (table) tables.push(table);
  }
  return tables;
}

/**
 * Joins horizontal rule all[i] with every vertical rule (all[hCount..]) it crosses. (A function
 * of its own, called per rule, not the inner loop of gridTables: a page of a few hundred rules
 * each way ran that loop's tens of thousands of steps in gridTables called once per page, so in
 * code V8 had only compiled on stack replacement, which it left ('exit from OSR'd inner loop')
 * at the end of every inner loop, boxing a number for every comparison in the interpreter.)
 */
function joinCrossing(all: { s: Segment; horizontal: boolean }[], i: number, hCount: number, parent: number[]): void {
  const hs = all[i].s;
  for (let j = hCount; j < all.length; j++) {
    const vs = all[j].s;
    if (vs.x0 >= hs.x0 - TOL && vs.x0 <= hs.x1 + TOL && hs.y0 >= vs.y0 - TOL && hs.y0 <= vs.y1 + TOL) parent[findRoot(parent, i)] = findRoot(parent, j);
  }
}

/** The root of i in a union-find parent array, every node on the way pointed at it (path compression). */
function findRoot(parent: number[], i: number): number {
  return parent[i] === i ? i : (parent[i] = findRoot(parent, parent[i]));
}

/** The root of i in a union-find parent array (with path halving). */
function rootOf(parent: number[], i: number): number {
  while (parent[i] !== i) i = parent[i] = parent[parent[i]];
  return i;
}

/**
 * A word processor's header row drawn with a rule over it and none at its cells' sides (a
 * shaded row whose vertical rules start under it, the row Word repeats on each page): its top
 * rule meets no vertical rule, so it joins the grid under it when it is as long as the grid's
 * rules (both ends), lies above the grid's top rule no further than the lines of text between
 * and one line more, and no other rule is between.
 */
function joinHeaderRules(all: { s: Segment; horizontal: boolean }[], hCount: number, parent: number[], runs: TextRun[]): void {
  // Each grid's horizontal extent and top, by root (grids: groups with a vertical rule).
  const withVertical = new Set<number>();
  for (let i = hCount; i < all.length; i++) withVertical.add(rootOf(parent, i));
  const extent = new Map<number, { x0: number; x1: number; top: number }>();
  for (let i = 0; i < hCount; i++) {
    const root = rootOf(parent, i);
    if (!withVertical.has(root)) continue;
    const s = all[i].s;
    const e = extent.get(root);
    if (!e) extent.set(root, { x0: s.x0, x1: s.x1, top: s.y0 });
    else {
      e.x0 = Math.min(e.x0, s.x0);
      e.x1 = Math.max(e.x1, s.x1);
      e.top = Math.min(e.top, s.y0);
    }
  }
  for (let i = 0; i < hCount; i++) {
    const s = all[i].s;
    if (withVertical.has(rootOf(parent, i))) continue;
    for (const [root, e] of extent) {
      if (Math.abs(s.x0 - e.x0) > TOL || Math.abs(s.x1 - e.x1) > TOL || s.y0 >= e.top - TOL) continue;
      let size = 0;
      const baselines: number[] = [];
      for (const r of runs) {
        const cy = r.baseline - r.size * 0.3;
        if (cy > s.y0 && cy < e.top && (r.x0 + r.x1) / 2 > e.x0 && (r.x0 + r.x1) / 2 < e.x1) {
          size = Math.max(size, r.size);
          baselines.push(r.baseline);
        }
      }
      // (No taller than its lines and a line's padding: a running header's rule over a table
      // at the top of a page is further up, with the page's first lines between.)
      if (!baselines.length || e.top - s.y0 > (cluster(baselines, 0.35 * size).length + 1) * 1.3 * size) continue;
      let ruleBetween = false;
      for (let j = 0; j < hCount && !ruleBetween; j++) {
        const o = all[j].s;
        ruleBetween = j !== i && o.y0 > s.y0 + TOL && o.y0 < e.top - TOL && o.x0 < e.x1 && o.x1 > e.x0;
      }
      if (ruleBetween) continue;
      parent[rootOf(parent, i)] = root;
      break;
    }
  }
}

/**
 * One grid of connected rules as a table, or null. (Apart from gridTables, so that V8 compiles
 * each on its own: as one function it was recompiled whole, 55-95 ms a time, on each new map one
 * of its sites saw.)
 */
function gridTable(group: { s: Segment; horizontal: boolean }[], runs: TextRun[]): Table | null {
  // The rules of each direction, and the extent they span, by push and loops: arrays from
  // .filter/.map change their elements kind with the tier of the code that made them, and
  // per-call callbacks were compiled again after every GC (V8 recompile churn).
  const hs: Segment[] = [];
  const vs: Segment[] = [];
  const vxs: number[] = [];
  let left = Infinity;
  let right = -Infinity;
  let above = Infinity;
  let below = -Infinity;
  for (const e of group) {
    const s = e.s;
    if (e.horizontal) {
      hs.push(s);
      left = Math.min(left, s.x0);
      right = Math.max(right, s.x1);
    } else {
      vs.push(s);
      vxs.push(s.x0);
      above = Math.min(above, s.y0);
      below = Math.max(below, s.y1);
    }
  }
  // (Text underlines are no rules of the table: a word processor's underlined cell text, "JUUR-SK".)
  const rulesH = tableRules(hs, runs);
  const ruleYs: number[] = [];
  for (const h of rulesH) ruleYs.push(h.y0);
  let ys = cluster(ruleYs, TOL);
  let ruledXs = cluster(vxs, TOL);
  const one = ruledXs.length === 1 ? oneRuleColumns(ruledXs[0], vs, rulesAtHeights(rulesH), ys, runs) : null;
  if (one) {
    ruledXs = one.xs;
    ys = one.ys;
  }
  if (ys.length < 2 || ruledXs.length < 2) return null;
  // A grid open on a side ("{l|c|c|}" under a header row with no rule above it: a decision
  // table's corner left blank): horizontal rules reaching past the first vertical one, or
  // vertical ones rising above the first horizontal one, bound a column or a row of text.
  // (Two vertical rules are enough: "{l|l|l}", three columns ruled between them only.)
  // Only where every rule of the other direction reaches as far (the rules of a table are
  // of one length; the bars of a chart are not). (Module functions, not closures made per call.)
  const xs0 = ruledXs;
  // (A rule drawn a cell at a time, \cline under each column as DocBook's LaTeX sets its rows,
  // is one rule: its pieces at one height reach as far as the leftmost and rightmost of them.)
  const rowRules = rulesAtHeights(rulesH);
  if (xs0.length >= 2 && left < xs0[0] - 10 && allReachLeft(rowRules, left) && textInBox(runs, left, xs0[0], ys[0], ys[ys.length - 1])) ruledXs = [left, ...ruledXs];
  if (xs0.length >= 2 && right > xs0[xs0.length - 1] + 10 && allReachRight(rowRules, right) && textInBox(runs, xs0[xs0.length - 1], right, ys[0], ys[ys.length - 1])) ruledXs = [...ruledXs, right];
  if (xs0.length >= 2 && above < ys[0] - 5 && allRiseTo(xs0, vs, above) && textInBox(runs, xs0[0], xs0[xs0.length - 1], above, ys[0])) ys = [above, ...ys];
  if (xs0.length >= 2 && below > ys[ys.length - 1] + 5 && allFallTo(xs0, vs, below) && textInBox(runs, xs0[0], xs0[xs0.length - 1], ys[ys.length - 1], below)) ys = [...ys, below];
  // A header row drawn as shading only, no rule over it (Word's repeated header row): its line
  // sits right on the grid's top rule, its cells standing apart at the column bounds.
  const headTop = shadedHeaderTop(ys[0], ruledXs, Math.min(left, ruledXs[0]), Math.max(right, ruledXs[ruledXs.length - 1]), runs);
  if (headTop !== null) ys = [headTop, ...ys];
  const box = { x0: ruledXs[0], x1: ruledXs[ruledXs.length - 1], top: ys[0], bottom: ys[ys.length - 1] };
  // A frame round cells drawn apart (HTML's border attribute, as DocBook writes its tables and
  // Chromium prints them) stands a point or two outside the cells' own rules, in the same cluster: the box
  // reaches it, so the frame's rules are the table's, not a stack of rules making a second one.
  for (const x of vxs) {
    if (x < box.x0 && box.x0 - x <= TOL) box.x0 = x;
    if (x > box.x1 && x - box.x1 <= TOL) box.x1 = x;
  }
  const inside: TextRun[] = [];
  for (const r of runs) if (inBox(r, box)) inside.push(r);
  if (!inside.length) return null;
  // Rules reaching past the side column with no text there this time (a word processor's tree
  // table whose top-level column is empty on the page a break carried its rows to): no column,
  // but the table's box covers its rules (they are the table's, not a stack of rules of their
  // own), and a part so cut joins the part before it at its place (pdf-md's continuation).
  if (xs0.length >= 3 && left < box.x0 - 10 && allReachLeft(rulesH, left)) box.x0 = left;
  if (xs0.length >= 3 && right > box.x1 + 10 && allReachRight(rulesH, right)) box.x1 = right;
  // Columns the rules leave out ("|l|lr|": no rule between the last two) are still columns:
  // whitespace shared by every row of a ruled column parts it, as for tables without rules.
  // Only in a grid with an inner rule: a frame round a chart with its axis labels is no table.
  // (Not in a word processor's two-column table, `one`: its rules are drawn, and a gap
  // inside a cell is a list's indent after its dash.)
  const unruled = ruledXs.length >= 3 && !one ? unruledBounds(ruledXs, inside) : [];
  const xs = [...ruledXs, ...unruled].sort(ascending);
  // Rows without a rule between them (a tabular with \hline only round its header and its
  // end): a band between two rules whose every line has text in the same columns, two or
  // more of them, holds a row per line, not one cell of several lines per column.
  // (Not in a word processor's two-column table: it rules between its rows, and the lines of a
  // band are its cells' lines, "PKCS11/CNG/" / "PKCS12".)
  const between = one ? [] : bandLines(ys, xs, inside);
  if (between.length) ys = [...ys, ...between].sort(ascending);
  // (Loops and push, not .map/.findIndex callbacks made per call: V8 recompile churn.)
  const cells: TextRun[][][] = [];
  for (let r = 1; r < ys.length; r++) {
    const row: TextRun[][] = [];
    for (let c = 1; c < xs.length; c++) row.push([]);
    cells.push(row);
  }
  for (const r of inside) {
    const cx = (r.x0 + r.x1) / 2;
    const cy = r.baseline - r.size * 0.3;
    const row = bandIndex(ys, cy);
    const col = bandIndex(xs, cx);
    if (row >= 0 && col >= 0) cells[row][col].push(r);
  }
  const spanned = spansOf(group, xs, ys, unruled, between, headerCuts(vs, xs, ys, inside));
  if (spanned) {
    const grid = spanned.map((row) => row.map((c) => ({ ...c, text: cellText(c.members.flatMap(([r, k]) => cells[r][k])) })));
    // Rows that hold no text at all (padding between rules) go, and their cells with them.
    // (By push, not .map/.filter: V8 recompile churn.)
    const rows: string[][] = [];
    const kept: GridCell[][] = [];
    for (let r = 0; r < grid.length; r++) {
      const row = grid[r];
      if (!(row.some((c) => c.text) || grid.some((other, o) => o < r && other.some((c) => c.text && o + c.rowspan > r)))) continue;
      const out: string[] = [];
      for (let k = 1; k < xs.length; k++) out.push('');
      for (const c of row) out[c.col] = c.text;
      rows.push(out);
      const cellsOut: GridCell[] = [];
      for (const { text, col, colspan, rowspan } of row) cellsOut.push({ text, col, colspan, rowspan });
      kept.push(cellsOut);
    }
    if (rows.length && xs.length >= 3) return { ...box, rows, cells: kept, columns: xs };
    return null;
  }
  const rows: string[][] = [];
  for (const row of cells) {
    const texts: string[] = [];
    let filled = false;
    for (const c of row) {
      const text = cellText(c);
      texts.push(text);
      if (text !== '') filled = true;
    }
    if (filled) rows.push(texts);
  }
  // The rules' x-positions (each column's left rule, and the right one): a grid cut by a page
  // break is drawn again at the same positions on the next page, which joins the parts.
  return rows.length >= 1 && xs.length >= 3 ? { ...box, rows, columns: xs } : null;
}

/** Whether every horizontal rule starts at x = left or before it. */
function allReachLeft(rulesH: Segment[], left: number): boolean {
  for (const h of rulesH) if (!(h.x0 <= left + TOL)) return false;
  return true;
}

/** Whether every horizontal rule ends at x = right or after it. */
function allReachRight(rulesH: Segment[], right: number): boolean {
  for (const h of rulesH) if (!(h.x1 >= right - TOL)) return false;
  return true;
}

/** Whether at each x-position of xs a vertical rule there rises to height `above`. */
function allRiseTo(xs: number[], vs: Segment[], above: number): boolean {
  for (const x of xs) {
    let found = false;
    for (const s of vs) if (Math.abs(s.x0 - x) <= TOL && s.y0 <= above + TOL) found = true;
    if (!found) return false;
  }
  return true;
}

/** Whether at each x-position of xs a vertical rule there reaches down to height `below`. */
function allFallTo(xs: number[], vs: Segment[], below: number): boolean {
  for (const x of xs) {
    let found = false;
    for (const s of vs) if (Math.abs(s.x0 - x) <= TOL && s.y1 >= below - TOL) found = true;
    if (!found) return false;
  }
  return true;
}

/**
 * The top of a header row set right on a grid's top rule with no rule over it (its shading is
 * no rule): one line whose baseline is within a font size of the rule, within the grid's
 * width, with no other text less than two lines above the rule, in two or more pieces whose
 * every gap (wider than a word space) holds a column bound or is two font sizes wide. Null when there is none
 * (a caption or a paragraph over the table reads on across the bounds).
 */
function shadedHeaderTop(top: number, xs: number[], x0: number, x1: number, runs: TextRun[]): number | null {
  const line: TextRun[] = [];
  let size = 0;
  for (const r of runs) {
    if (r.baseline >= top || r.baseline < top - 2 * r.size || r.x1 < x0 - 2 * r.size || r.x0 > x1 + 2 * r.size) continue;
    // (Text of the line reaching out of the grid: a running header over a table at the top of
    // a page, not a row of it. Marks with no letter or digit, arrows over columns, are no cells.)
    if (r.x0 < x0 - 1 || r.x1 > x1 + 1) return null;
    if (!/[\p{L}\p{N}]/u.test(r.text) && r.text.trim()) return null;
    line.push(r);
    size = Math.max(size, r.size);
  }
  if (line.length < 2) return null;
  line.sort(byX0);
  let baseline = -Infinity;
  for (const r of line) baseline = Math.max(baseline, r.baseline);
  for (const r of line) {
    // One line only, just over the rule.
    if (Math.abs(r.baseline - baseline) > 0.35 * size) return null;
  }
  if (top - baseline > size) return null;
  let pieces = 1;
  let reach = line[0].x1;
  for (let i = 1; i < line.length; i++) {
    const r = line[i];
    if (r.x0 - reach > 0.5 * size) {
      // (Or two font sizes wide: a column the rules leave out of the header's grid.)
      let bound = r.x0 - reach >= 2 * size;
      for (const x of xs) if (x > reach && x < r.x0) bound = true;
      if (!bound) return null;
      pieces++;
    }
    reach = Math.max(reach, r.x1);
  }
  if (pieces < 2) return null;
  let head = Infinity;
  for (const r of line) head = Math.min(head, r.baseline - r.size);
  return head - 2;
}

/**
 * A word processor's two-column table ruled between its rows, with one vertical rule between
 * the columns and none at its sides (a "feature | values" or "parameter | meaning" table): the
 * column bounds (the rows' rules' ends and the rule) and row bounds (a header row above the
 * first rule, as far as the vertical rule rises, and a last row below the last, as far as it
 * falls), or null. Only where every row rule is of one length reaching past the vertical one
 * on both sides, with text on both sides of it.
 */
function oneRuleColumns(x: number, vs: Segment[], rulesH: Segment[], ys: number[], runs: TextRun[]): { xs: number[]; ys: number[] } | null {
  if (rulesH.length < 2 || ys.length < 2) return null;
  const left = rulesH[0].x0;
  const right = rulesH[0].x1;
  for (const h of rulesH) if (Math.abs(h.x0 - left) > TOL || Math.abs(h.x1 - right) > TOL) return null;
  if (x - left < 10 || right - x < 10) return null;
  let above = Infinity;
  let below = -Infinity;
  for (const v of vs) {
    above = Math.min(above, v.y0);
    below = Math.max(below, v.y1);
  }
  let top = ys[0];
  let bottom = ys[ys.length - 1];
  if (above < top - 5) top = above;
  if (below > bottom + 5) bottom = below;
  let leftText = false;
  let rightText = false;
  for (const r of runs) {
    const cy = r.baseline - r.size * 0.3;
    if (cy <= top || cy >= bottom) continue;
    const cx = (r.x0 + r.x1) / 2;
    if (cx > left && cx < x) leftText = true;
    else if (cx > x && cx < right) rightText = true;
  }
  if (!leftText || !rightText) return null;
  const out = [...ys];
  if (top < ys[0]) out.unshift(top);
  if (bottom > ys[ys.length - 1]) out.push(bottom);
  return { xs: [left, x, right], ys: out };
}

/** Horizontal rules as drawn across: the pieces at one height (within half a point) as one segment from the leftmost to the rightmost. */
function rulesAtHeights(hs: Segment[]): Segment[] {
  const sorted = [...hs].sort((a, b) => a.y0 - b.y0);
  const out: Segment[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.y0 - last.y0 <= 0.5) {
      last.x0 = Math.min(last.x0, s.x0);
      last.x1 = Math.max(last.x1, s.x1);
    } else out.push({ ...s });
  }
  return out;
}

/**
 * The horizontal rules that are not text underlines: an underline sits just under a run's
 * baseline (within a third of its size) and no wider than the runs of its line.
 */
function tableRules(hs: Segment[], runs: TextRun[]): Segment[] {
  const out: Segment[] = [];
  for (const s of hs) {
    let lo = Infinity;
    let hi = -Infinity;
    for (const r of runs) {
      if (s.y0 < r.baseline - 0.5 || s.y0 > r.baseline + 0.35 * r.size) continue;
      lo = Math.min(lo, r.x0);
      hi = Math.max(hi, r.x1);
    }
    if (!(s.x0 >= lo - 2 && s.x1 <= hi + 2)) out.push(s);
  }
  return out;
}

/** The band (between bounds[k] and bounds[k + 1]) that holds v; -2 past the last (a loop, not a callback made per call). */
function bandIndex(bounds: number[], v: number): number {
  for (let k = 1; k < bounds.length; k++) if (v < bounds[k]) return k - 1;
  return -2;
}

/** The column (between xs[k] and xs[k + 1]) of a run's middle; -2 right of the last. */
function runColumn(xs: number[], r: TextRun): number {
  return bandIndex(xs, (r.x0 + r.x1) / 2);
}

/**
 * Row bounds inside the bands between a grid's horizontal rules: between the lines of a band
 * whose every line has text in the same two or more columns and goes on with no cell of the
 * line above (no lower-case start, nothing after a comma or hyphen: cells on several lines
 * side by side stay cells).
 */
function bandLines(ys: number[], xs: number[], runs: TextRun[]): number[] {
  const out: number[] = [];
  const colOf = (r: TextRun) => runColumn(xs, r);
  for (let b = 0; b + 1 < ys.length; b++) {
    const band = runs.filter((r) => r.baseline - r.size * 0.3 > ys[b] && r.baseline - r.size * 0.3 < ys[b + 1]);
    if (band.length < 4) continue;
    const size = band.reduce((a, r) => a + r.size, 0) / band.length;
    const lines: TextRun[][] = [];
    for (const r of [...band].sort(byBaseline)) {
      const last = lines[lines.length - 1];
      if (last && r.baseline - last[0].baseline <= 0.35 * size) last.push(r);
      else lines.push([r]);
    }
    if (lines.length < 2) continue;
    const sets = lines.map((l) => [...new Set(l.map(colOf))].sort(ascending).join(','));
    const text = (l: TextRun[], k: number) => l.filter((r) => colOf(r) === k).sort(byX0).map((r) => r.text).join(' ').trim();
    if (sets[0].split(',').length < 2) continue;
    if (sets.some((x) => x !== sets[0])) {
      // Rows whose cells wrap ("|l|l|p{5cm}|" with \hline only round the header and the end):
      // a line with text in the first column starts a row, in the same columns as the band's
      // first line; a line without the first column goes on with the cells above it. Not where a
      // first cell itself may go on (after a comma or a hyphen, or every cell of its line
      // lower case: "wrap  0  Column at which ..." starts a row).
      const first = Number(sets[0].split(',')[0]);
      const starts = lines.map((l) => l.some((r) => colOf(r) === first));
      // (A line under a start with a column the starts do not have is a cell set lower, in
      // the middle of rows spanned by others: one row of several lines, not rows.)
      const own = new Set(sets[0].split(','));
      if (starts.filter(Boolean).length < 2 || lines.some((l, n) => (starts[n] ? sets[n] !== sets[0] : sets[n].split(',').some((k) => !own.has(k))))) continue;
      const lower = (l: TextRun[], n: number) => sets[n].split(',').every((k) => /^[\p{Ll}(]/u.test(text(l, Number(k))));
      // (Nor under a line with a word broken at a hyphen or dash in any of its cells: "Solar–" /
      // "rechargeable pack" beside "Portable", a word processor's cell of two paragraphs.)
      const broken = (n: number) => sets[n].split(',').some((k) => /\p{L}[-–—]$/u.test(text(lines[n], Number(k))));
      if (lines.some((l, n) => n > 0 && starts[n] && (lower(l, n) || /[,-]$/.test(text(lines[n - 1], first)) || broken(n - 1)))) continue;
      for (let n = 1; n < lines.length; n++) {
        if (!starts[n]) continue;
        const top = Math.min(...lines[n].map((r) => r.baseline - r.size * 0.8));
        const bottom = Math.max(...lines[n - 1].map((r) => r.baseline));
        out.push((top + bottom) / 2);
      }
      continue;
    }
    const cols = sets[0].split(',').map(Number);
    // (Lines centred in every column, of different widths, are rows of centred cells ("| c | c |"
    // with no rule between rows: "p" / "mp" beside "soft" / "moderately soft"), whatever case
    // their descriptions start with: a centred column does not wrap.)
    // (Nor a line with a cell whose first word would have fitted after the cell above it, within
    // the column's rules less their padding: that cell did not wrap there, so the line is a row,
    // "txt1" / "txt2" in a p{3cm} column beside "A" / "B".)
    if (!centredLines(lines, cols, colOf) && lines.some((l, n) => n > 0 && !cols.some((k) => fitsAfter(lines, n, k, colOf, xs)) && cols.some((k) => /^[\p{Ll}(]/u.test(text(l, k)) || /[,\-–—]$/u.test(text(lines[n - 1], k))))) continue;
    for (let n = 1; n < lines.length; n++) {
      const top = Math.min(...lines[n].map((r) => r.baseline - r.size * 0.8));
      const bottom = Math.max(...lines[n - 1].map((r) => r.baseline));
      out.push((top + bottom) / 2);
    }
  }
  return out;
}

/**
 * Whether the first word of line n's text in column k would have fitted after line n - 1's text
 * there with a font size to spare, within the column's rules (xs[k], xs[k + 1]) less its padding
 * (the least gap between the band's text and either rule): a cell breaks a line only before a
 * word that does not fit.
 */
function fitsAfter(lines: TextRun[][], n: number, k: number, colOf: (r: TextRun) => number, xs: number[]): boolean {
  let pad = Infinity;
  for (const l of lines) for (const r of l) if (colOf(r) === k) pad = Math.min(pad, r.x0 - xs[k], xs[k + 1] - r.x1);
  let end = -Infinity;
  for (const r of lines[n - 1]) if (colOf(r) === k) end = Math.max(end, r.x1);
  let first: TextRun | null = null;
  for (const r of lines[n]) if (colOf(r) === k && (!first || r.x0 < first.x0)) first = r;
  if (!first || end === -Infinity || !(pad >= 0)) return false;
  const text = first.text.trim();
  const word = (Math.max(1, text.split(/\s/)[0].length) / Math.max(1, text.length)) * (first.x1 - first.x0);
  // (With a font size to spare: the padding is estimated, and a word processor breaks a word too
  // long for its cell anywhere, leaving its tail, "m", short enough to seem to fit.)
  return end + 1.3 * first.size + word < xs[k + 1] - pad;
}

/**
 * Whether every column's text is centred on one x on every line (within a point), the lines
 * of different widths in some column, and no cell of a line ends with a comma or hyphen.
 */
function centredLines(lines: TextRun[][], cols: number[], colOf: (r: TextRun) => number): boolean {
  let varied = false;
  for (const k of cols) {
    let centre = NaN;
    let width = NaN;
    for (const l of lines) {
      let x0 = Infinity;
      let x1 = -Infinity;
      let last = '';
      for (const r of l) {
        if (colOf(r) !== k) continue;
        x0 = Math.min(x0, r.x0);
        if (r.x1 > x1) {
          x1 = r.x1;
          last = r.text;
        }
      }
      if (/[,\-–—]\s*$/u.test(last)) return false;
      const c = (x0 + x1) / 2;
      if (Number.isNaN(centre)) {
        centre = c;
        width = x1 - x0;
      } else {
        if (Math.abs(c - centre) > 1) return false;
        if (Math.abs(x1 - x0 - width) > 2) varied = true;
      }
    }
  }
  return varied;
}

/**
 * Column bounds inside ruled columns: gaps of at least 0.8 em in the x projection of the
 * column's runs, with runs of two or more lines on each side (one line's wide space is no column).
 */
function unruledBounds(ruledXs: number[], runs: TextRun[]): number[] {
  const out: number[] = [];
  for (let k = 0; k + 1 < ruledXs.length; k++) {
    const col = runs.filter((r) => (r.x0 + r.x1) / 2 > ruledXs[k] && (r.x0 + r.x1) / 2 < ruledXs[k + 1]).sort(byX0);
    if (col.length < 4) continue;
    const size = col.reduce((a, r) => a + r.size, 0) / col.length;
    let reach = col[0].x1;
    for (let i = 1; i < col.length; i++) {
      const gap = col[i].x0 - reach;
      if (gap >= 0.8 * size && lineCount(col, 0, i, size) >= 2 && lineCount(col, i, col.length, size) >= 2) out.push((reach + col[i].x0) / 2);
      reach = Math.max(reach, col[i].x1);
    }
  }
  return out;
}

/** How many lines (baselines 0.35 sizes apart) runs[from..to) make. */
function lineCount(runs: TextRun[], from: number, to: number, size: number): number {
  const baselines: number[] = [];
  for (let i = from; i < to; i++) baselines.push(runs[i].baseline);
  return cluster(baselines, size * 0.35).length;
}

/**
 * The column bounds that part the cells of a header row drawn with no rules at its sides
 * (joinHeaderRules: its top rule meets no vertical rule): those no text of the row crosses.
 */
function headerCuts(vs: Segment[], xs: number[], ys: number[], inside: TextRun[]): number[] {
  for (const v of vs) if (v.y0 <= ys[0] + TOL) return [];
  const out: number[] = [];
  for (let k = 1; k + 1 < xs.length; k++) {
    let crossed = false;
    for (const r of inside) {
      const cy = r.baseline - r.size * 0.3;
      if (cy > ys[0] && cy < ys[1] && r.x0 < xs[k] - 1 && r.x1 > xs[k] + 1) crossed = true;
    }
    if (!crossed) out.push(xs[k]);
  }
  return out;
}

/**
 * The grid's cells joined where the rule between two of them is missing: a cell spanning
 * columns has no vertical rule through its middle, one spanning rows no horizontal rule.
 * Null when every grid cell is closed (a plain table), or when the joined shapes are not
 * rectangles (rules that only partly frame the text: no cell structure to trust).
 */
function spansOf(group: { s: Segment; horizontal: boolean }[], xs: number[], ys: number[], unruled: number[], between: number[] = [], headCuts: number[] = []) {
  const rowsN = ys.length - 1;
  const colsN = xs.length - 1;
  const vertical = group.filter((e) => !e.horizontal).map((e) => e.s);
  const horizontal = group.filter((e) => e.horizontal).map((e) => e.s);
  const ruledV = (x: number, y: number) => unruled.includes(x) || (y < ys[1] && headCuts.includes(x)) || vertical.some((s) => Math.abs(s.x0 - x) <= TOL && s.y0 <= y && s.y1 >= y);
  const ruledH = (y: number, x: number) => between.includes(y) || horizontal.some((s) => Math.abs(s.y0 - y) <= TOL && s.x0 <= x && s.x1 >= x);
  const id = (r: number, k: number) => r * colsN + k;
  const parent = Array.from({ length: rowsN * colsN }, (_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  let joined = false;
  for (let r = 0; r < rowsN; r++) {
    const midY = (ys[r] + ys[r + 1]) / 2;
    for (let k = 0; k < colsN; k++) {
      const midX = (xs[k] + xs[k + 1]) / 2;
      if (k + 1 < colsN && !ruledV(xs[k + 1], midY)) {
        parent[find(id(r, k))] = find(id(r, k + 1));
        joined = true;
      }
      if (r + 1 < rowsN && !ruledH(ys[r + 1], midX)) {
        parent[find(id(r, k))] = find(id(r + 1, k));
        joined = true;
      }
    }
  }
  if (!joined) return null;
  const regions = new Map<number, [number, number][]>();
  for (let r = 0; r < rowsN; r++) for (let k = 0; k < colsN; k++) {
    const root = find(id(r, k));
    if (!regions.has(root)) regions.set(root, []);
    regions.get(root)!.push([r, k]);
  }
  const grid: { col: number; colspan: number; rowspan: number; members: [number, number][] }[][] = ys.slice(1).map(() => []);
  for (const members of regions.values()) {
    const r0 = Math.min(...members.map(([r]) => r));
    const r1 = Math.max(...members.map(([r]) => r));
    const k0 = Math.min(...members.map(([, k]) => k));
    const k1 = Math.max(...members.map(([, k]) => k));
    if ((r1 - r0 + 1) * (k1 - k0 + 1) !== members.length) return null;
    grid[r0].push({ col: k0, colspan: k1 - k0 + 1, rowspan: r1 - r0 + 1, members });
  }
  // A table whose every row is one cell is a framed box of text, not a table.
  if (grid.every((row) => row.length <= 1)) return null;
  for (const row of grid) row.sort((a, b) => a.col - b.col);
  return grid;
}

/** A line's largest size. */
function lineSize(l: TextRun[]): number {
  let size = -Infinity;
  for (const r of l) size = Math.max(size, r.size);
  return size;
}

/** The lines from lines[from] on, one step (up or down) at a time, while each is a line step from the last; null past four lines or none. */
function lineBlock(lines: TextRun[][], from: number, step: 1 | -1): TextRun[][] | null {
  const out: TextRun[][] = [];
  for (let k = from; k >= 0 && k < lines.length; k += step) {
    const prev = out[out.length - 1];
    if (prev && Math.abs(lines[k][0].baseline - prev[0].baseline) > 1.6 * lineSize(prev)) break;
    out.push(lines[k]);
    if (out.length > 4) return null;
  }
  return out.length ? out : null;
}

/** The index of the start (a cell's left edge) run r begins at, or -1. */
function startIndex(starts: number[], r: TextRun): number {
  for (let k = 0; k < starts.length; k++) if (Math.abs(r.x0 - starts[k]) <= 1.5) return k;
  return -1;
}

/**
 * The rows round a lone rule (a table ruled between rows only, cut by a page break after its
 * first row): the top of the lines just above it and the bottom of those just below, when
 * each side is a block of one to four lines standing apart from other text, every run of them
 * starts at one of a few x-positions (cells) without reaching the next, and the lines next to
 * the rule have two or more runs at the same x-positions. Prose above or below (one run across
 * the cells' x-positions, or a block of more lines: a page's two columns) is no row.
 */
function loneRuleRows(y: number, x0: number, x1: number, runs: TextRun[]): [number, number] | null {
  const near = runs.filter((r) => (r.x0 + r.x1) / 2 > x0 && (r.x0 + r.x1) / 2 < x1).sort((a, b) => a.baseline - b.baseline);
  if (!near.length) return null;
  const lines: TextRun[][] = [];
  for (const r of near) {
    const last = lines[lines.length - 1];
    if (last && Math.abs(last[0].baseline - r.baseline) <= 2) last.push(r);
    else lines.push([r]);
  }
  // (Module functions, not closures made per call: V8 recompile churn, 'wrong call target'.)
  let firstBelow = -1;
  for (let k = 0; k < lines.length; k++) {
    if (lines[k][0].baseline - lineSize(lines[k]) * 0.3 > y) {
      firstBelow = k;
      break;
    }
  }
  const lastAbove = (firstBelow < 0 ? lines.length : firstBelow) - 1;
  if (firstBelow < 0 || lastAbove < 0) return null;
  if (y - lines[lastAbove][0].baseline > 2 * lineSize(lines[lastAbove]) || lines[firstBelow][0].baseline - y > 2.5 * lineSize(lines[firstBelow])) return null;
  const above = lineBlock(lines, lastAbove, -1);
  const below = lineBlock(lines, firstBelow, 1);
  if (!above || !below || above[0].length < 2 || below[0].length < 2) return null;
  const all = [...above, ...below].flat();
  const lefts: number[] = [];
  for (const r of all) lefts.push(r.x0);
  const starts = cluster(lefts, 1.5);
  if (starts.length > Math.max(above[0].length, below[0].length)) return null;
  for (const r of all) if (!(r.x1 < (starts[startIndex(starts, r) + 1] ?? Infinity))) return null;
  let shared = 0;
  for (const r of above[0]) if (below[0].some((b) => startIndex(starts, b) === startIndex(starts, r))) shared++;
  if (shared < 2) return null;
  return [Math.min(...above.flat().map((r) => r.baseline - r.size)) - 1, Math.max(...below.flat().map((r) => r.baseline + 0.3 * r.size))];
}

/** A stretch of a page's line with no gap wider than a word space in it (ruleStacks). */
interface LineSpan {
  x0: number;
  x1: number;
  baseline: number;
  size: number;
}

/** Where a rule-stack table's cell lies: its runs' extent and largest size. */
interface CellExtent {
  x0: number;
  x1: number;
  size: number;
}

/**
 * Tables separated by horizontal rules only: rules of about the same extent stacked on top
 * of each other; columns come from the whitespace shared by every row between them.
 *
 * Its steps are module functions that take what they use as arguments, not closures made on
 * every call: as one function of 400 lines with twenty closures, V8 compiled it again and
 * again in the tool pool's long-lived workers (each TurboFan compile 100-300 ms of CPU; 1.4 s
 * of the second pass over the tuned suite), and under tsx every named closure is also renamed
 * (esbuild's keepNames, a defineProperty) each time it is made.
 */
function ruleStackTables(h: Segment[], runs: TextRun[], taken: Table[], short: Segment[]): Table[] {
  const tables: Table[] = [];
  for (const stack of ruleStacks(h, runs, taken)) {
    const table = stackTable(stack, h, runs, short);
    if (table) tables.push(table);
  }
  return tables;
}

const byY0 = (a: Segment, b: Segment): number => a.y0 - b.y0;
const descending = (a: number, b: number): number => b - a;

/**
 * The rules not inside a table already, in stacks of one extent each, cut where text under
 * them and wider than them runs between two of them: two tables of the same width on a page,
 * with a paragraph between them, are two stacks (text of the other column of the page does not cut).
 */
function ruleStacks(h: Segment[], runs: TextRun[], taken: Table[]): Segment[][] {
  // (Lists by push, not .filter/.map: see gridTables.)
  const free: Segment[] = [];
  for (const s of h) if (!insideTable(s, taken)) free.push(s);
  free.sort(byY0);
  // The page's lines cut only at gaps wider than a word space (runs also end where the font changes).
  const spans: LineSpan[] = [];
  for (const r of [...runs].sort(byBaselineThenX0)) {
    const last = spans[spans.length - 1];
    if (last && Math.abs(last.baseline - r.baseline) <= 1 && r.x0 >= last.x1 - 1 && r.x0 - last.x1 < 0.55 * Math.max(last.size, r.size)) last.x1 = Math.max(last.x1, r.x1);
    else spans.push({ x0: r.x0, x1: r.x1, baseline: r.baseline, size: r.size });
  }
  const wider = new Map<Segment[], LineSpan[]>();
  // The page's text size: the median run's.
  const sizes: number[] = [];
  for (const r of runs) sizes.push(r.size);
  sizes.sort(ascending);
  const textSize = sizes.length ? sizes[sizes.length >> 1] : 10;
  const stacks: Segment[][] = [];
  for (const s of free) {
    // (A list's rules, over and under it beside other lists, are one table's: a vertical rule
    // joins them, and a narrow list's lines look as wide as prose. Nor does a stack reach over
    // a table of its own between two of its rules.)
    let stack: Segment[] | undefined;
    for (const st of stacks) {
      const lastY = st[st.length - 1].y0;
      if (Math.abs(st[0].x0 - s.x0) <= 6 && Math.abs(st[0].x1 - s.x1) <= 6 && ((s as Joined).list || !proseBetween(st, lastY, s.y0, runs, spans, wider, textSize)) && !tableBetween(taken, s, lastY, s.y0)) {
        stack = st;
        break;
      }
    }
    if (stack) stack.push(s);
    else stacks.push([s]);
  }
  return stacks;
}

/** Whether rule s lies within one of the tables. */
function insideTable(s: Segment, taken: Table[]): boolean {
  for (const t of taken) if (s.y0 >= t.top - TOL && s.y0 <= t.bottom + TOL && s.x0 >= t.x0 - TOL && s.x1 <= t.x1 + TOL) return true;
  return false;
}

/** Whether one of the tables lies between heights y0 and y1 across rule s. */
function tableBetween(taken: Table[], s: Segment, y0: number, y1: number): boolean {
  for (const t of taken) if (t.top > y0 && t.bottom < y1 && t.x0 < s.x1 && t.x1 > s.x0) return true;
  return false;
}

/**
 * Whether text wider than stack st's rules runs between heights y0 and y1 (or a line of prose
 * as wide as them, text with no gap wider than a word space across most of their width: tables
 * with rules between rows only and no frame, as wide as the text, have paragraphs between them
 * as wide as they are. A row's cells stand apart). `wider` keeps each stack's candidates.
 */
function proseBetween(st: Segment[], y0: number, y1: number, runs: TextRun[], spans: LineSpan[], wider: Map<Segment[], LineSpan[]>, textSize: number): boolean {
  const a = st[0];
  let list = wider.get(st);
  if (!list) {
    list = [];
    for (const r of runs) if (widerThanRule(r, a)) list.push(r);
    for (const r of spans) if (widerThanRule(r, a)) list.push(r);
    wider.set(st, list);
  }
  let found = false;
  for (const r of list) {
    if (r.baseline <= y0 || r.baseline - r.size * 0.7 >= y1) continue;
    // (But for the one line of the page's text size between two rules fifteen such sizes
    // wide or less, within them: a one-column table's head fills its rules.)
    if (r.x0 >= a.x0 - TOL && r.x1 <= a.x1 + TOL && r.size <= 1.2 * textSize && a.x1 - a.x0 <= 15 * textSize && oneLineBetween(runs, a.x0, a.x1, y0, y1)) continue;
    found = true;
  }
  return found;
}

function widerThanRule(r: LineSpan, a: Segment): boolean {
  return r.x0 < a.x1 && r.x1 > a.x0 && (r.x0 < a.x0 - r.size || r.x1 > a.x1 + r.size || r.x1 - r.x0 >= 0.85 * (a.x1 - a.x0));
}

/** Whether some run lies in the box x0..x1, top..bottom (inBox's test). */
function textInBox(runs: TextRun[], x0: number, x1: number, top: number, bottom: number): boolean {
  // One box for the scan, not one per run.
  const box = { x0, x1, top, bottom };
  for (const r of runs) if (inBox(r, box)) return true;
  return false;
}

/** The table a stack of rules makes, or null. */
function stackTable(stack: Segment[], h: Segment[], runs: TextRun[], short: Segment[]): Table | null {
  // By push, not map: see gridTables.
  const stackY0s: number[] = [];
  for (const s of stack) stackY0s.push(s.y0);
  let ys = cluster(stackY0s, TOL);
  let perRow = false;
  // A frame round the rules (an \fbox a few points out) joins the stack: the empty bands
  // between it and the table's own top and bottom rules are no rows.
  let x0 = Infinity;
  let x1 = -Infinity;
  for (const s of stack) {
    x0 = Math.min(x0, s.x0);
    x1 = Math.max(x1, s.x1);
  }
  while (ys.length >= 4 && !textInBox(runs, x0 - TOL, x1 + TOL, ys[0], ys[1])) ys = ys.slice(1);
  while (ys.length >= 4 && !textInBox(runs, x0 - TOL, x1 + TOL, ys[ys.length - 2], ys[ys.length - 1])) ys = ys.slice(0, -1);
  // One rule with a row at the cells' x-positions right above it and right below it (no
  // more than four lines each, set apart from other text): the part of a table ruled
  // between rows only that a page break left with its header and one row.
  let lone = false;
  if (ys.length === 1) {
    const parts = loneRuleRows(ys[0], stack[0].x0 - TOL, stack[0].x1 + TOL, runs);
    if (!parts) return null;
    ys = [parts[0], ys[0], parts[1]];
    lone = perRow = true;
  }
  // Two rules (\toprule, \bottomrule) with a row of \cmidrule pieces between them, one
  // under each head and no \midrule: that row parts the heads from the body as a rule would.
  if (ys.length === 2) {
    const y = columnRuleRow(h, short, stack[0].x0, stack[0].x1, ys[0], ys[1], runs);
    if (y !== null) ys = [ys[0], y, ys[1]];
  }
  // A list set beside others has a rule over it and one under it, no rule between its rows:
  // its lines are its rows, none a head.
  if (ys.length === 2 && (stack[0] as Joined).list) ys = [ys[0], ys[0] + 0.1, ys[1]];
  if (ys.length < 3) return null;
  if (!lone) {
    const outer = outerRows(stack[0], ys, runs);
    if (outer) {
      perRow = true;
      ys = outer;
    }
  }
  const box = { x0: stack[0].x0 - TOL, x1: stack[0].x1 + TOL, top: ys[0], bottom: ys[ys.length - 1] };
  // By push, not .filter: an empty filter's result is a Smi array (V8 recompile churn).
  const inside: TextRun[] = [];
  for (const r of runs) if (inBox(r, box)) inside.push(r);
  if (!inside.length) return null;
  let sizeSum = 0;
  for (const r of inside) sizeSum += r.size;
  const size = sizeSum / inside.length;
  // The table's lines as the page's text is read: a superscript or subscript ("80.9°b") on
  // its line, not a line of its own; each line's runs, left to right.
  let lineFrs = buildFragments(inside, Infinity).sort(byBaseline);
  // Notes in a band of their own under the table's rows ("1 recent pstricks versions do load
  // xcolor by default", "L, M, N are positive integers"): lines of one piece of text each
  // under the last rule but one, below lines of several cells. They are the page's text,
  // not a row whose one cell would straddle (and so erase) every column bound.
  if (ys.length >= 3) {
    const lastTop = ys[ys.length - 2];
    const notes: Fragment[] = [];
    const rows: Fragment[] = [];
    for (const f of lineFrs) {
      if (f.baseline > lastTop) notes.push(f);
      if (f.baseline < lastTop) rows.push(f);
    }
    if (notes.length && notes.length <= 5 && notes.every((f) => onePiece(f, size)) && rows.some((f) => !onePiece(f, size))) {
      lineFrs = rows;
      box.bottom = lastTop;
    }
  }
  // (These lists by push, not .map/.filter: V8 recompile churn, 'wrong map' deopts of this
  // function on arrays whose elements kind followed the tier of the code that made them.)
  const baselines: number[] = [];
  const lineRuns: TextRun[][] = [];
  for (const f of lineFrs) {
    baselines.push(f.baseline);
    lineRuns.push([...f.runs].sort(byX0));
  }
  const stackYs = new Set(ys);
  // Short rules inside the box (booktabs' \cmidrule) under a cell: the columns it covers are the cell's.
  const under: Segment[] = [];
  for (const s of h) if (s.y0 > box.top + TOL && s.y0 < box.bottom - TOL && !stackYs.has(s.y0) && s.x1 - s.x0 < box.x1 - box.x0 - 2 * TOL) under.push(s);
  // Header lines: above the first rule under the top one (when they are a few, over more:
  // a rule between groups of rows has many above it), or over a short rule (a cell spanning
  // the columns the rule covers). Their cells may straddle column bounds.
  let headBand = 0;
  if (ys.length >= 3) for (const b of baselines) if (b < ys[1]) headBand++;
  // The short rules each line heads: under it, its text over them starting or ending at a
  // rule's end or centred on it. A rule drawn again at the same x-positions further down
  // parts groups of rows (or rows), and only its first, under the header, is headed: "PDF"
  // over the rule under its group's first three columns is a row's last line, not a head.
  const headedBy: Segment[][] = [];
  const header: boolean[] = [];
  for (let n = 0; n < baselines.length; n++) {
    const b = baselines[n];
    const headed = headedRules(under, lineRuns[n], b, baselines[n + 1] ?? box.bottom, size);
    headedBy.push(headed);
    header.push((headBand <= 3 && headBand < baselines.length && b < ys[1]) || headed.length > 0);
  }
  // Column boundaries: whitespace in the x projection of the runs of lines of several runs,
  // 0.55 font sizes wide or more (wider than a word space, typewriter ones too: cells set
  // 6pt apart, runs of their own since run-builder.ts cuts runs there).
  // A line of one run ("Item" over two columns) may straddle a boundary: it spans, it does
  // not erase it; nor does a cell centred over a short rule reaching past it on both sides
  // ("Multicolumn entry!" over the \cmidrule of the two columns it spans).
  // A table has two lines or more of several cells: rules round a heading whose number
  // stands apart from its title, over paragraphs and a listing in a box, make none.
  const several: TextRun[] = [];
  let multi = 0;
  for (const rs of lineRuns) {
    if (rs.length < 2) continue;
    multi++;
    for (const r of rs) several.push(r);
  }
  if (multi < 2) return oneColumnTable(box, ys, lineRuns, baselines, size);
  const unspanned: TextRun[] = [];
  // Each run's line, looked up once (the scan per run, in the loop over body lines below, was cubic in a long table's lines).
  const lineIndex = lineIndexOf(lineRuns);
  for (const r of several) if (!spanning(r, lineIndex.get(r) ?? -1, headedBy, lineRuns, header, size)) unspanned.push(r);
  const intervals: [number, number][] = [];
  for (const r of unspanned.length ? unspanned : several.length ? several : inside) intervals.push([r.x0, r.x1]);
  intervals.sort(byFirst);
  let bounds = gapsOf(intervals, size);
  // One body line of several cells with a cell over columns (\multicolumn{4}{l}{...} in the
  // last row) erases the bounds under it: where the other lines, four or more, agree on
  // bounds that line's cells straddle, they stand, and that cell spans.
  if (unspanned.length) {
    const bodyLines: number[] = [];
    for (let n = 0; n < lineRuns.length; n++) if (lineRuns[n].length >= 2 && !header[n]) bodyLines.push(n);
    if (bodyLines.length >= 5) {
      for (const n of bodyLines) {
        const others: [number, number][] = [];
        for (const r of unspanned) if ((lineIndex.get(r) ?? -1) !== n) others.push([r.x0, r.x1]);
        others.sort(byFirst);
        const more = gapsOf(others, size);
        if (more.length > bounds.length && straddled(more, lineRuns[n]) === more.length - bounds.length) {
          bounds = more;
          break;
        }
      }
    }
  }
  // Columns set closer than the whitespace rule sees (\tabcolsep cut to a point or two):
  // left edges shared by several lines, and a column of marks after the cells.
  const close = closeBounds(bounds, lineRuns, header, unspanned.length ? unspanned : several, size, box.x0);
  // (A column whose right edge is such a bound is as wide as its widest cell, an l column:
  // its cells do not wrap, however little room the line above left.)
  const closeEdges = close ? close.added : [];
  if (close) {
    bounds = close.bounds;
    cutRuns(lineRuns, close.cuts);
  }
  // (All short rules inside the box: a row of pieces that stood for a \midrule is a stack rule.)
  const pieces: Segment[] = [];
  for (const s of h) if (s.y0 > box.top + TOL && s.y0 < box.bottom - TOL && s.x1 - s.x0 < box.x1 - box.x0 - 2 * TOL) pieces.push(s);
  for (const s of short) if (s.y0 > box.top + TOL && s.y0 < box.bottom - TOL) pieces.push(s);
  const ruledBounds = withColumnRules(bounds, pieces, box, size, lineRuns, baselines, header);
  if (ruledBounds) {
    bounds = ruledBounds.bounds;
    splitAtBounds(lineRuns, ruledBounds.gaps, headedBy, size);
  }
  if (bounds.length < 1) return oneColumnTable(box, ys, lineRuns, baselines, size);
  // A column with no text (a picture in every row): where each of the stack's rules is drawn
  // in pieces meeting at the same x-position, with no text starting just right of it (a
  // column of text starts there) nor running across it, and no bound near, that is a bound too.
  for (const x of sharedJoints(stack as Joined[])) {
    if (bounds.some((b) => Math.abs(b - x) < 2 * size) || inside.some((r) => (r.x0 < x && r.x1 > x) || (r.x0 >= x && r.x0 < x + 2 * size))) continue;
    bounds = [...bounds, x].sort((a, b) => a - b);
  }
  const edges = [box.x0, ...bounds, box.x1];
  unheadBodyRows(headedBy, header, lineRuns, edges, size);
  // Where each line's cell starts and ends (for telling a wrapped first cell from a row).
  const extent = new Map<GridCell, CellExtent>();
  const lines = stackLines(lineRuns, baselines, headedBy, header, under, edges, box, size, extent);
  // Rules under one column only, drawn again further down (microtype's Table 2: a rule under
  // each row's name), part rows: the lines between two of them are one row, its cells on
  // several lines.
  const separators: number[] = [];
  for (const s of under) if (repeated(under, s) && !headedBy.some((hs) => hs.includes(s)) && columnOf(edges, s.x0 + size) === columnOf(edges, s.x1 - size)) separators.push(s.y0);
  // (The rules under heads part bands too: a head is no row's second line.)
  if (separators.length >= 2) for (const hs of headedBy) for (const s of hs) separators.push(s.y0);
  const bandYs = separators.length >= 2 ? [...ys, ...separators].sort(ascending) : ys;
  if (separators.length >= 2) perRow = true;
  const join: RowJoin = { edges, closeEdges, extent, lastLine: new Map(), lastReach: new Map() };
  const grid = joinWrappedLines(lines, join, perRow, bandYs, baselines, header, under, lineRuns, size);
  // (Loops, not .map: see gridTables.)
  const rows: string[][] = [];
  for (const row of grid) {
    const out: string[] = [];
    for (let k = 1; k < edges.length; k++) out.push('');
    for (const c of row) out[c.col] = c.text;
    rows.push(out);
  }
  let spans = false;
  for (const row of grid) for (const c of row) if (c.colspan > 1) spans = true;
  // Where its columns' cells start, as for a table without rules (for joining a table cut by
  // a page break: the part on the next page has its cells at the same x-positions, and may be
  // read without its rules; the bounds midway across the gaps move with the text).
  const columns: number[] = [];
  for (let k = 0; k + 1 < edges.length; k++) {
    let x = Infinity;
    for (const line of lines) for (const c of line) if (c.col === k && c.colspan === 1) x = Math.min(x, extent.get(c)?.x0 ?? edges[k]);
    columns.push(Number.isFinite(x) ? x : edges[k]);
  }
  return { ...box, rows, columns, ...(spans ? { cells: grid } : {}), ...((stack[0] as Joined).list ? { beside: true } : {}) };
}

/**
 * Rules between rows only, no frame (Asciidoctor's grid=rows with frame=none, DocBook's
 * and word processors' plain table styles): every band between two rules holds one row
 * of one to four lines, and the first row sits above the first rule and
 * the last below the last, with no rule of their own. There the lines at the cells'
 * x-positions within a row's height of the outer rules are rows too, and a band's lines
 * are one row. Three bands or more, or two with such a row on both sides (a booktabs
 * table has two bands, head and body, and its caption or notes outside its rules).
 * Returns the stack's row bounds with those outer rows (ys itself when there are none), or
 * null when its rows are not rows of this kind.
 */
function outerRows(first: Segment, ys: number[], runs: TextRun[]): number[] | null {
  const ex0 = first.x0 - TOL;
  const ex1 = first.x1 + TOL;
  const area = { x0: ex0, x1: ex1, top: ys[0], bottom: ys[ys.length - 1] };
  const boxRuns: TextRun[] = [];
  for (const r of runs) if (inBox(r, area)) boxRuns.push(r);
  const bands: { h: number; n: number }[] = [];
  for (let k = 0; k + 1 < ys.length; k++) {
    const n = linesIn(boxRuns, ys[k], ys[k + 1]);
    if (n > 0) bands.push({ h: ys[k + 1] - ys[k], n });
  }
  if (bands.length < 2) return null;
  let hmax = -Infinity;
  for (const b of bands) {
    if (b.n > 4) return null;
    hmax = Math.max(hmax, b.h);
  }
  // The cells' left edges: x-positions where lines of two or more bands start a run.
  const lefts: number[] = [];
  for (const r of boxRuns) lefts.push(r.x0);
  const starts: number[] = [];
  for (const x of cluster(lefts, 1.5)) {
    const bandsAt = new Set<number>();
    for (const r of boxRuns) if (Math.abs(r.x0 - x) <= 1.5) bandsAt.add(bandIndexAbove(ys, r.baseline));
    if (bandsAt.size >= 2) starts.push(x);
  }
  const above = outerLines(ys[0], true, starts, runs, ex0, ex1, hmax);
  const below = outerLines(ys[ys.length - 1], false, starts, runs, ex0, ex1, hmax);
  if (bands.length < 3 && !above && !below) return null;
  let out = ys;
  if (above) {
    let top = Infinity;
    for (const r of above) top = Math.min(top, r.baseline - r.size);
    out = [top - 1, ...out];
  }
  if (below) {
    let baseline = -Infinity;
    let size = -Infinity;
    for (const r of below) {
      baseline = Math.max(baseline, r.baseline);
      size = Math.max(size, r.size);
    }
    out = [...out, baseline + 0.3 * size];
  }
  return out;
}

/** How many lines (baselines 2 apart) of runs lie between heights a and b. */
function linesIn(runs: TextRun[], a: number, b: number): number {
  const baselines: number[] = [];
  for (const r of runs) if (r.baseline - r.size * 0.3 > a && r.baseline - r.size * 0.3 < b) baselines.push(r.baseline);
  return cluster(baselines, 2).length;
}

/** The index of the first of ys below height y (ys.findIndex((v) => v > y)). */
function bandIndexAbove(ys: number[], y: number): number {
  for (let k = 0; k < ys.length; k++) if (ys[k] > y) return k;
  return -1;
}

/** Whether run r starts at one of the cells' left edges and ends before the next. */
function fitsStarts(r: TextRun, starts: number[]): boolean {
  let k = -1;
  for (let i = 0; i < starts.length; i++) {
    if (Math.abs(r.x0 - starts[i]) <= 1.5) {
      k = i;
      break;
    }
  }
  return k >= 0 && (k + 1 >= starts.length || r.x1 < starts[k + 1]);
}

/**
 * The lines next to the rule (the first within a row's height of it), outwards, one line
 * step apart (the row may have more lines than any other), up to four, as long as each fits:
 * a paragraph beyond, or its raised footnote mark, ends them.
 */
function outerLines(rule: number, up: boolean, starts: number[], runs: TextRun[], ex0: number, ex1: number, hmax: number): TextRun[] | null {
  if (starts.length < 2) return null;
  const rs: TextRun[] = [];
  for (const r of runs) if ((r.x0 + r.x1) / 2 > ex0 && (r.x0 + r.x1) / 2 < ex1 && (up ? r.baseline - r.size * 0.3 < rule : r.baseline - r.size * 0.3 > rule)) rs.push(r);
  const baselines: number[] = [];
  for (const r of rs) baselines.push(r.baseline);
  const lines = cluster(baselines, 2).sort(up ? descending : ascending);
  const out: TextRun[] = [];
  let last = NaN;
  for (let k = 0; k < lines.length && k < 4; k++) {
    const y = lines[k];
    const line: TextRun[] = [];
    for (const r of rs) if (Math.abs(r.baseline - y) <= 2 && !out.includes(r)) line.push(r);
    let size = -Infinity;
    for (const r of line) size = Math.max(size, r.size);
    if (Number.isNaN(last) ? Math.abs(y - size * 0.3 - rule) > hmax : Math.abs(y - last) > 1.6 * size) break;
    let fits = true;
    for (const r of line) {
      if (!fitsStarts(r, starts)) {
        fits = false;
        break;
      }
    }
    if (!fits) break;
    for (const r of line) out.push(r);
    last = y;
  }
  return out.length ? out : null;
}

/** Whether a line is a note of one piece of text, or opens with a raised mark (notes side by side on a line). */
function onePiece(f: Fragment, size: number): boolean {
  const rs = [...f.runs].sort(byX0);
  let main = -Infinity;
  for (const r of rs) main = Math.max(main, r.size);
  if (rs.length > 1 && rs[0].size < 0.85 * main && rs[0].baseline < rs[1].baseline - 0.2 * main) return true;
  for (let k = 1; k < rs.length; k++) if (!(rs[k].x0 - rs[k - 1].x1 < 0.8 * size)) return false;
  return true;
}

/** Each run's line in lineRuns (the first that holds it). */
function lineIndexOf(lineRuns: TextRun[][]): Map<TextRun, number> {
  const index = new Map<TextRun, number>();
  for (let n = 0; n < lineRuns.length; n++) for (const r of lineRuns[n]) if (!index.has(r)) index.set(r, n);
  return index;
}

/**
 * Whether a cell (x0..x1) of line n spans columns: header cells over short rules side by side
 * (groups of columns: "Summer half-year" and "Winter half-year" over "Mean Gust Mean Gust")
 * span the columns under them even where the rules, trimmed at their ends (\cmidrule(lr)),
 * are no wider than the text: there a rule under most of the cell, with two or more heads of
 * the next line under it, is enough.
 */
function spanning(f: { x0: number; x1: number }, n: number, headedBy: Segment[][], lineRuns: TextRun[][], header: boolean[], size: number): boolean {
  if (n < 0) return false;
  const rules = headedBy[n];
  const below = lineRuns[n + 1] ?? [];
  for (const s of rules) {
    if ((s.x0 <= f.x0 - size && s.x1 >= f.x1 + size) || (header[n] && rules.length >= 2 && headsUnder(s, below, size) >= 2 && Math.min(s.x1, f.x1) - Math.max(s.x0, f.x0) >= 0.6 * (f.x1 - f.x0))) return true;
  }
  return false;
}

/** How many runs of the line below lie under rule s. */
function headsUnder(s: Segment, below: TextRun[], size: number): number {
  let n = 0;
  for (const r of below) if (r.x0 >= s.x0 - size && r.x1 <= s.x1 + size) n++;
  return n;
}

/** The middles of the gaps 0.55 sizes wide or more between intervals sorted by start. */
function gapsOf(list: [number, number][], size: number): number[] {
  const out: number[] = [];
  let reach = list[0][1];
  for (let k = 1; k < list.length; k++) {
    const [s, e] = list[k];
    if (s - reach >= 0.55 * size) out.push((s + reach) / 2);
    reach = Math.max(reach, e);
  }
  return out;
}

/** How many of the bounds a run of the line runs across. */
function straddled(bounds: number[], line: TextRun[]): number {
  let n = 0;
  for (const b of bounds) if (line.some((r) => r.x0 < b && r.x1 > b)) n++;
  return n;
}

/** The x-positions where each of the stack's rules is drawn in pieces meeting there (its first rule's joints). */
function sharedJoints(stack: Joined[]): number[] {
  for (const sg of stack) if (!sg.joints?.length) return [];
  const out: number[] = [];
  for (const x of stack[0].joints ?? []) if (stack.every((sg) => sg.joints!.some((j) => Math.abs(j - x) <= 1.5))) out.push(x);
  return out;
}

/** The column between edges that x falls in (the first when it is left of them all, the last edge's). */
function columnOf(edges: number[], x: number): number {
  for (let k = 1; k < edges.length; k++) if (x < edges[k]) return Math.max(0, k - 1);
  return 0;
}

/** Each line's cells: its runs grouped by the columns they reach (see stackTable); their extents into `extent`. */
function stackLines(lineRuns: TextRun[][], baselines: number[], headedBy: Segment[][], header: boolean[], under: Segment[], edges: number[], box: { x0: number; x1: number; bottom: number }, size: number, extent: Map<GridCell, CellExtent>): GridCell[][] {
  const lines: GridCell[][] = [];
  for (let n = 0; n < lineRuns.length; n++) {
    const cells: { runs: TextRun[]; from: number; to: number; x0: number; x1: number }[] = [];
    for (const r of lineRuns[n]) {
      const from = columnOf(edges, r.x0 + 0.1 * size);
      const to = columnOf(edges, r.x1 - 0.1 * size);
      const last = cells[cells.length - 1];
      if (last && from <= last.to) {
        last.runs.push(r);
        last.to = Math.max(last.to, to);
        last.x1 = Math.max(last.x1, r.x1);
      } else cells.push({ runs: [r], from, to: Math.max(from, to), x0: r.x0, x1: r.x1 });
    }
    const next = baselines[n + 1] ?? box.bottom;
    for (const c of cells) {
      const rule = headedBy[n].find((s) => s.x0 <= c.x1 && s.x1 >= c.x0);
      if (rule) {
        c.from = Math.min(c.from, columnOf(edges, rule.x0 + size));
        c.to = Math.max(c.to, columnOf(edges, rule.x1 - size));
      }
    }
    // A header line of one cell centred on the table spans it all ("Example using tabularx").
    // (Not one over a short rule: that rule says which columns it spans.)
    if (header[n] && cells.length === 1 && !under.some((s) => s.y0 > baselines[n] && s.y0 < next && s.x0 <= cells[0].x1 && s.x1 >= cells[0].x0) && Math.abs((cells[0].x0 + cells[0].x1) / 2 - (box.x0 + box.x1) / 2) <= 0.05 * (box.x1 - box.x0)) {
      cells[0].from = 0;
      cells[0].to = edges.length - 2;
    }
    // Cells that now overlap are one.
    const merged: typeof cells = [];
    for (const c of cells) {
      const last = merged[merged.length - 1];
      if (last && c.from <= last.to) {
        last.runs.push(...c.runs);
        last.to = Math.max(last.to, c.to);
      } else merged.push(c);
    }
    const line: GridCell[] = [];
    for (const c of merged) {
      const cell = { text: cellText(c.runs), col: c.from, colspan: c.to - c.from + 1, rowspan: 1 };
      let cx0 = Infinity;
      let cx1 = -Infinity;
      let csize = -Infinity;
      for (const r of c.runs) {
        cx0 = Math.min(cx0, r.x0);
        cx1 = Math.max(cx1, r.x1);
        csize = Math.max(csize, r.size);
      }
      extent.set(cell, { x0: cx0, x1: cx1, size: csize });
      line.push(cell);
    }
    lines.push(line);
  }
  return lines;
}

/** What telling a table line that goes on with the row above from a row needs (joinWrappedLines). */
interface RowJoin {
  edges: number[];
  /** Column edges closeBounds added. */
  closeEdges: number[];
  extent: Map<GridCell, CellExtent>;
  /** A joined cell's last line's text, and its extent. */
  lastLine: Map<GridCell, string>;
  lastReach: Map<GridCell, CellExtent>;
}

/**
 * The table's rows from its lines. A body line whose every cell goes on with the cell above it
 * (a paragraph cell on several lines: lower case, or anything after a comma or an open
 * parenthesis, after an unfinished line) is part of the row above, not a row. Its first column
 * is empty: a row starts there. So is a line of one cell under a cell whose last line is words
 * of a paragraph ("Audio Interchange File" / "Format", "Disables the replacement of
 * \thinspace." / "The stretchable thinspace is still available as"): a row of its own would
 * have no first cell, and one word over one word ("\upshape" / "\itshape") is a list of
 * values, each its row. A first cell goes on too (a p{} column: "Harbour mast on the" /
 * "north pier", "Cup anemome-" / "ter") where its line above ends in a broken word, or where
 * the first word would not have fitted on that line before the next column: a cell wraps only there.
 */
function joinWrappedLines(lines: GridCell[][], join: RowJoin, perRow: boolean, bandYs: number[], baselines: number[], header: boolean[], under: Segment[], lineRuns: TextRun[][], size: number): GridCell[][] {
  const grid: GridCell[][] = [];
  const { extent, lastLine, lastReach } = join;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n];
    const above = grid[grid.length - 1];
    // Rules between every row: the lines between two rules are one row. (Each cell of the
    // line where its column is empty above or its first word would not have fitted on the
    // line above: rows of short items between rules that group them, "/usr" over "/opt", are rows.)
    if (perRow && above && n > 0 && line.length && bandIndexAbove(bandYs, baselines[n]) === bandIndexAbove(bandYs, baselines[n - 1]) && !ruledApart(under, baselines[n - 1], baselines[n], lineRuns[n], size) && line.every((c) => fillsAbove(c, above, join))) {
      for (const c of line) {
        const a = above.find((x) => x.col === c.col);
        if (!a) {
          above.push(c);
          above.sort(byCol);
          continue;
        }
        // (Joined with a space, a line-end hyphen kept: pdf-md heals cells' line ends by the
        // document's own words, as word processors do not hyphenate.)
        a.text = a.text ? `${a.text} ${c.text}` : c.text;
        lastLine.set(a, c.text);
        const r = extent.get(c);
        if (r) lastReach.set(a, r);
      }
      continue;
    }
    if (above && n > 0 && !header[n] && !header[n - 1] && line.length && !refills(line, above) && !ruledApart(under, baselines[n - 1], baselines[n], lineRuns[n], size) && line.every((c) => goesOn(c, line, above, join))) {
      for (const c of line) {
        const a = above.find((x) => x.col === c.col)!;
        // A word broken at the line's end is joined without its hyphen ("turn-" / "ing"); a
        // compound's ("top-to-" / "bottom") keeps it.
        a.text = /\p{Ll}-$/u.test(a.text) && !/-\S*-$/.test(a.text) && /^\p{Ll}/u.test(c.text) ? a.text.slice(0, -1) + c.text : /-$/.test(a.text) ? a.text + c.text : `${a.text} ${c.text}`;
        lastLine.set(a, c.text);
        const r = extent.get(c);
        if (r) lastReach.set(a, r);
      }
    } else grid.push(line);
  }
  return grid;
}

const byCol = (x: GridCell, y: GridCell): number => x.col - y.col;

/** Whether t opens more parentheses than it closes. */
function opensParen(t: string): boolean {
  return (t.match(/\(/g)?.length ?? 0) > (t.match(/\)/g)?.length ?? 0);
}

/** Whether cell c's first word would not have fitted on the line of cell a above it, before the next column. */
function wraps(a: GridCell, c: GridCell, join: RowJoin): boolean {
  const { edges } = join;
  const up = join.lastReach.get(a) ?? join.extent.get(a);
  const me = join.extent.get(c);
  if (!up || !me || edges.length < 3) return false;
  if (/\p{Ll}-$/u.test(join.lastLine.get(a) ?? a.text)) return true;
  if (join.closeEdges.includes(edges[c.col + c.colspan])) return false;
  // A number is a value of its own ("13.65" over "0.01" in a right-aligned column), never a line of one.
  if (/^[-+−$€£(]*[\d.,]+[%)]*$/.test(c.text)) return false;
  const word = (c.text.split(/\s/)[0].length / Math.max(1, c.text.length)) * (me.x1 - me.x0);
  return up.x1 + 0.35 * me.size + word >= edges[c.col + c.colspan] - 0.5 * me.size;
}

/** Whether cell c's column is empty above or its first word would not have fitted on the line above. */
function fillsAbove(c: GridCell, above: GridCell[], join: RowJoin): boolean {
  const a = above.find((x) => x.col === c.col);
  return !a?.text || wraps(a, c, join);
}

/** Whether the cell above c, of its columns, ends after a comma, a slash, a dash or an open parenthesis. */
function goesOnStrongly(c: GridCell, above: GridCell[]): boolean {
  const a = above.find((x) => x.col === c.col && x.colspan === c.colspan);
  return !!a?.text && (/[,;/–(]$/.test(a.text) || opensParen(a.text));
}

/** Whether cell c of a line goes on with the cell above it (see joinWrappedLines). */
function goesOn(c: GridCell, line: GridCell[], above: GridCell[], join: RowJoin): boolean {
  const a = above.find((x) => x.col === c.col && x.colspan === c.colspan);
  if (!a?.text) return false;
  const { edges, lastLine } = join;
  // (Beside other cells, only where the line above ends in a broken word: rows of short
  // words, "Water boatman  few  few", "load after xcolor  no  allowed", are rows.)
  // Or where it starts lower case beside cells that go on after a comma or an open
  // parenthesis ("Archive, tape" / "library" beside "records kept for the law," / "read
  // once a year ...").
  if (c.col === 0) return wraps(a, c, join) && (line.length === 1 || /\p{Ll}-$/u.test(lastLine.get(a) ?? a.text) || (/^\p{Ll}/u.test(c.text) && line.every((x) => x.col === 0 || goesOnStrongly(x, above))));
  // (Not in a column whose left edge closeBounds found, where the lines that start at it
  // are items unless the first word would not have fitted above: "→ ⟨id⟩" over "→ ⟨id⟩1 =⟨id⟩2".)
  if (line.length === 1 && /\S\s+\S/.test(lastLine.get(a) ?? a.text) && (!join.closeEdges.includes(edges[c.col]) || wraps(a, c, join))) return true;
  // Or a cell of a p{} column whose line above could not take its first word (typewriter
  // options: "-Os" / "-ffunction-sections" / "-fdata-sections").
  return !/[.!?:]["”’)]?$/.test(a.text) && (/^[\p{Ll}(]/u.test(c.text) || /[,;/–-]$/.test(a.text) || opensParen(a.text) || wraps(a, c, join));
}

/** Whether the text between heights y0 and y1 within x0..x1 is one line. */
function oneLineBetween(runs: TextRun[], x0: number, x1: number, y0: number, y1: number): boolean {
  let first = NaN;
  for (const r of runs) {
    if (r.baseline <= y0 || r.baseline - r.size * 0.7 >= y1 || r.x1 <= x0 || r.x0 >= x1) continue;
    if (Number.isNaN(first)) first = r.baseline;
    else if (Math.abs(r.baseline - first) > 2) return false;
  }
  return !Number.isNaN(first);
}

/**
 * A booktabs table of one column (a number-formatting package's column of values aligned on
 * the decimal marker under its head, a column of names): three rules, one line between the top
 * rule and the next, two or more under it one under another, each line one piece of text (no gap wider than a word space), each
 * under the head a number or a word, the rules four to fifteen font sizes wide. Rules round a
 * heading, or round paragraphs and listings in a box, are as wide as the text or hold longer
 * lines; fraction bars are narrower.
 */
function oneColumnTable(box: { x0: number; x1: number; top: number; bottom: number }, ys: number[], lineRuns: TextRun[][], baselines: number[], size: number): Table | null {
  if (ys.length !== 3 || box.x1 - box.x0 > 15 * size || box.x1 - box.x0 < 4 * size) return null;
  let head = 0;
  for (const b of baselines) if (b < ys[1]) head++;
  if (head !== 1 || baselines.length < 3) return null;
  // (Its lines set as a table's, one under another: labels in the margin a rule under and over
  // each, far apart, are no column.)
  for (let n = 1; n < baselines.length; n++) if (baselines[n] - baselines[n - 1] > 3 * size) return null;
  const rows: string[][] = [];
  let left = Infinity;
  for (const rs of lineRuns) {
    for (let k = 1; k < rs.length; k++) if (rs[k].x0 - rs[k - 1].x1 >= 0.55 * size) return null;
    const text = cellText(rs);
    // (The values: numbers, an exponent or a note mark with them, or single words; not a
    // drawing's labels, "flowable 155", nor notes under a row.)
    if (!text || (rows.length > 0 && !/^\S+$/.test(text) && !/^[−+-]?[\d.,]+(?:\s*×\s*\d+)?[a-z]?$/.test(text))) return null;
    for (const r of rs) left = Math.min(left, r.x0);
    rows.push([text]);
  }
  return { ...box, rows, columns: [left] };
}

/**
 * Column bounds the whitespace rule (gaps of 0.55 font sizes) misses where a table's columns are
 * set a point or two apart (\tabcolsep cut down, as package manuals set their option tables:
 * "WordInitial" 3pt from its typewriter tag "init"):
 * - a left edge three lines or more share (a left-aligned column: its head and its cells), two
 *   of them with text left of it, their gaps before it uneven (a quarter of a font size apart,
 *   or one as wide as a font size: the column to its left is ragged; cells of equal width
 *   before a word, "-a file" over "-b file", are one column; lines of a paragraph starting there
 *   beside one line that runs further left, "-- Steve Greenland" under a changelog entry, are a
 *   paragraph);
 * - the left edge of a column of marks set after the cells (a dagger beside some tags: a run of
 *   one symbol ending its line, apart from the run before it), in one line or more.
 * No run may cross either (the cells' text crosses no column edge; a head across it, an
 * example's title over its code and result, says it is no column), but for one run cut at its
 * space there: of the first row (a first column's name, in the first row only, and "=" read as
 * one run with the first option), or a head of two words ("Option Tag" over two columns);
 * `cuts` are the positions to cut such runs at.
 */
function closeBounds(bounds: number[], lineRuns: TextRun[][], header: boolean[], cellRuns: TextRun[], size: number, left: number): { bounds: number[]; added: number[]; cuts: { run: TextRun; x: number }[] } | null {
  const cells = new Set(cellRuns);
  const candidates: number[] = [];
  const marks: TextRun[] = [];
  for (const rs of lineRuns) {
    for (let k = 0; k < rs.length; k++) {
      const r = rs[k];
      if (r.x0 > left + size) candidates.push(r.x0);
      const text = r.text.trim();
      if (k > 0 && k === rs.length - 1 && text.length === 1 && /[^\p{L}\p{N}\s]/u.test(text) && r.x0 - rs[k - 1].x1 >= 0.3 * size) marks.push(r);
    }
  }
  const added: number[] = [];
  const cuts: { run: TextRun; x: number }[] = [];
  candidates.sort(ascending);
  for (let i = 0; i < candidates.length; i++) {
    if (i > 0 && candidates[i] - candidates[i - 1] <= 0.6) continue;
    const at = closeBoundAt(candidates[i], true, bounds, added, lineRuns, header, cells, size);
    if (!at) continue;
    added.push(at.bound);
    if (at.crossing) cuts.push({ run: at.crossing, x: candidates[i] });
  }
  if (marks.length) {
    let x = Infinity;
    for (const r of marks) x = Math.min(x, r.x0);
    const at = closeBoundAt(x, false, bounds, added, lineRuns, header, cells, size);
    if (at) {
      added.push(at.bound);
      if (at.crossing) cuts.push({ run: at.crossing, x });
    }
  }
  if (!added.length) return null;
  const out = [...bounds, ...added].sort(ascending);
  return { bounds: out, added, cuts };
}

/**
 * closeBounds' bound at x, the left edge of a column (`ragged`: one found by its shared left
 * edge, not a column of marks), and the run to cut there; null where there is none, or one
 * already between the text left of x and x.
 */
function closeBoundAt(x: number, ragged: boolean, bounds: number[], added: number[], lineRuns: TextRun[][], header: boolean[], cells: Set<TextRun>, size: number): { bound: number; crossing: TextRun | null } | null {
  let crossing: TextRun | null = null;
  let crossings = 0;
  let firstBody = -1;
  for (let n = 0; n < lineRuns.length; n++) {
    if (firstBody < 0 && !header[n]) firstBody = n;
    for (const r of lineRuns[n]) {
      if (r.x0 < x - 0.6 && r.x1 > x + 0.6 && cells.has(r)) {
        // (A head of two words read as one run, "Option Tag", is two heads.)
        crossings += n === firstBody || (header[n] && /^\S+ \S+$/.test(r.text.trim())) ? 1 : 2;
        crossing = r;
      }
    }
  }
  if (crossings > 1 || (crossing && !/\S\s+\S/.test(crossing.text))) return null;
  // (The run cut there starts a cell at x, with text left of it.)
  let starting = crossing ? 1 : 0;
  let beside = starting;
  let least = Infinity;
  let most = -Infinity;
  let end = -Infinity;
  for (const rs of lineRuns) {
    let before = -Infinity;
    let starts = false;
    for (const r of rs) {
      if (r.x1 <= x + 0.6 && r.x0 < x - 0.6) before = Math.max(before, r.x1);
      if (Math.abs(r.x0 - x) <= 0.6) starts = true;
    }
    end = Math.max(end, before);
    if (!starts) continue;
    starting++;
    if (before === -Infinity) continue;
    beside++;
    least = Math.min(least, x - before);
    most = Math.max(most, x - before);
  }
  const uneven = most >= size || most - least >= 0.25 * size;
  if (end === -Infinity || x - end < 0.2 * size || (ragged && (starting < 3 || beside < 2 || !uneven))) return null;
  for (const b of bounds) {
    if (b >= end - 0.6 && b <= x + 0.6) return null;
    // (Nor one a run straddles just left of x, a head over two columns, with no cell between.)
    if (b < x - 1.5 * size || b > x + 0.6) continue;
    let between = false;
    for (const rs of lineRuns) for (const r of rs) if (r.x0 >= b && r.x1 <= x) between = true;
    if (!between) return null;
  }
  for (const b of added) if (Math.abs(b - x) <= 0.6 * size) return null;
  return { bound: x - Math.min(0.25 * size, (x - end) / 2), crossing };
}

/**
 * Runs cut where a column starts (closeBounds' cuts): at the space whose place, estimated by
 * the run's characters' share of its width, is nearest the column's left edge x; the right part
 * starts at x (the column is left-aligned there). A run with no space stays whole.
 */
function cutRuns(lineRuns: TextRun[][], cuts: { run: TextRun; x: number }[]): void {
  for (const { run, x } of cuts) {
    for (const rs of lineRuns) {
      const k = rs.indexOf(run);
      if (k < 0) continue;
      const text = run.text.trimEnd();
      let total = 0;
      for (const ch of run.text) total += charWidth(ch);
      let best = -1;
      let bestAt = Infinity;
      let sum = 0;
      for (let i = 0; i < text.length; i++) {
        sum += charWidth(text[i]);
        if (text[i] !== ' ' || i === 0) continue;
        const at = run.x0 + (sum / total) * (run.x1 - run.x0);
        if (Math.abs(at - x) < Math.abs(bestAt - x)) {
          best = i;
          bestAt = at;
        }
      }
      if (best < 0) continue;
      const leftText = text.slice(0, best).trimEnd();
      const leftEnd = run.x0 + ((charWidthOf(leftText)) / total) * (run.x1 - run.x0);
      rs.splice(k, 1, { ...run, text: leftText, x1: Math.min(leftEnd, x - 0.5) }, { ...run, text: run.text.slice(best + 1), x0: x });
    }
  }
}

/** The rough advance of a string in ems (charWidth of each character). */
function charWidthOf(text: string): number {
  let w = 0;
  for (const ch of text) w += charWidth(ch);
  return w;
}

/**
 * Rules under body rows that the rows do not head: a \cmidrule over the last row's columns
 * ("ResetAll" under it) has the row above it over it, its cells each in a column of their own,
 * or one cell in one column not centred on the rule: a row, not a head spanning the columns the
 * rule covers. Only under a line that is no head (heads over short rules come first; a body line
 * centred over its rule, a \multicolumn group's title, stays a head).
 */
function unheadBodyRows(headedBy: Segment[][], header: boolean[], lineRuns: TextRun[][], edges: number[], size: number): void {
  const colOf = (x: number): number => {
    for (let k = 1; k < edges.length; k++) if (x < edges[k]) return k - 1;
    return edges.length - 2;
  };
  // (Body lines: under a line that is no head.)
  let body = false;
  for (let n = 0; n < lineRuns.length; n++) {
    const under = body;
    if (!header[n]) body = true;
    if (!under || !headedBy[n].length) continue;
    const kept: Segment[] = [];
    for (const s of headedBy[n]) {
      const cols = new Set<number>();
      let within = true;
      let x0 = Infinity;
      let x1 = -Infinity;
      for (const r of lineRuns[n]) {
        if (r.x1 <= s.x0 || r.x0 >= s.x1) continue;
        const from = colOf(r.x0 + 0.1 * size);
        if (from !== colOf(r.x1 - 0.1 * size)) within = false;
        cols.add(from);
        x0 = Math.min(x0, r.x0);
        x1 = Math.max(x1, r.x1);
      }
      const spans = colOf(s.x1 - size) > colOf(s.x0 + size);
      const centred = Math.abs((x0 + x1) / 2 - (s.x0 + s.x1) / 2) <= size;
      if (within && spans && (cols.size >= 2 || !centred)) continue;
      kept.push(s);
    }
    if (kept.length === headedBy[n].length) continue;
    headedBy[n] = kept;
    if (!kept.length) header[n] = false;
  }
}

/** Whether a short rule lies between two lines (baselines y0 < y1) under the second line's runs: they are two rows. */
function ruledApart(rules: Segment[], y0: number, y1: number, line: TextRun[], size: number): boolean {
  for (const s of rules) {
    if (s.y0 <= y0 || s.y0 >= y1 - 0.5 * size) continue;
    for (const r of line) if (r.x0 < s.x1 && r.x1 > s.x0) return true;
  }
  return false;
}

/**
 * Column bounds from short rules side by side at one height, reaching together from one side of
 * the table to the other (booktabs' \cmidrule(lr) under each column's head, trimmed a few points
 * apart): the gap between two of them is a column bound, whatever the whitespace says. A wide
 * cell ("≥ 0.9997" over "DVI/PDF", or a head wider than its column) can come within a word space
 * of the next column, and the whitespace then merges the two. A bound the whitespace found in
 * such a gap (or near its ends) is the same bound, and gives way to the gap's middle; one under a
 * rule's length stays (a rule over a group of columns says nothing of the bounds under it).
 */
function withColumnRules(bounds: number[], rules: Segment[], box: { x0: number; x1: number }, size: number, lines: TextRun[][], baselines: number[], header: boolean[]): { bounds: number[]; gaps: number[] } | null {
  const pieces: Segment[] = [];
  for (const s of rules) if (s.x0 >= box.x0 - TOL && s.x1 <= box.x1 + TOL) pieces.push(s);
  const gaps: [number, number][] = [];
  const ruled: Segment[] = [];
  const single: Segment[] = [];
  for (const row of ruleRows(pieces, box.x0, box.x1, size)) {
    for (let k = 1; k < row.length; k++) gaps.push([row[k - 1].x1, row[k].x0]);
    // Over a row of cells (the line under the rules is no head), each rule is one column's.
    const below = baselines.findIndex((b) => b > row[0].y0);
    for (const s of row) (below >= 0 && !header[below] ? single : ruled).push(s);
  }
  if (!gaps.length) return null;
  // A bound under a rule with no text starting right of it before the rule's end is no
  // column's start either: the gap of a line that runs past the others (a note, a raised mark).
  const starts = (b: number, s: Segment) => {
    for (const rs of lines) for (const r of rs) if (r.x0 > b && r.x0 < s.x1) return true;
    return false;
  };
  // Under a rule of one column's head, a bound that text of the body runs across is a wide
  // space of a justified cell ("Rain cape,   gloves"), found where the other rows leave a gap.
  // (One no text crosses stays: a head's rule may span two columns, "Multicolumn entry!".)
  const crossed = (b: number) => {
    for (let n = 0; n < lines.length; n++) if (!header[n]) for (const r of lines[n]) if (r.x0 < b - 1 && r.x1 > b + 1) return true;
    return false;
  };
  const out: number[] = [];
  for (const b of bounds) {
    if (gaps.some(([a, c]) => b > a - size && b < c + size)) continue;
    if (ruled.some((s) => b > s.x0 && b < s.x1 && !starts(b, s)) || single.some((s) => b > s.x0 && b < s.x1 && !starts(b, s))) continue;
    if (single.some((s) => b > s.x0 && b < s.x1) && crossed(b)) continue;
    out.push(b);
  }
  const mids: number[] = [];
  for (const [a, c] of gaps) {
    const mid = (a + c) / 2;
    mids.push(mid);
    if (!out.some((b) => Math.abs(b - mid) <= 1)) out.push(mid);
  }
  return { bounds: out.sort(ascending), gaps: mids };
}

/**
 * The height of the lowest row of short rules side by side between top and bottom that reach
 * together across most of x0..x1, a font size apart or less (the text's size there); null if none.
 */
function columnRuleRow(h: Segment[], short: Segment[], x0: number, x1: number, top: number, bottom: number, runs: TextRun[]): number | null {
  let size = 0;
  let n = 0;
  for (const r of runs) {
    if (r.x0 < x0 || r.x1 > x1 || r.baseline < top || r.baseline > bottom) continue;
    size += r.size;
    n++;
  }
  if (!n) return null;
  size /= n;
  const pieces: Segment[] = [];
  for (const s of h) if (s.y0 > top + TOL && s.y0 < bottom - TOL && s.x0 >= x0 - TOL && s.x1 <= x1 + TOL) pieces.push(s);
  for (const s of short) if (s.y0 > top + TOL && s.y0 < bottom - TOL && s.x0 >= x0 - TOL && s.x1 <= x1 + TOL) pieces.push(s);
  const rows = ruleRows(pieces, x0, x1, size);
  return rows.length ? rows[rows.length - 1][0].y0 : null;
}

/**
 * The rows of short rules side by side among `pieces`, top to bottom: two or more at one height
 * reaching together across most of x0..x1, each apart from the next by no more than one and a
 * half font sizes (\cmidrule(lr) pieces, one under each head or group of heads).
 */
function ruleRows(pieces: Segment[], x0: number, x1: number, size: number): Segment[][] {
  const sorted = [...pieces].sort(byRow);
  const rows: Segment[][] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i + 1;
    while (j < sorted.length && Math.abs(sorted[j].y0 - sorted[i].y0) <= 0.5) j++;
    const row = sorted.slice(i, j);
    i = j;
    if (row.length < 2 || row[row.length - 1].x1 - row[0].x0 < 0.85 * (x1 - x0)) continue;
    let apart = true;
    for (let k = 1; k < row.length; k++) if (row[k].x0 - row[k - 1].x1 <= 0 || row[k].x0 - row[k - 1].x1 > 1.5 * size) apart = false;
    if (apart) rows.push(row);
  }
  return rows;
}

/**
 * Runs cut at the column bounds the rules gave: cells 5pt apart are closer than the gap the
 * text reader cuts runs at, so "Gears Tyres Lamps" over three columns' rules is one run. It is
 * cut at the space nearest each bound it straddles (positions estimated by its characters'
 * share of its width), where that space is within a font size of the bound; not where the line
 * heads a rule reaching across the bound (a head spanning the columns under it), nor in a line
 * of one run.
 */
function splitAtBounds(lineRuns: TextRun[][], bounds: number[], headedBy: Segment[][], size: number): void {
  for (let n = 0; n < lineRuns.length; n++) {
    // (A line of one run spans the columns it straddles: "Example using tabularx".)
    if (lineRuns[n].length < 2) continue;
    const out: TextRun[] = [];
    const pending = [...lineRuns[n]];
    while (pending.length) {
      const r = pending.shift()!;
      // Where each character ends, by rough widths of a Latin text face, scaled to the run.
      const ends: number[] = [];
      let total = 0;
      for (const ch of r.text) {
        total += charWidth(ch);
        for (let k = 0; k < ch.length; k++) ends.push(total);
      }
      const at = (i: number) => r.x0 + ((ends[i] - charWidth(' ') / 2) / total) * (r.x1 - r.x0);
      let cut = -1;
      for (const g of bounds) {
        if (g <= r.x0 + 0.5 * size || g >= r.x1 - 0.5 * size) continue;
        if (headedBy[n].some((s) => s.x0 < g && s.x1 > g)) continue;
        let best = -1;
        for (let i = r.text.indexOf(' '); i > 0 && i < r.text.length - 1; i = r.text.indexOf(' ', i + 1)) {
          if (best < 0 || Math.abs(at(i) - g) < Math.abs(at(best) - g)) best = i;
        }
        if (best > 0 && Math.abs(at(best) - g) <= size) {
          cut = best;
          break;
        }
      }
      if (cut < 0) {
        out.push(r);
        continue;
      }
      const space = ((ends[cut] - ends[cut - 1]) / total) * (r.x1 - r.x0);
      pending.unshift({ ...r, text: r.text.slice(0, cut), x1: at(cut) - space / 2 }, { ...r, text: r.text.slice(cut + 1), x0: at(cut) + space / 2 });
    }
    lineRuns[n] = out;
  }
}

/** Whether a rule of the same x-positions is drawn at another height. */
function repeated(rules: Segment[], s: Segment): boolean {
  for (const o of rules) if (Math.abs(o.y0 - s.y0) > TOL && Math.abs(o.x0 - s.x0) <= TOL && Math.abs(o.x1 - s.x1) <= TOL) return true;
  return false;
}

/**
 * The short rules between a line (baseline y) and the next (baseline next) that the line heads:
 * its runs over a rule start or end within a font size of the rule's ends, or are centred on it.
 * Of a rule drawn at the same x-positions at several heights, only the first is a head's.
 */
function headedRules(under: Segment[], line: TextRun[], y: number, next: number, size: number): Segment[] {
  const out: Segment[] = [];
  for (const s of under) {
    if (s.y0 <= y || s.y0 >= next) continue;
    let x0 = Infinity;
    let x1 = -Infinity;
    for (const r of line) {
      if (r.x1 <= s.x0 || r.x0 >= s.x1) continue;
      x0 = Math.min(x0, r.x0);
      x1 = Math.max(x1, r.x1);
    }
    if (x0 === Infinity) continue;
    if (Math.abs(x0 - s.x0) > size && Math.abs(x1 - s.x1) > size && Math.abs((x0 + x1) / 2 - (s.x0 + s.x1) / 2) > size) continue;
    let first = true;
    for (const o of under) if (o.y0 < s.y0 - TOL && Math.abs(o.x0 - s.x0) <= TOL && Math.abs(o.x1 - s.x1) <= TOL) first = false;
    if (first) out.push(s);
  }
  return out;
}

/**
 * Whether a line fills again every column but the first that the row above it filled, three or
 * more: a row of its own ("≥ 1975 21in/53cm yes yes no" under "Raleigh < 1975 21in/53cm yes yes
 * no" in narrow columns, where any next word "would not have fitted"), not the second line of
 * the row's cells: a cell wraps in some columns, not in all of them at once.
 */
function refills(line: GridCell[], above: GridCell[]): boolean {
  let filled = 0;
  for (const a of above) {
    if (a.col === 0 || !a.text) continue;
    if (!line.some((c) => c.col === a.col && c.text)) return false;
    filled++;
  }
  return filled >= 3;
}

/** A character's rough advance in ems in a Latin text face (for placing a run's spaces). */
function charWidth(ch: string): number {
  if (ch === ' ') return 0.25;
  if (/[iljI.,;:!'|]/.test(ch)) return 0.28;
  if (/[ftr()[\]\/-]/.test(ch)) return 0.35;
  if (/[mwMW]/.test(ch)) return 0.85;
  if (/[A-Z]/.test(ch)) return 0.68;
  return 0.5;
}

/** Segments by height, then from left to right. */
const byRow = (a: Segment, b: Segment): number => a.y0 - b.y0 || a.x0 - b.x0;

/**
 * Vertical rules drawn a row at a time (a tabular's "|" without \hline between its rows: one
 * piece per row, end to end) as one rule each, so every piece reaches the rules that close the table.
 */
function joinVertical(vertical: Segment[]): Segment[] {
  const sorted = [...vertical].sort((a, b) => a.x0 - b.x0 || a.y0 - b.y0);
  const out: Segment[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && Math.abs(s.x0 - last.x0) <= 0.5 && s.y0 <= last.y1 + TOL) last.y1 = Math.max(last.y1, s.y1);
    else out.push({ ...s });
  }
  return out;
}

/**
 * `isCode`: whether a line is set as code (a monospaced font); the rules of a box holding only
 * such lines are a listing's frame, not a table's (see listingFrames).
 */
export function findTables(segments: Segment[], fragments: Fragment[], isCode?: (f: Fragment) => boolean): Table[] {
  const horizontal = segments.filter((s) => s.y1 - s.y0 <= 1 && s.x1 - s.x0 >= 10);
  // (Rules shorter than that count only as a narrow column's \cmidrule, beside others.)
  const short = segments.filter((s) => s.y1 - s.y0 <= 1 && s.x1 - s.x0 >= 3 && s.x1 - s.x0 < 10);
  const vertical = segments.filter((s) => s.x1 - s.x0 <= 1 && s.y1 - s.y0 >= 5);
  // Vector drawings (charts, maps) have thousands of strokes and no tables worth the quadratic search.
  if (horizontal.length < 2 || horizontal.length + vertical.length > 2000) return [];
  const runs = fragments.flatMap((f) => f.runs);
  const joinedVertical = joinVertical(vertical);
  const grids = gridTables(horizontal, joinedVertical, runs);
  let rules = joinHorizontal(horizontal);
  if (isCode) {
    const frames = listingFrames(rules, joinedVertical, fragments, isCode);
    if (frames.size) {
      const kept: Joined[] = [];
      for (const s of rules) if (!frames.has(s)) kept.push(s);
      rules = kept;
    }
  }
  return [...grids, ...ruleStackTables(splitAtListRules(rules, vertical, runs), runs, grids, short)];
}

/**
 * The rules over and under listings set in boxes (a grey box whose frame is drawn in its grey,
 * as DocBook's LaTeX back end and listings' frame=single draw them): two rules of one extent,
 * no rule between them, closed at both ends by vertical rules (drawn a line at a time, joined)
 * within a few points of their ends and none between, with only code lines inside. Two such
 * boxes with a paragraph between would otherwise be a stack of four rules, a table whose rows
 * are the listings' words and the paragraph.
 */
function listingFrames(h: Joined[], vertical: Segment[], fragments: Fragment[], isCode: (f: Fragment) => boolean): Set<Segment> {
  const frames = new Set<Segment>();
  const sorted = [...h].sort(byY0);
  for (let i = 0; i < sorted.length; i++) {
    const a = sorted[i];
    let b: Joined | null = null;
    for (let j = i + 1; j < sorted.length && !b; j++) {
      const o = sorted[j];
      if (o.x1 <= a.x0 || o.x0 >= a.x1) continue;
      // (The first rule below across it: its pair when of the same extent, else no box.)
      if (Math.abs(o.x0 - a.x0) <= TOL && Math.abs(o.x1 - a.x1) <= TOL && o.y0 - a.y0 > 4) b = o;
      else break;
    }
    if (!b) continue;
    const side = (x: number, inward: number) =>
      vertical.some((v) => (v.x0 - x) * inward >= -TOL && (v.x0 - x) * inward <= 4 && v.y0 <= a.y0 + 4 && v.y1 >= b.y0 - 4);
    if (!side(a.x0, 1) || !side(a.x1, -1)) continue;
    if (vertical.some((v) => v.x0 > a.x0 + 4 && v.x0 < a.x1 - 4 && v.y1 > a.y0 + TOL && v.y0 < b.y0 - TOL)) continue;
    let lines = 0;
    let code = true;
    for (const f of fragments) {
      const cx = (f.x0 + f.x1) / 2;
      const cy = f.baseline - f.size * 0.3;
      if (cx <= a.x0 || cx >= a.x1 || cy <= a.y0 || cy >= b.y0) continue;
      lines++;
      if (!isCode(f)) code = false;
    }
    if (!lines || !code) continue;
    frames.add(a);
    frames.add(b);
  }
  return frames;
}

/**
 * Horizontal rules drawn a cell at a time (Asciidoctor's and word processors' row rules: one
 * piece per cell, end to end, often each drawn twice) as one rule each, so a row's rule spans
 * the table as a booktabs rule does. Pieces with a gap between them (trimmed \cmidrule(lr)) stay apart.
 */
function joinHorizontal(horizontal: Segment[]): Joined[] {
  const sorted = [...horizontal].sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
  const out: Joined[] = [];
  for (const s of sorted) {
    const last = out.findLast((o) => Math.abs(o.y0 - s.y0) <= 0.3);
    if (last && s.x0 <= last.x1 + 0.5 && s.x0 >= last.x0 - 0.5) {
      // Where two pieces meet end to end: a cell's side (the table's columns).
      if (s.x0 >= last.x1 - 0.5 && s.x1 > last.x1 + 0.5) (last.joints ??= []).push(last.x1);
      last.x1 = Math.max(last.x1, s.x1);
    } else out.push({ ...s });
  }
  return out;
}

/**
 * A horizontal rule joined from pieces, with the x-positions where they met; `list` when it is
 * the part of a rule over or under lists set side by side (splitAtListRules).
 */
type Joined = Segment & { joints?: number[]; list?: boolean };

/**
 * Rules over and under lists set side by side under one caption (a summary of keys in two or
 * three parts, a vertical rule between them), cut at that vertical rule: each list is a table of
 * its own, read before the next, as a reader reads them. The vertical rule is one stroke from
 * just under a rule to just over another of the same extent (a tabular's "|" is drawn a row at
 * a time) with no rule across it between them (a table ruled between rows), three lines or more
 * on each side, and the lists' rows do not line up: a row of one side starts on a line where
 * the other side goes on with a cell of the row above.
 */
function splitAtListRules(h: Joined[], vertical: Segment[], runs: TextRun[]): Joined[] {
  let out = h;
  for (const v of vertical) {
    if (v.y1 - v.y0 < 40) continue;
    let top: Joined | null = null;
    let bottom: Joined | null = null;
    for (const r of out) {
      if (r.x0 + 10 > v.x0 || r.x1 - 10 < v.x0) continue;
      if (v.y0 - r.y0 >= -TOL && v.y0 - r.y0 <= 8) top = r;
      if (r.y0 - v.y1 >= -TOL && r.y0 - v.y1 <= 8) bottom = r;
    }
    if (!top || !bottom || Math.abs(top.x0 - bottom.x0) > TOL || Math.abs(top.x1 - bottom.x1) > TOL) continue;
    // (No rule crosses it between them: rules between rows make it a table's column rule.)
    let crossed = false;
    for (const r of out) if (r.y0 > top.y0 + TOL && r.y0 < bottom.y0 - TOL && r.x0 < v.x0 && r.x1 > v.x0) crossed = true;
    if (crossed) continue;
    const left: TextRun[] = [];
    const right: TextRun[] = [];
    for (const r of runs) {
      if (r.baseline < top.y0 || r.baseline > bottom.y0) continue;
      const cx = (r.x0 + r.x1) / 2;
      if (cx > top.x0 && cx < v.x0) left.push(r);
      else if (cx > v.x0 && cx < top.x1) right.push(r);
    }
    const a = listRows(left);
    const b = listRows(right);
    if (a.lines.length < 3 || b.lines.length < 3 || !(startsWithin(a, b) || startsWithin(b, a))) continue;
    const cut: Joined[] = [];
    for (const r of out) {
      if (r.y0 < top.y0 - TOL || r.y0 > bottom.y0 + TOL || Math.abs(r.x0 - top.x0) > TOL || Math.abs(r.x1 - top.x1) > TOL) {
        cut.push(r);
        continue;
      }
      const lj: number[] = [];
      const rj: number[] = [];
      for (const j of r.joints ?? []) (j < v.x0 ? lj : rj).push(j);
      cut.push({ x0: r.x0, y0: r.y0, x1: v.x0 - 1, y1: r.y1, list: true, ...(lj.length ? { joints: lj } : {}) });
      cut.push({ x0: v.x0 + 1, y0: r.y0, x1: r.x1, y1: r.y1, list: true, ...(rj.length ? { joints: rj } : {}) });
    }
    out = cut;
  }
  return out;
}

/** A list's lines (baselines) and those that start a row (a run at its left edge). */
function listRows(runs: TextRun[]): { lines: number[]; starts: number[] } {
  let left = Infinity;
  for (const r of runs) left = Math.min(left, r.x0);
  const all: number[] = [];
  const starting: number[] = [];
  for (const r of runs) {
    all.push(r.baseline);
    if (r.x0 <= left + 1.5) starting.push(r.baseline);
  }
  return { lines: cluster(all, 1), starts: cluster(starting, 1) };
}

/** Whether a row of list a starts on a line of list b that starts no row there. */
function startsWithin(a: { starts: number[] }, b: { lines: number[]; starts: number[] }): boolean {
  for (const y of a.starts) {
    if (b.lines.some((z) => Math.abs(z - y) <= 1) && !b.starts.some((z) => Math.abs(z - y) <= 1)) return true;
  }
  return false;
}
