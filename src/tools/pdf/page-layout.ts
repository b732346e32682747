/**
 * Turns a page's characters (from PDFium) into text fragments in reading order. Everything
 * is computed in a "reading frame": the page turned so that its dominant text direction runs
 * left to right with y growing downwards. That one normalisation covers /Rotate pages,
 * landscape pages drawn sideways and upside-down scans with a text layer, so the ordering
 * code below only ever deals with horizontal text.
 */
import type { PdfPage } from './open-pdf.ts';
import { baseFontName } from './page-fonts.ts';

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

const quarterOf = (dx: number, dy: number): 0 | 1 | 2 | 3 => {
  const q = Math.round(Math.atan2(dy, dx) / (Math.PI / 2));
  return (((q % 4) + 4) % 4) as 0 | 1 | 2 | 3;
};

const median = (values: number[]): number => {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Characters of one text object on one line, in PDF user space, before the frame is known. */
interface RawRun {
  /** UTF-16 code units of the run's text: one string per run, made when it ends. */
  codes: number[];
  text: string;
  object: number;
  font: number;
  /** Loose box (font ascent to descent, origin to advance) of its characters. */
  left: number;
  bottom: number;
  right: number;
  top: number;
  /** Origin of the first character (on the baseline). */
  ox: number;
  oy: number;
  /** Unit direction of the baseline, user space. */
  dx: number;
  dy: number;
  size: number;
  /** Furthest extent along the baseline so far, to spot a gap or a wide jump inside one text object. */
  reach: number;
  pendingSpace: boolean;
}

/** Within one text object, a jump wider than this many font sizes starts another run (a column or a cell). */
const RUN_GAP = 0.8;
/** A gap wider than this many font sizes between two characters of a run is a word space (pdf.js used 0.102). */
const SPACE_GAP = 0.1;

const isSpace = (u: number) => u === 0x20 || u === 0x09 || u === 0xa0 || (u >= 0x2000 && u <= 0x200b) || u === 0x3000;

/**
 * Appends a character's UTF-16 code units. Compatibility characters are folded, as pdf.js did
 * (its text layer normalised them): ligatures "ﬁ" -> "fi" and the like, so words match what
 * people search.
 */
const pushChar = (codes: number[], u: number): void => {
  if (u < 0x2024 || (u > 0x2026 && u < 0xfb00) || (u > 0xfb4f && u < 0x10000)) {
    codes.push(u);
    return;
  }
  const ch = String.fromCodePoint(u);
  const folded = u < 0x10000 ? ch.normalize('NFKC') : ch;
  for (let i = 0; i < folded.length; i++) codes.push(folded.charCodeAt(i));
};

/**
 * The string of a run's code units, made once: a string grown a character at a time is a
 * rope that the layout's first string operation has to flatten, a copy per run.
 */
const codesToString = (codes: number[]): string => {
  if (codes.length <= 4096) return String.fromCharCode.apply(null, codes);
  // apply() takes a bounded number of arguments.
  let s = '';
  for (let i = 0; i < codes.length; i += 4096) s += String.fromCharCode.apply(null, codes.slice(i, i + 4096));
  return s;
};

/**
 * Reads the text layer of one page into runs positioned in its reading frame. PDFium gives
 * each character its unicode value, its text object and its box; runs are consecutive
 * characters of one text object, cut at PDFium's line breaks and at wide jumps, which is
 * about what pdf.js reported as text items.
 *
 * Cost matters here (a call per character per property): per character only unicode, text
 * object and loose box are read; matrix, origin, size and font once per run.
 */
export function readPageText(page: PdfPage): PageText {
  const { pdfium } = page;
  const { x } = pdfium;
  const view = displayTransform(page.viewBox, page.rotate);
  const vt = view.transform;
  const tp = page.textPage();
  const count = tp ? x.FPDFText_CountChars(tp) : 0;
  if (count <= 0) return { frame: makeFrame(view.width, view.height, 0, vt), fragments: [] };

  const [vx0, vy0, vx1, vy1] = page.viewBox;
  // Scratch memory: a loose box (4 floats), a matrix (6 floats), an origin (2 doubles), a font name.
  const scratch = x.malloc(384);
  const loose = scratch + 32;
  const matrix = scratch + 48;
  const origin = scratch + 72;
  const nameBuffer = { ptr: scratch + 128, size: 256 };
  const fontNames = new Map<number, string>();
  const raw: RawRun[] = [];
  let cur: RawRun | null = null;
  const flush = () => {
    const run: RawRun | null = cur;
    cur = null;
    if (!run || !run.codes.length) return;
    // A space that ended a run stays in its text, as it did in pdf.js's items: the next run
    // may sit closer than the layout's word-gap threshold (a word in another font).
    if (run.pendingSpace) run.codes.push(0x20);
    run.text = codesToString(run.codes);
    raw.push(run);
  };
  try {
    for (let k = 0; k < count; k++) {
      // One call per character: FPDFText_GetText would be one call per page, but it returns
      // PDFium's text buffer, whose indices drift from the character indices.
      const u = x.FPDFText_GetUnicode(tp, k);
      if (u === 0x0d || u === 0x0a) {
        // PDFium's line breaks (generated between lines it found): a run never spans them.
        flush();
        continue;
      }
      // Spaces, the document's or the ones PDFium generated for wide gaps, are only noted.
      if (isSpace(u)) {
        if (cur) cur.pendingSpace = true;
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
      const tp_ = f32box[(loose >> 2) + 1];
      const r = f32box[(loose >> 2) + 2];
      const bt = f32box[(loose >> 2) + 3];
      // Text wholly outside the page's visible box (cut off by the crop box) is not on the
      // page as shown; pdftotext and pdf.js leave it out too.
      if (Math.max(l, r) < vx0 || Math.min(l, r) > vx1 || Math.max(tp_, bt) < vy0 || Math.min(tp_, bt) > vy1) continue;
      if (cur !== null && cur.object === object) {
        const run: RawRun = cur;
        // Extent of this character along the run's baseline (the loose box spans its advance).
        const p1 = l * run.dx + bt * run.dy;
        const p2 = r * run.dx + tp_ * run.dy;
        const p3 = l * run.dx + tp_ * run.dy;
        const p4 = r * run.dx + bt * run.dy;
        const along0 = Math.min(p1, p2, p3, p4);
        const along1 = Math.max(p1, p2, p3, p4);
        const gap = along0 - run.reach;
        if (!(gap > RUN_GAP * run.size || along1 < run.reach - 4 * run.size)) {
          // A visible gap inside a text object is a space even when the document has none
          // (letter-spaced code listings, words placed by kerning): pdf.js's threshold.
          if (run.pendingSpace || gap > SPACE_GAP * run.size) run.codes.push(0x20);
          run.pendingSpace = false;
          pushChar(run.codes, code);
          if (l < run.left) run.left = l;
          if (r > run.right) run.right = r;
          if (bt < run.bottom) run.bottom = bt;
          if (tp_ > run.top) run.top = tp_;
          if (along1 > run.reach) run.reach = along1;
          continue;
        }
      }
      flush();
      // A new run: its matrix, size, origin and font, once.
      x.FPDFText_GetMatrix(tp, k, matrix);
      x.FPDFText_GetCharOrigin(tp, k, origin, origin + 8);
      const fontSize = x.FPDFText_GetFontSize(tp, k);
      const f32 = pdfium.f32();
      const o64 = pdfium.f64();
      const [a, b, c, d] = [f32[matrix >> 2], f32[(matrix >> 2) + 1], f32[(matrix >> 2) + 2], f32[(matrix >> 2) + 3]];
      const scaleX = Math.hypot(a, b);
      const dx = scaleX ? a / scaleX : 1;
      const dy = scaleX ? b / scaleX : 0;
      const size = fontSize * Math.hypot(c, d) || Math.abs(tp_ - bt) || 1;
      const font = x.FPDFTextObj_GetFont(object);
      if (!fontNames.has(font)) fontNames.set(font, baseFontName(pdfium, font, nameBuffer));
      const reach = Math.max(l * dx + bt * dy, r * dx + tp_ * dy, l * dx + tp_ * dy, r * dx + bt * dy);
      const codes: number[] = [];
      pushChar(codes, code);
      cur = {
        codes,
        text: '',
        object,
        font,
        left: Math.min(l, r),
        right: Math.max(l, r),
        bottom: Math.min(bt, tp_),
        top: Math.max(bt, tp_),
        ox: o64[origin >> 3],
        oy: o64[(origin >> 3) + 1],
        dx,
        dy,
        size,
        reach,
        pendingSpace: false,
      };
    }
    flush();
  } finally {
    x.free(scratch);
  }

  // The dominant direction on the display decides the reading frame.
  const weight = [0, 0, 0, 0];
  const quarters = raw.map((r) => {
    const q = quarterOf(vt[0] * r.dx + vt[2] * r.dy, vt[1] * r.dx + vt[3] * r.dy);
    weight[q] += r.text.length;
    return q;
  });
  const dominant = weight.indexOf(Math.max(...weight)) as 0 | 1 | 2 | 3;
  const frame = makeFrame(view.width, view.height, dominant, vt);
  const toFrame = (px: number, py: number) => frame.toFrame(vt[0] * px + vt[2] * py + vt[4], vt[1] * px + vt[3] * py + vt[5]);
  const runs: TextRun[] = raw.map((r, i) => {
    const [u1, v1] = toFrame(r.left, r.bottom);
    const [u2, v2] = toFrame(r.right, r.bottom);
    const [u3, v3] = toFrame(r.left, r.top);
    const [u4, v4] = toFrame(r.right, r.top);
    const bottom = Math.max(v1, v2, v3, v4);
    return {
      text: r.text,
      x0: Math.min(u1, u2, u3, u4),
      x1: Math.max(u1, u2, u3, u4),
      top: Math.min(v1, v2, v3, v4),
      bottom,
      // Runs in another direction than the page's have no usable origin in this frame:
      // the bottom of their box, less a typical descent, stands in.
      baseline: quarters[i] === dominant ? toFrame(r.ox, r.oy)[1] : bottom - 0.2 * r.size,
      size: r.size,
      fontId: fontNames.get(r.font) ?? '',
    };
  });
  return { frame, fragments: buildFragments(runs) };
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
