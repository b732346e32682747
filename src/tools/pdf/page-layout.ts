/**
 * Turns a page's characters (from PDFium) into text fragments in reading order. Everything
 * is computed in a "reading frame": the page turned so that its dominant text direction runs
 * left to right with y growing downwards. That one normalisation covers /Rotate pages,
 * landscape pages drawn sideways and upside-down scans with a text layer, so the ordering
 * code below only ever deals with horizontal text.
 */
import type { PdfPage } from './open-pdf.ts';
import { baseFontName } from './page-fonts.ts';
import { isSpace, layoutRuns, outsideView, RunBuilder, type RawPageText } from './text-runs.ts';

/** A run of characters of one text object on one line, positioned in the reading frame. */
export interface TextRun {
  text: string;
  x0: number;
  x1: number;
  baseline: number;
  top: number;
  bottom: number;
  size: number;
  /** Font name without subset tag ('' when unknown); "ocr:..." for OCR words. */
  fontId: string;
}

/**
 * Runs on one baseline with no wide gap between them: a line of a paragraph, or a table cell.
 * Its size and font are the dominant ones (by characters).
 */
export interface Fragment extends TextRun {
  runs: TextRun[];
  /** Page number, set by tools that work across pages (pdf-md). */
  page?: number;
}

export interface Frame {
  /** Size of the page as displayed (after /Rotate), in PDF points. */
  displayWidth: number;
  displayHeight: number;
  /** Size of the reading frame (swapped when the text runs sideways). */
  width: number;
  height: number;
  /** Quarter turns between display and reading frame. */
  quarter: 0 | 1 | 2 | 3;
  /** Display point -> reading frame. */
  toFrame(x: number, y: number): [number, number];
  /** Reading frame point -> display. */
  toDisplay(u: number, v: number): [number, number];
  /** Transform (6-element matrix) from PDF user space to display space (origin top-left, y down). */
  viewportTransform: number[];
}

export interface PageText {
  frame: Frame;
  fragments: Fragment[];
}

const multiply = (m1: number[], m2: number[]): number[] => [
  m1[0] * m2[0] + m1[2] * m2[1],
  m1[1] * m2[0] + m1[3] * m2[1],
  m1[0] * m2[2] + m1[2] * m2[3],
  m1[1] * m2[2] + m1[3] * m2[3],
  m1[0] * m2[4] + m1[2] * m2[5] + m1[4],
  m1[1] * m2[4] + m1[3] * m2[5] + m1[5],
];
export const applyMatrix = (m: number[], x: number, y: number): [number, number] => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
export { multiply as multiplyMatrix };

export function makeFrame(displayWidth: number, displayHeight: number, quarter: 0 | 1 | 2 | 3, viewportTransform: number[]): Frame {
  const W = displayWidth;
  const H = displayHeight;
  const toFrame: Frame['toFrame'] = [
    (x: number, y: number): [number, number] => [x, y],
    (x: number, y: number): [number, number] => [y, W - x],
    (x: number, y: number): [number, number] => [W - x, H - y],
    (x: number, y: number): [number, number] => [H - y, x],
  ][quarter];
  const toDisplay: Frame['toDisplay'] = [
    (u: number, v: number): [number, number] => [u, v],
    (u: number, v: number): [number, number] => [W - v, u],
    (u: number, v: number): [number, number] => [W - u, H - v],
    (u: number, v: number): [number, number] => [v, H - u],
  ][quarter];
  const sideways = quarter % 2 === 1;
  return { displayWidth: W, displayHeight: H, width: sideways ? H : W, height: sideways ? W : H, quarter, toFrame, toDisplay, viewportTransform };
}

/**
 * PDF user space -> the page as displayed (origin top-left, y down, /Rotate applied), at
 * scale 1: the same matrix as pdf.js's PageViewport, so coordinates did not move when the
 * engine changed.
 */
export function displayTransform(viewBox: [number, number, number, number], rotate: 0 | 1 | 2 | 3): { transform: number[]; width: number; height: number } {
  const [x0, y0, x1, y1] = viewBox;
  const cx = (x0 + x1) / 2;
  const cy = (y0 + y1) / 2;
  const [a, b, c, d] = ([[1, 0, 0, -1], [0, 1, 1, 0], [-1, 0, 0, 1], [0, -1, -1, 0]] as const)[rotate];
  const sideways = a === 0;
  const offX = sideways ? Math.abs(cy - y0) : Math.abs(cx - x0);
  const offY = sideways ? Math.abs(cx - x0) : Math.abs(cy - y0);
  const width = sideways ? Math.abs(y1 - y0) : Math.abs(x1 - x0);
  const height = sideways ? Math.abs(x1 - x0) : Math.abs(y1 - y0);
  return { transform: [a, b, c, d, offX - a * cx - c * cy, offY - b * cx - d * cy], width, height };
}

const median = (values: number[]): number => {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/**
 * Reads the text layer of one page into fragments positioned in its reading frame: from the
 * fast content-stream reader when it understands the page (fast-text/), else from PDFium.
 */
export function readPageText(page: PdfPage): PageText {
  return layoutRuns(page.fastText() ?? readPdfiumRuns(page));
}

/**
 * PDFium's text page as runs. PDFium gives each character its unicode value, its text object
 * and its box; runs are consecutive characters of one text object, cut at PDFium's line
 * breaks and at wide jumps.
 *
 * Cost matters here (a call per character per property): per character only unicode, text
 * object and loose box are read; matrix, origin, size and font once per run.
 */
export function readPdfiumRuns(page: PdfPage): RawPageText {
  const { pdfium, viewBox, rotate } = page;
  const { x } = pdfium;
  const tp = page.textPage();
  const count = tp ? x.FPDFText_CountChars(tp) : 0;
  const builder = new RunBuilder();
  if (count <= 0) return { runs: [], viewBox, rotate };
  // Scratch memory: a loose box (4 floats), a matrix (6 floats), an origin (2 doubles), a font name.
  const scratch = x.malloc(384);
  const loose = scratch + 32;
  const matrix = scratch + 48;
  const origin = scratch + 72;
  const nameBuffer = { ptr: scratch + 128, size: 256 };
  const fontNames = new Map<number, string>();
  try {
    for (let k = 0; k < count; k++) {
      // One call per character: FPDFText_GetText would be one call per page, but it returns
      // PDFium's text buffer, whose indices drift from the character indices.
      const u = x.FPDFText_GetUnicode(tp, k);
      if (u === 0x0d || u === 0x0a) {
        // PDFium's line breaks (generated between lines it found): a run never spans them.
        builder.lineBreak();
        continue;
      }
      // Spaces, the document's or the ones PDFium generated for wide gaps, are only noted.
      if (isSpace(u)) {
        builder.space();
        continue;
      }
      // PDFium reports a hyphen that ends a line as U+0002.
      const code = u === 0x02 ? 0x2d : u;
      if (code < 0x20 || code === 0xfffe || code === 0xffff) continue;
      const object = x.FPDFText_GetTextObject(tp, k);
      if (!x.FPDFText_GetLooseCharBox(tp, k, loose)) continue;
      const f32box = pdfium.f32();
      // FS_RECTF: left, top, right, bottom.
      const l = f32box[loose >> 2];
      const t = f32box[(loose >> 2) + 1];
      const r = f32box[(loose >> 2) + 2];
      const b = f32box[(loose >> 2) + 3];
      // Text wholly outside the page's visible box is not on the page as shown; pdftotext
      // and pdf.js leave it out too.
      if (outsideView(viewBox, l, t, r, b)) continue;
      if (builder.extend(object, code, l, t, r, b)) continue;
      // A new run: its matrix, size, origin and font, once.
      x.FPDFText_GetMatrix(tp, k, matrix);
      x.FPDFText_GetCharOrigin(tp, k, origin, origin + 8);
      const fontSize = x.FPDFText_GetFontSize(tp, k);
      const f32 = pdfium.f32();
      const o64 = pdfium.f64();
      const [ma, mb, mc, md] = [f32[matrix >> 2], f32[(matrix >> 2) + 1], f32[(matrix >> 2) + 2], f32[(matrix >> 2) + 3]];
      const scaleX = Math.hypot(ma, mb);
      const dx = scaleX ? ma / scaleX : 1;
      const dy = scaleX ? mb / scaleX : 0;
      const size = fontSize * Math.hypot(mc, md) || Math.abs(t - b) || 1;
      const font = x.FPDFTextObj_GetFont(object);
      let fontId = fontNames.get(font);
      if (fontId === undefined) fontNames.set(font, (fontId = baseFontName(pdfium, font, nameBuffer)));
      builder.start(object, code, l, t, r, b, dx, dy, size, o64[origin >> 3], o64[(origin >> 3) + 1], fontId);
    }
  } finally {
    x.free(scratch);
  }
  return { runs: builder.finish(), viewBox, rotate };
}

const dominantBy = <T>(runs: TextRun[], key: (r: TextRun) => T): T => {
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
const SAME_LINE = 0.35;
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

// ---------------------------------------------------------------------------------------
// Reading order: a recursive XY-cut with a preference for text columns.

/** The part of a fragment's box that ink reliably occupies; full boxes of adjacent lines overlap. */
const coreTop = (f: { baseline: number; size: number; top: number }) => Math.max(f.top, f.baseline - 0.7 * f.size);
const coreBottom = (f: { baseline: number; size: number; bottom: number }) => Math.min(f.bottom, f.baseline + 0.15 * f.size);

interface Gap {
  start: number;
  end: number;
}

/** Whitespace bands in the projection of the intervals, largest first. */
function gapsOf(intervals: [number, number][]): Gap[] {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  const gaps: Gap[] = [];
  let reach = sorted[0][1];
  for (let i = 1; i < sorted.length; i++) {
    const [s, e] = sorted[i];
    if (s > reach) gaps.push({ start: reach, end: s });
    reach = Math.max(reach, e);
  }
  return gaps.sort((a, b) => b.end - b.start - (a.end - a.start));
}

/** Distinct lines among fragments (baselines more than half a font size apart). */
const lineCount = (frags: Fragment[]): number => {
  const baselines = frags.map((f) => f.baseline).sort((a, b) => a - b);
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
  return median(frags.map((f) => f.x1 - f.x0)) >= 12 * bodySize;
}

export interface Box {
  x0: number;
  x1: number;
  baseline: number;
  top: number;
  bottom: number;
  size: number;
}

/** Orders boxes for reading: top to bottom, columns left to right, table rows row by row. */
export function readingOrder<T extends Box & { text?: string }>(items: T[]): T[] {
  if (items.length <= 1) return [...items];
  const bodySize = median(items.map((f) => f.size)) || 10;
  const out: T[] = [];
  const cut = (set: T[]): void => {
    if (set.length <= 1) {
      out.push(...set);
      return;
    }
    const xGaps = gapsOf(set.map((f) => [f.x0, f.x1]));
    for (const g of xGaps) {
      if (g.end - g.start < 0.8 * bodySize) break;
      const mid = (g.start + g.end) / 2;
      const left = set.filter((f) => f.x1 <= mid);
      const right = set.filter((f) => f.x0 >= mid);
      if (isTextColumn(left as unknown as Fragment[], bodySize) && isTextColumn(right as unknown as Fragment[], bodySize)) {
        cut(left);
        cut(right);
        return;
      }
    }
    const yGaps = gapsOf(set.map((f) => [coreTop(f), coreBottom(f)]));
    if (yGaps.length) {
      // Cut at every gap about as wide as the widest at once: a column of evenly spaced
      // lines becomes bands in one step instead of one recursion level per line.
      const widest = yGaps[0].end - yGaps[0].start;
      const cuts = yGaps
        .filter((g) => g.end - g.start >= widest * 0.9)
        .map((g) => (g.start + g.end) / 2)
        .sort((a, b) => a - b);
      const sorted = [...set].sort((a, b) => coreTop(a) - coreTop(b));
      let band: T[] = [];
      let next = 0;
      for (const f of sorted) {
        while (next < cuts.length && coreTop(f) >= cuts[next]) {
          if (band.length) cut(band);
          band = [];
          next++;
        }
        band.push(f);
      }
      cut(band);
      return;
    }
    if (xGaps.length) {
      // One row of cells: all cuts at once, left to right.
      const sorted = [...set].sort((a, b) => a.x0 - b.x0);
      const groups: T[][] = [];
      let reach = -Infinity;
      for (const f of sorted) {
        if (f.x0 > reach) groups.push([]);
        groups[groups.length - 1].push(f);
        reach = Math.max(reach, f.x1);
      }
      if (groups.length > 1) {
        for (const g of groups) cut(g);
        return;
      }
    }
    out.push(...[...set].sort((a, b) => a.baseline - b.baseline || a.x0 - b.x0));
  };
  cut(items);
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

const sameRow = (a: Box, b: Box) => Math.abs(a.baseline - b.baseline) <= SAME_LINE * Math.max(a.size, b.size);

/** Groups fragments (already in reading order) into paragraphs. */
export function buildBlocks(ordered: Fragment[]): Block[] {
  return groupBlocks(ordered).map((lines) => {
    const runs = lines.flatMap((f) => f.runs);
    return {
      lines,
      x0: Math.min(...lines.map((f) => f.x0)),
      x1: Math.max(...lines.map((f) => f.x1)),
      top: Math.min(...lines.map((f) => f.top)),
      bottom: Math.max(...lines.map((f) => f.bottom)),
      size: dominantBy(runs, (r) => Math.round(r.size * 10) / 10),
      fontId: dominantBy(runs, (r) => r.fontId),
    };
  });
}

/**
 * The lines of each paragraph of buildBlocks, without the paragraph's box, size and font:
 * all that plain text needs to tell a line break from a paragraph break.
 */
export function groupBlocks(ordered: Fragment[]): Fragment[][] {
  const blocks: Fragment[][] = [];
  let current: Fragment[] = [];
  const flush = () => {
    if (current.length) blocks.push(current);
    current = [];
  };
  for (const f of ordered) {
    const last = current[current.length - 1];
    if (last) {
      const step = f.baseline - last.baseline;
      const prevStep = current.length >= 2 ? last.baseline - current[current.length - 2].baseline : null;
      const maxStep = prevStep !== null ? Math.max(prevStep * 1.3, last.size * 1.05) : Math.max(last.size, f.size) * 1.8;
      const overlaps = f.x0 < last.x1 && f.x1 > last.x0;
      const sameSize = Math.abs(f.size - last.size) <= 0.12 * Math.max(f.size, last.size);
      if (!(step > 0 && step <= maxStep && overlaps && sameSize && !sameRow(f, last))) flush();
    }
    current.push(f);
  }
  flush();
  return blocks;
}

export const sameRowOf = sameRow;
export { median };
