/**
 * Finds ruled tables from the lines a page draws. Text alone cannot tell a table from a
 * list of short lines, but rules can: a grid of strokes is a table, and so is a stack of
 * full-width rules (booktabs style) with aligned cells between them.
 */
import type { PdfPage } from './open-pdf.ts';
import { applyMatrix, multiplyMatrix, type Frame } from './geometry.ts';
import type { Fragment, RawRules, TextRun } from './text-types.ts';

export interface Segment {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Rulings from the paths a text reader collected (user space), as readRulings finds them with PDFium. */
function rulingsOf(rules: RawRules, frame: Frame): Segment[] {
  const segments: Segment[] = [];
  const toFrame = (px: number, py: number): [number, number] => frame.toFrame(...applyMatrix(frame.viewportTransform, px, py));
  const push = (ax: number, ay: number, bx: number, by: number) => {
    const [x0, y0] = toFrame(ax, ay);
    const [x1, y1] = toFrame(bx, by);
    segments.push({ x0: Math.min(x0, x1), y0: Math.min(y0, y1), x1: Math.max(x0, x1), y1: Math.max(y0, y1) });
  };
  const { strokes, fills } = rules;
  for (let i = 0; i + 3 < strokes.length; i += 4) push(strokes[i], strokes[i + 1], strokes[i + 2], strokes[i + 3]);
  for (let i = 0; i + 3 < fills.length; i += 4) {
    const [minX, minY, maxX, maxY] = [fills[i], fills[i + 1], fills[i + 2], fills[i + 3]];
    const [ax, ay] = toFrame(minX, minY);
    const [bx, by] = toFrame(maxX, maxY);
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
  /** Cell texts, row by row. */
  rows: string[][];
}

const TOL = 2.5;

const cluster = (values: number[], tol: number): number[] => {
  const sorted = [...values].sort((a, b) => a - b);
  const out: number[] = [];
  for (const v of sorted) if (!out.length || v - out[out.length - 1] > tol) out.push(v);
  return out;
};

const cellText = (runs: TextRun[]): string => {
  const sorted = [...runs].sort((a, b) => a.baseline - b.baseline || a.x0 - b.x0);
  let text = '';
  let prev: TextRun | null = null;
  for (const r of sorted) {
    if (prev) text += ' ';
    text += r.text;
    prev = r;
  }
  return text.replace(/\s+/g, ' ').trim();
};

const inBox = (r: TextRun, t: { x0: number; x1: number; top: number; bottom: number }) => {
  const cx = (r.x0 + r.x1) / 2;
  const cy = (r.baseline - r.size * 0.3);
  return cx > t.x0 && cx < t.x1 && cy > t.top && cy < t.bottom;
};

/** Tables drawn as a grid: connected horizontal and vertical rules. */
function gridTables(h: Segment[], v: Segment[], runs: TextRun[]): Table[] {
  const all = [...h.map((s) => ({ s, horizontal: true })), ...v.map((s) => ({ s, horizontal: false }))];
  const parent = all.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  for (let i = 0; i < all.length; i++) {
    for (let j = i + 1; j < all.length; j++) {
      if (all[i].horizontal === all[j].horizontal) continue;
      const hs = all[i].horizontal ? all[i].s : all[j].s;
      const vs = all[i].horizontal ? all[j].s : all[i].s;
      if (vs.x0 >= hs.x0 - TOL && vs.x0 <= hs.x1 + TOL && hs.y0 >= vs.y0 - TOL && hs.y0 <= vs.y1 + TOL) parent[find(i)] = find(j);
    }
  }
  const groups = new Map<number, typeof all>();
  all.forEach((e, i) => {
    const root = find(i);
    if (!groups.has(root)) groups.set(root, []);
    groups.get(root)!.push(e);
  });
  const tables: Table[] = [];
  for (const group of groups.values()) {
    const ys = cluster(group.filter((e) => e.horizontal).map((e) => e.s.y0), TOL);
    const xs = cluster(group.filter((e) => !e.horizontal).map((e) => e.s.x0), TOL);
    if (ys.length < 2 || xs.length < 2) continue;
    const box = { x0: xs[0], x1: xs[xs.length - 1], top: ys[0], bottom: ys[ys.length - 1] };
    const inside = runs.filter((r) => inBox(r, box));
    if (!inside.length) continue;
    const cells: TextRun[][][] = ys.slice(1).map(() => xs.slice(1).map(() => []));
    for (const r of inside) {
      const cx = (r.x0 + r.x1) / 2;
      const cy = r.baseline - r.size * 0.3;
      const row = ys.findIndex((y, k) => k > 0 && cy < y) - 1;
      const col = xs.findIndex((x, k) => k > 0 && cx < x) - 1;
      if (row >= 0 && col >= 0) cells[row][col].push(r);
    }
    const rows = cells.map((row) => row.map(cellText)).filter((row) => row.some((c) => c !== ''));
    if (rows.length >= 1 && xs.length >= 3) tables.push({ ...box, rows });
  }
  return tables;
}

/**
 * Tables separated by horizontal rules only: rules of about the same extent stacked on top
 * of each other; columns come from the whitespace shared by every row between them.
 */
function ruleStackTables(h: Segment[], runs: TextRun[], taken: Table[]): Table[] {
  const free = h.filter((s) => !taken.some((t) => s.y0 >= t.top - TOL && s.y0 <= t.bottom + TOL && s.x0 >= t.x0 - TOL && s.x1 <= t.x1 + TOL));
  const sorted = [...free].sort((a, b) => a.y0 - b.y0);
  const stacks: Segment[][] = [];
  for (const s of sorted) {
    const stack = stacks.find((st) => Math.abs(st[0].x0 - s.x0) <= 6 && Math.abs(st[0].x1 - s.x1) <= 6);
    if (stack) stack.push(s);
    else stacks.push([s]);
  }
  const tables: Table[] = [];
  for (const stack of stacks) {
    const ys = cluster(stack.map((s) => s.y0), TOL);
    if (ys.length < 3) continue;
    const box = { x0: stack[0].x0 - TOL, x1: stack[0].x1 + TOL, top: ys[0], bottom: ys[ys.length - 1] };
    const inside = runs.filter((r) => inBox(r, box));
    if (!inside.length) continue;
    const size = inside.reduce((a, r) => a + r.size, 0) / inside.length;
    // Column boundaries: whitespace in the x projection of every run in the region.
    const intervals = inside.map((r) => [r.x0, r.x1] as [number, number]).sort((a, b) => a[0] - b[0]);
    const bounds: number[] = [];
    let reach = intervals[0][1];
    for (const [s, e] of intervals.slice(1)) {
      if (s - reach >= 0.8 * size) bounds.push((s + reach) / 2);
      reach = Math.max(reach, e);
    }
    if (bounds.length < 1) continue;
    const baselines = cluster(inside.map((r) => r.baseline), size * 0.35);
    const rows = baselines.map((b) => {
      const row: TextRun[][] = [...bounds, Infinity].map(() => []);
      for (const r of inside) {
        if (Math.abs(r.baseline - b) > size * 0.35) continue;
        const col = [...bounds, Infinity].findIndex((x) => (r.x0 + r.x1) / 2 < x);
        row[col].push(r);
      }
      return row.map(cellText);
    });
    tables.push({ ...box, rows: rows.filter((row) => row.some((c) => c !== '')) });
  }
  return tables;
}

export function findTables(segments: Segment[], fragments: Fragment[]): Table[] {
  const horizontal = segments.filter((s) => s.y1 - s.y0 <= 1 && s.x1 - s.x0 >= 10);
  const vertical = segments.filter((s) => s.x1 - s.x0 <= 1 && s.y1 - s.y0 >= 5);
  // Vector drawings (charts, maps) have thousands of strokes and no tables worth the quadratic search.
  if (horizontal.length < 2 || horizontal.length + vertical.length > 2000) return [];
  const runs = fragments.flatMap((f) => f.runs);
  const grids = gridTables(horizontal, vertical, runs);
  return [...grids, ...ruleStackTables(horizontal, runs, grids)];
}
