/**
 * Collects an engine's characters into runs. Both text engines feed it: PDFium's text page
 * (pdfium-runs.ts) and the fast content-stream reader (fast-text/).
 */
import type { RawRun } from './text-types.ts';

/** Within one text object, a jump wider than this many font sizes starts another run (a column or a cell). */
const RUN_GAP = 0.8;
/** A gap wider than this many font sizes between two characters of a run is a word space (pdf.js used 0.102). */
const SPACE_GAP = 0.1;
/**
 * A gap wider than this many font sizes (but no jump) is noted as a cut: wider than a word
 * space, even a typewriter one (0.525), as table cells set close stand apart (2 x 3pt at 10pt).
 */
const CUT_GAP = 0.55;

export const isSpace = (u: number) => u === 0x20 || u === 0x09 || u === 0xa0 || (u >= 0x2000 && u <= 0x200b) || u === 0x3000;

/** Whether a character's box lies wholly outside the page's visible box (cut off by the crop box). */
export const outsideView = (view: [number, number, number, number], l: number, t: number, r: number, b: number): boolean =>
  Math.max(l, r) < view[0] || Math.min(l, r) > view[2] || Math.max(t, b) < view[1] || Math.min(t, b) > view[3];

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
 * Collects characters into runs: consecutive characters of one text object, cut at line
 * breaks and at wide jumps, which is about what pdf.js reported as text items. An engine
 * calls extend() for each visible character and, when it answers false, start() with the
 * character's direction, size and origin (read only then: they cost calls).
 */
export class RunBuilder {
  readonly runs: RawRun[] = [];
  private cur: RawRun | null = null;

  /** Ends the current run (a line break of the engine). */
  lineBreak(): void {
    const run = this.cur;
    this.cur = null;
    if (!run || !run.codes.length) return;
    // A space that ended a run stays in its text, as it did in pdf.js's items: the next run
    // may sit closer than the layout's word-gap threshold (a word in another font).
    if (run.pendingSpace) run.codes.push(0x20);
    run.text = codesToString(run.codes);
    this.runs.push(run);
  }

  /** A space character (the document's or the engine's): only noted, it has no box of its own. */
  space(): void {
    if (this.cur) this.cur.pendingSpace = true;
  }

  /** Adds a character (code point u, loose box l/t/r/b) to the current run if it continues it. */
  extend(object: number, u: number, l: number, t: number, r: number, b: number): boolean {
    const run = this.cur;
    if (run === null || run.object !== object) return false;
    // Extent of this character along the run's baseline (the loose box spans its advance).
    const p1 = l * run.dx + b * run.dy;
    const p2 = r * run.dx + t * run.dy;
    const p3 = l * run.dx + t * run.dy;
    const p4 = r * run.dx + b * run.dy;
    const along0 = Math.min(p1, p2, p3, p4);
    const along1 = Math.max(p1, p2, p3, p4);
    const gap = along0 - run.reach;
    if (gap > RUN_GAP * run.size || along1 < run.reach - 4 * run.size) return false;
    if (gap > CUT_GAP * run.size) (run.cuts ??= []).push(run.codes.length, run.reach, along0);
    // A visible gap inside a text object is a space even when the document has none
    // (letter-spaced code listings, words placed by kerning): pdf.js's threshold.
    if (run.pendingSpace || gap > SPACE_GAP * run.size) run.codes.push(0x20);
    run.pendingSpace = false;
    pushChar(run.codes, u);
    if (l < run.left) run.left = l;
    if (r > run.right) run.right = r;
    if (b < run.bottom) run.bottom = b;
    if (t > run.top) run.top = t;
    if (along1 > run.reach) run.reach = along1;
    return true;
  }

  /** More code units of the character just added (a ligature's second letter, say). */
  append(u: number): void {
    if (this.cur) pushChar(this.cur.codes, u);
  }

  /** Starts a run with this character. */
  start(object: number, u: number, l: number, t: number, r: number, b: number, dx: number, dy: number, size: number, ox: number, oy: number, fontId: string): void {
    this.lineBreak();
    const codes: number[] = [];
    pushChar(codes, u);
    this.cur = {
      codes,
      text: '',
      object,
      fontId,
      left: Math.min(l, r),
      right: Math.max(l, r),
      bottom: Math.min(b, t),
      top: Math.max(b, t),
      ox,
      oy,
      dx,
      dy,
      size,
      reach: Math.max(l * dx + b * dy, r * dx + t * dy, l * dx + t * dy, r * dx + b * dy),
      pendingSpace: false,
      from: Math.min(l * dx + b * dy, r * dx + t * dy, l * dx + t * dy, r * dx + b * dy),
      cuts: null,
    };
  }

  finish(): RawRun[] {
    this.lineBreak();
    return this.runs;
  }
}
