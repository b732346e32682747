/**
 * What the text readers produce and the layout consumes. Types only, so the readers
 * (fast-text/, pdfium-runs.ts) and the layout (page-layout.ts) all import downward.
 */
import type { Frame } from './geometry.ts';

/** Characters of one text object on one line, in PDF user space, before the frame is known. */
export interface RawRun {
  /** UTF-16 code units of the run's text: one string per run, made when it ends. */
  codes: number[];
  text: string;
  object: number;
  fontId: string;
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
  /** Where along the baseline the run starts. */
  from: number;
  /**
   * Gaps inside the run wider than a word space (CUT_GAP font sizes: cells of a tight table),
   * three numbers each: the index in codes of the space put there, where the gap starts and
   * where it ends along the baseline; null when there are none.
   */
  cuts: number[] | null;
}

/** What an engine read from one page: the runs and the page's box and turn. */
export interface RawPageText {
  runs: RawRun[];
  /** The page's box as shown (crop box within the media box), PDF user space. */
  viewBox: [number, number, number, number];
  rotate: 0 | 1 | 2 | 3;
  /** The page's painted lines, when the reader collected them (the fast reader does). */
  rules?: RawRules;
}

/**
 * What ruled tables need of a page's paths, in PDF user space: each stroked straight segment
 * (x0, y0, x1, y1 in turn) and the box of each path that is only filled (minX, minY, maxX, maxY).
 */
export interface RawRules {
  strokes: number[];
  fills: number[];
}

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

export interface PageText {
  frame: Frame;
  fragments: Fragment[];
  /** The page's painted lines in user space, when its reader collected them. */
  rules?: RawRules;
}
