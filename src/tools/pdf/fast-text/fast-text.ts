/**
 * The fast text path: reads a page's text straight from its content stream (text operators,
 * fonts from the resources) into the same runs PDFium's text page gives (text-runs.ts),
 * several times cheaper than PDFium's text page in WebAssembly. It answers only for pages it
 * fully understands; for any other page (or document) it answers null and PDFium reads it,
 * so the output never depends on a guess. See docs/decisions.md ("pdf-text: two engines").
 */
import { multiplyMatrix } from '../geometry.ts';
import { RunBuilder, isSpace, outsideView } from '../run-builder.ts';
import type { RawPageText, RawRules } from '../text-types.ts';
import { loadFont, type FastFont } from './fonts.ts';
import { optionalContent, type OptionalContent } from './optional-content.ts';
import type { OutlineEntry } from '../open-pdf.ts';
import { readOutline } from './outline.ts';
import { Lexer, Op, PdfObjects, PdfStream, PdfString, Ref, Unsupported, type PdfDict, type PdfValue } from './pdf-objects.ts';

export interface FastTextDocument {
  /** The page's runs, or null when the fast path cannot read it (PDFium will). */
  pageText(pageNumber: number): RawPageText | null;
  /** Why the last page answered null (for tests and benchmarks: which pages go to PDFium and why). */
  declined: string | null;
  /**
   * The outline as PDFium's bookmark functions give it (outline.ts), or null when it is not
   * plain enough to be sure of that (PDFium reads it then).
   */
  outline(maxEntries: number, maxDepth: number): OutlineEntry[] | null;
}

interface PageInfo {
  dict: PdfDict;
  /** The page's object number; 0 for a page dictionary written inline in its parent. */
  num: number;
  resources: PdfDict | undefined;
  viewBox: [number, number, number, number];
  rotate: 0 | 1 | 2 | 3;
}

/** Form XObjects nest at most this deep (a loop of forms is refused, not followed). */
const MAX_FORM_DEPTH = 12;
/** Operators per page before the fast path gives the page to PDFium (a bound on hostile input). */
const MAX_OPERATORS = 2_000_000;

/**
 * Opens the fast reader over the same bytes PDFium opened; null when the document is not
 * one it reads (encrypted, a damaged cross-reference, another page count than PDFium's).
 */
export function openFastText(bytes: Uint8Array, expectedPages: number): FastTextDocument | null {
  let objects: PdfObjects;
  let pages: PageInfo[];
  let plainTree = false;
  try {
    objects = new PdfObjects(bytes);
    const tree = pageList(objects);
    pages = tree.pages;
    plainTree = tree.plain;
  } catch (error) {
    if (error instanceof Unsupported || error instanceof RangeError) return null;
    throw error;
  }
  if (pages.length !== expectedPages) return null;
  return new FastText(objects, pages, plainTree);
}

/** A document's fast reader: a class, not an object of closures made per document (V8 recompile churn). */
class FastText implements FastTextDocument {
  declined: string | null = null;
  private readonly fonts = new Map<PdfValue, FastFont | Unsupported>();
  // Read on the first page asked for: which optional content the document hides.
  private hiddenContent: OptionalContent | null | undefined = undefined;

  constructor(
    private readonly objects: PdfObjects,
    private readonly pages: PageInfo[],
    private readonly plainTree: boolean,
  ) {}

  outline(maxEntries: number, maxDepth: number): OutlineEntry[] | null {
    // PDFium finds a bookmark's page by its object number, walking the tree by /Count:
    // only a tree whose counts and kinds of node agree with the walk here gives the same index.
    if (!this.plainTree) return null;
    const pageIndex = new Map<number, number>();
    const pages = this.pages;
    for (let i = 0; i < pages.length; i++) {
      const p = pages[i];
      if (p.num > 0 && !pageIndex.has(p.num)) pageIndex.set(p.num, i);
    }
    try {
      return readOutline(this.objects, pageIndex, maxEntries, maxDepth);
    } catch (error) {
      if (error instanceof Unsupported || error instanceof RangeError) return null;
      throw error;
    }
  }

  pageText(pageNumber: number): RawPageText | null {
    const page = this.pages[pageNumber - 1];
    this.declined = page ? null : 'no such page';
    if (!page) return null;
    try {
      if (this.hiddenContent === undefined) this.hiddenContent = optionalContent(this.objects);
      return readPage(this.objects, this.fonts, page, this.hiddenContent);
    } catch (error) {
      // RangeError: a stack or an allocation too large for a hostile file; PDFium decides.
      if (error instanceof Unsupported || error instanceof RangeError) {
        this.declined = error.message;
        return null;
      }
      throw error;
    }
  }
}

function numbers(objects: PdfObjects, v: PdfValue | undefined, n: number): number[] | null {
  const a = objects.array(v);
  if (!a || a.length < n) return null;
  // Built by push, every entry checked: an array from .map changes its elements kind with the
  // tier of the code that made it, and its readers deoptimized on it (V8 recompile churn).
  const out: (PdfValue | undefined)[] = [];
  for (let i = 0; i < n; i++) out.push(objects.resolve(a[i]));
  for (let i = 0; i < n; i++) {
    const x = out[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) return null;
  }
  return out as number[];
}

/**
 * The page tree in order, with inherited resources, boxes and rotation; `plain` when every
 * node is a page exactly when it has no /Kids and every inner node's /Count is its number of
 * pages (then PDFium's page index of a page object is its place here).
 */
function pageList(objects: PdfObjects): { pages: PageInfo[]; plain: boolean } {
  const root = objects.dict(objects.trailer.get('Root'));
  const tree: PageTree = { objects, pages: [], seen: new Set<PdfDict>(), plain: true };
  const top = root?.get('Pages');
  walkPages(tree, objects.dict(top), top instanceof Ref ? top.num : 0, {}, 0);
  return { pages: tree.pages, plain: tree.plain };
}

/** The page tree walk's state (a module function over it, not a closure made per document). */
interface PageTree {
  objects: PdfObjects;
  pages: PageInfo[];
  seen: Set<PdfDict>;
  plain: boolean;
}

interface Inherited {
  resources?: PdfDict;
  mediaBox?: number[];
  cropBox?: number[];
  rotate?: number;
}

function walkPages(tree: PageTree, node: PdfDict | undefined, num: number, inherited: Inherited, depth: number): void {
  const { objects, pages } = tree;
  if (!node || tree.seen.has(node) || depth > 64) throw new Unsupported('bad page tree');
  tree.seen.add(node);
  const here = {
    resources: objects.dict(node.get('Resources')) ?? inherited.resources,
    mediaBox: numbers(objects, node.get('MediaBox'), 4) ?? inherited.mediaBox,
    cropBox: numbers(objects, node.get('CropBox'), 4) ?? inherited.cropBox,
    rotate: objects.num(node, 'Rotate') ?? inherited.rotate,
  };
  const kids = objects.array(node.get('Kids'));
  const type = objects.get(node, 'Type');
  if (type === 'Page' || (!kids && type !== 'Pages')) {
    const media = here.mediaBox ?? [0, 0, 612, 792];
    const crop = here.cropBox ?? media;
    const m = [Math.min(media[0], media[2]), Math.min(media[1], media[3]), Math.max(media[0], media[2]), Math.max(media[1], media[3])];
    const c = [Math.min(crop[0], crop[2]), Math.min(crop[1], crop[3]), Math.max(crop[0], crop[2]), Math.max(crop[1], crop[3])];
    // The crop box is clipped to the media box; an empty intersection falls back to the media box.
    let view: [number, number, number, number] = [Math.max(m[0], c[0]), Math.max(m[1], c[1]), Math.min(m[2], c[2]), Math.min(m[3], c[3])];
    if (view[0] >= view[2] || view[1] >= view[3]) view = m as [number, number, number, number];
    const turns = Math.round((here.rotate ?? 0) / 90);
    if ((here.rotate ?? 0) % 90 !== 0) throw new Unsupported('rotation not a multiple of 90');
    if (node.has('Kids')) tree.plain = false;
    pages.push({ dict: node, num, resources: here.resources, viewBox: view, rotate: (((turns % 4) + 4) % 4) as 0 | 1 | 2 | 3 });
    return;
  }
  const before = pages.length;
  if (!kids) tree.plain = false;
  for (const kid of kids ?? []) walkPages(tree, objects.dict(kid), kid instanceof Ref ? kid.num : 0, here, depth + 1);
  if (objects.num(node, 'Count') !== pages.length - before) tree.plain = false;
}

/** The decoded bytes of the page's content streams, in order, with a space between. */
function pageContent(objects: PdfObjects, page: PdfDict): Uint8Array {
  const contents = objects.resolve(page.get('Contents'));
  if (contents === undefined || contents === null) return new Uint8Array(0);
  if (contents instanceof PdfStream) return objects.decode(contents);
  if (!Array.isArray(contents)) throw new Unsupported('bad /Contents');
  const parts: Uint8Array[] = [];
  for (const c of contents) {
    const s = objects.resolve(c);
    if (!(s instanceof PdfStream)) throw new Unsupported('bad content stream');
    parts.push(objects.decode(s));
  }
  // Each part followed by a space, in one array (no Buffer per space, no Buffer.concat).
  let length = 0;
  for (const p of parts) length += p.length + 1;
  const joined = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    joined.set(p, at);
    at += p.length;
    joined[at++] = 0x20;
  }
  return joined;
}

type Matrix = [number, number, number, number, number, number];

const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

/** PDF's "m1 then m2" (m1 × m2 in the spec's row-vector notation): the layout's product, turned. */
const mul = (m1: Matrix, m2: Matrix): Matrix => multiplyMatrix(m2, m1) as Matrix;

/** The graphics state the reader follows: a class, so every state (and its copies by q) has one map. */
class GraphicsState {
  font: FastFont | null = null;
  /** Why the current font cannot be read, when it cannot. */
  fontError: Unsupported | null = null;
  fontSize = 0;
  charSpacing = 0;
  wordSpacing = 0;
  /** Horizontal scaling, as a fraction. */
  scale = 1;
  leading = 0;
  rise = 0;
  constructor(public ctm: Matrix) {}

  copy(): GraphicsState {
    const g = new GraphicsState(this.ctm);
    g.font = this.font;
    g.fontError = this.fontError;
    g.fontSize = this.fontSize;
    g.charSpacing = this.charSpacing;
    g.wordSpacing = this.wordSpacing;
    g.scale = this.scale;
    g.leading = this.leading;
    g.rise = this.rise;
    return g;
  }
}

// Slots of PageReader.last: the last glyph shown (any text object), for the space PDFium
// generates between two text objects on one line: its origin (user space), width (glyph
// units), font size and its text matrix's x axis (unit direction and scale). Doubles in a
// typed array, not in fields: a double field that is sometimes an integer changes its map.
const LAST_OX = 0;
const LAST_OY = 1;
const LAST_WIDTH = 2;
const LAST_SIZE = 3;
const LAST_DX = 4;
const LAST_DY = 5;
const LAST_SCALE = 6;
// Slots of PageReader.hyp: the lengths of the text matrix's axes (Math.hypot) for the last axes seen, NaN at first.
const HYP_A = 0;
const HYP_B = 1;
const HYP_AB = 2;
const HYP_C = 3;
const HYP_D = 4;
const HYP_CD = 5;
// Slots of StreamReader.path: the current point (cx, cy), the subpath's start (sx, sy), the
// box of the path's points and the last transformed point (ux, uy), in user space.
const CX = 0;
const CY = 1;
const SX = 2;
const SY = 3;
const MIN_X = 4;
const MIN_Y = 5;
const MAX_X = 6;
const MAX_Y = 7;
const UX = 8;
const UY = 9;

/**
 * One page's reading: what all its content streams (the page's and its forms') share. A class
 * with methods, not closures made per page: closures made per call lose their optimized code
 * when their instances are collected, and V8 compiled them again and again (V8 recompile churn).
 */
class PageReader {
  readonly builder = new RunBuilder();
  /**
   * How many of the marked-content sequences open around the current operator are hidden
   * optional content (optional-content.ts): while any is, nothing is drawn, so no glyph and no
   * ruling is kept (text positions still advance, as they do when a viewer hides them).
   */
  hidden = 0;
  /** Painted lines for ruled tables, so PDFium need not load the page for them. */
  readonly rules: RawRules = { strokes: [], fills: [] };
  objectId = 0;
  operators = 0;
  /** The last glyph's text object, and whether it was a space (the rest is in `last`). */
  lastObject = 0;
  lastWasSpace = false;
  readonly last = new Float64Array(7);
  readonly hyp = new Float64Array(6).fill(NaN);

  constructor(
    readonly objects: PdfObjects,
    readonly fonts: Map<PdfValue, FastFont | Unsupported>,
    readonly viewBox: [number, number, number, number],
    readonly oc: OptionalContent | null,
  ) {
    this.last[LAST_DX] = 1;
    this.last[LAST_SCALE] = 1;
  }

  /**
   * Whether PDFium's text page puts a generated space between the last glyph and a text
   * object starting at (ox, oy) with a glyph of `width` at size `fs` (CPDF_TextPage::
   * ProcessInsertObject): the gap from the last glyph's end, in the last object's text space,
   * over a threshold from the wider glyph (a quarter to a sixth of it, by width). A new line
   * (a jump across the baseline) gets none: the layout breaks lines itself.
   */
  generatedSpace(ox: number, oy: number, width: number, fs: number, scale: number, dx: number, dy: number): boolean {
    const last = this.last;
    const lastDx = last[LAST_DX];
    const lastDy = last[LAST_DY];
    if (this.lastObject === 0 || this.lastWasSpace || Math.abs(dx - lastDx) + Math.abs(dy - lastDy) > 0.01) return false;
    const lastScale = last[LAST_SCALE];
    const lastWidth = last[LAST_WIDTH];
    const lastSize = last[LAST_SIZE];
    const vx = ox - last[LAST_OX];
    const vy = oy - last[LAST_OY];
    const along = (vx * lastDx + vy * lastDy) / lastScale;
    const across = (vy * lastDx - vx * lastDy) / lastScale;
    const lastW = Math.abs((lastWidth * lastSize) / 1000);
    const thisW = Math.abs((width * fs) / 1000);
    const t = Math.max(lastW, thisW) / 4;
    if ((across > 2 * t || across < -3 * t) && (Math.abs(across) >= 1 || Math.abs(across) > Math.abs(along))) return false;
    const wider = Math.max(lastWidth, width);
    let t2 = wider < 400 ? wider / 2 : wider < 700 ? wider / 4 : wider < 800 ? wider / 5 : wider / 6;
    t2 = (t2 * (lastWidth >= width ? Math.abs(lastSize) : (Math.abs(fs) * scale) / lastScale)) / 1000;
    if ((t2 < 1.4881 && t2 > 1.4879) || (t2 < 1.39001 && t2 > 1.38999)) t2 *= 1.5;
    if (Math.abs(lastW - along) <= t2) return false;
    return Math.abs(along) > t2 + lastW || along > thisW + lastW;
  }

  fontOf(resources: PdfDict | undefined, name: string): FastFont | Unsupported {
    const objects = this.objects;
    const fontDict = objects.dict(objects.get(resources, 'Font'));
    const ref = fontDict?.get(name);
    if (ref === undefined) return new Unsupported(`font ${name} missing`);
    const key = ref instanceof Ref ? ref.num : ref;
    let font = this.fonts.get(key);
    if (font === undefined) {
      try {
        font = loadFont(objects, ref);
      } catch (error) {
        if (!(error instanceof Unsupported)) throw error;
        font = error;
      }
      this.fonts.set(key, font);
    }
    // A font we cannot read is only a problem if it shows text: remember it, fail on use.
    return font;
  }
}

function readPage(objects: PdfObjects, fonts: Map<PdfValue, FastFont | Unsupported>, page: PageInfo, oc: OptionalContent | null): RawPageText {
  const reader = new PageReader(objects, fonts, page.viewBox, oc);
  new StreamReader(reader, pageContent(objects, page.dict), page.resources, [1, 0, 0, 1, 0, 0], 0).run();
  return { runs: reader.builder.finish(), viewBox: page.viewBox, rotate: page.rotate, rules: reader.rules };
}

/** One content stream's reading (the page's, or a form's): its own graphics state, text and path. */
class StreamReader {
  readonly lex: Lexer;
  readonly stack: GraphicsState[] = [];
  gs: GraphicsState;
  // The text matrix and the text line matrix, updated in place (a new array per string shown
  // and per line was most of the reader's allocation).
  readonly tm = new Float64Array(IDENTITY);
  readonly tlm = new Float64Array(IDENTITY);
  // The operands of the operator being read: the first `nops` entries. Truncating the array
  // after every operator (length = 0) cost more than interpreting most operators.
  readonly operands: PdfValue[] = [];
  nops = 0;
  /** This stream's open marked-content sequences, whether each hides its content. */
  readonly marked: boolean[] = [];
  /** The path under construction, in user space: its straight segments (and `path`'s slots). */
  readonly segs: number[] = [];
  readonly path = new Float64Array(10);

  constructor(
    readonly page: PageReader,
    content: Uint8Array,
    readonly resources: PdfDict | undefined,
    ctm: Matrix,
    readonly depth: number,
  ) {
    this.lex = new Lexer(content);
    this.gs = new GraphicsState(ctm);
    const path = this.path;
    path[MIN_X] = path[MIN_Y] = Infinity;
    path[MAX_X] = path[MAX_Y] = -Infinity;
  }

  /** Transforms (px, py) by the CTM into path[UX], path[UY] and grows the box. */
  point(px: number, py: number): void {
    const m = this.gs.ctm;
    const path = this.path;
    const ux = m[0] * px + m[2] * py + m[4];
    const uy = m[1] * px + m[3] * py + m[5];
    if (ux < path[MIN_X]) path[MIN_X] = ux;
    if (ux > path[MAX_X]) path[MAX_X] = ux;
    if (uy < path[MIN_Y]) path[MIN_Y] = uy;
    if (uy > path[MAX_Y]) path[MAX_Y] = uy;
    path[UX] = ux;
    path[UY] = uy;
  }

  moveTo(px: number, py: number): void {
    this.point(px, py);
    const path = this.path;
    path[SX] = path[CX] = path[UX];
    path[SY] = path[CY] = path[UY];
  }

  lineTo(px: number, py: number): void {
    this.point(px, py);
    const path = this.path;
    this.segs.push(path[CX], path[CY], path[UX], path[UY]);
    path[CX] = path[UX];
    path[CY] = path[UY];
  }

  curveTo(): void {
    const path = this.path;
    path[CX] = path[UX];
    path[CY] = path[UY];
  }

  closePath(): void {
    const path = this.path;
    this.segs.push(path[CX], path[CY], path[SX], path[SY]);
    path[CX] = path[SX];
    path[CY] = path[SY];
  }

  paint(stroke: boolean, fill: boolean): void {
    const path = this.path;
    const segs = this.segs;
    const rules = this.page.rules;
    if (this.page.hidden > 0) stroke = fill = false;
    if (stroke) for (let i = 0; i < segs.length; i++) rules.strokes.push(segs[i]);
    else if (fill && path[MIN_X] <= path[MAX_X]) rules.fills.push(path[MIN_X], path[MIN_Y], path[MAX_X], path[MAX_Y]);
    segs.length = 0;
    path[MIN_X] = path[MIN_Y] = Infinity;
    path[MAX_X] = path[MAX_Y] = -Infinity;
  }

  /** A one-pixel stencil mask painted over the unit square: a filled box, as a path's fill. */
  maskRule(): void {
    this.moveTo(0, 0);
    this.lineTo(1, 0);
    this.lineTo(1, 1);
    this.lineTo(0, 1);
    this.closePath();
    this.paint(false, true);
  }

  num(i: number): number {
    const v = this.operands[this.nops - i];
    if (typeof v !== 'number') throw new Unsupported('operand is not a number');
    return v;
  }

  moveLine(tx: number, ty: number): void {
    const tlm = this.tlm;
    const e = tx * tlm[0] + ty * tlm[2] + tlm[4];
    const f = tx * tlm[1] + ty * tlm[3] + tlm[5];
    tlm[4] = e;
    tlm[5] = f;
    this.tm.set(tlm);
  }

  show(s: PdfValue): void {
    if (!(s instanceof PdfString)) throw new Unsupported('show operand is not a string');
    const gs = this.gs;
    const font = gs.font;
    if (!font) {
      if (s.end === s.start) return;
      throw gs.fontError ?? new Unsupported('text without a font');
    }
    const page = this.page;
    const builder = page.builder;
    const last = page.last;
    const hyp = page.hyp;
    const viewBox = page.viewBox;
    const tm = this.tm;
    const object = ++page.objectId;
    const fs = gs.fontSize;
    const th = gs.scale;
    // The text object's matrix (Tm then the CTM), as PDFium reports it per character.
    const c = gs.ctm;
    const m0 = c[0] * tm[0] + c[2] * tm[1];
    const m1 = c[1] * tm[0] + c[3] * tm[1];
    const m2 = c[0] * tm[2] + c[2] * tm[3];
    const m3 = c[1] * tm[2] + c[3] * tm[3];
    const m4 = c[0] * tm[4] + c[2] * tm[5] + c[4];
    const m5 = c[1] * tm[4] + c[3] * tm[5] + c[5];
    // Math.hypot is slow, and the strings of one line (of a TJ array) share these axes.
    if (m0 !== hyp[HYP_A] || m1 !== hyp[HYP_B]) {
      hyp[HYP_A] = m0;
      hyp[HYP_B] = m1;
      hyp[HYP_AB] = Math.hypot(m0, m1);
    }
    if (m2 !== hyp[HYP_C] || m3 !== hyp[HYP_D]) {
      hyp[HYP_C] = m2;
      hyp[HYP_D] = m3;
      hyp[HYP_CD] = Math.hypot(m2, m3);
    }
    const scaleX = hyp[HYP_AB];
    const dx = scaleX ? m0 / scaleX : 1;
    const dy = scaleX ? m1 / scaleX : 0;
    const size = Math.abs(fs) * hyp[HYP_CD] || 1;
    // Loose box in text space: the glyph's advance along the baseline, the font's
    // ascent-to-descent band (scaled to one em, or for a TeX program's font its FontBBox at
    // its own scale, as PDFium gives them) across it.
    const em = font.em;
    const top = (fs * font.ascent) / em + gs.rise;
    const bottom = (fs * font.descent) / em + gs.rise;
    const bytes = s.src;
    const end = s.end;
    const step = font.bytesPerCode;
    let x = 0;
    for (let i = s.start; i + step <= end; i += step) {
      const code = step === 1 ? bytes[i] : (bytes[i] << 8) | bytes[i + 1];
      const fw = font.width(code);
      const w = (fw / 1000) * fs;
      const text = font.text(code);
      const advance = (w + gs.charSpacing + (step === 1 && code === 32 ? gs.wordSpacing : 0)) * th;
      if (text.length > 0 && page.hidden === 0) {
        const u = text.codePointAt(0)!;
        const space = isSpace(u) && text.length === 1;
        const glyphOx = x * m0 + m4;
        const glyphOy = x * m1 + m5;
        if (object !== page.lastObject && !space && page.generatedSpace(glyphOx, glyphOy, fw, fs, scaleX, dx, dy)) builder.space();
        page.lastObject = object;
        last[LAST_OX] = glyphOx;
        last[LAST_OY] = glyphOy;
        last[LAST_WIDTH] = fw;
        last[LAST_SIZE] = fs;
        last[LAST_DX] = dx;
        last[LAST_DY] = dy;
        last[LAST_SCALE] = scaleX || 1;
        page.lastWasSpace = space;
        if (space) builder.space();
        else if (u === 0x0d || u === 0x0a) builder.lineBreak();
        else if (u >= 0x20) {
          // Corners of the box (x .. x + w*th, bottom .. top) in user space.
          const x1 = x + w * th;
          const ax = x * m0 + bottom * m2 + m4;
          const ay = x * m1 + bottom * m3 + m5;
          const bx = x1 * m0 + bottom * m2 + m4;
          const by = x1 * m1 + bottom * m3 + m5;
          const cx = x * m0 + top * m2 + m4;
          const cy = x * m1 + top * m3 + m5;
          const ex = x1 * m0 + top * m2 + m4;
          const ey = x1 * m1 + top * m3 + m5;
          const l = Math.min(ax, bx, cx, ex);
          const r = Math.max(ax, bx, cx, ex);
          const b = Math.min(ay, by, cy, ey);
          const t = Math.max(ay, by, cy, ey);
          if (!outsideView(viewBox, l, t, r, b)) {
            if (!builder.extend(object, u, l, t, r, b)) {
              const ox = x * m0 + gs.rise * m2 + m4;
              const oy = x * m1 + gs.rise * m3 + m5;
              builder.start(object, u, l, t, r, b, dx, dy, size, ox, oy, font.name);
            }
            for (let k = u > 0xffff ? 2 : 1; k < text.length; k++) builder.append(text.charCodeAt(k));
          }
        }
      }
      x += advance;
    }
    const e = x * tm[0] + tm[4];
    const f = x * tm[1] + tm[5];
    tm[4] = e;
    tm[5] = f;
  }

  /** TJ: one text object for the whole array, as PDFium makes it. */
  showArray(items: PdfValue): void {
    if (!Array.isArray(items)) throw new Unsupported('TJ operand is not an array');
    const page = this.page;
    const gs = this.gs;
    const tm = this.tm;
    const first = page.objectId + 1;
    for (const item of items) {
      if (typeof item === 'number') {
        const tx = (-item / 1000) * gs.fontSize * gs.scale;
        const e = tx * tm[0] + tm[4];
        const f = tx * tm[1] + tm[5];
        tm[4] = e;
        tm[5] = f;
      } else {
        this.show(item);
        page.objectId = first - 1;
      }
    }
    page.objectId = first;
  }

  /** Do: a form XObject is read as a stream of its own; anything else (an image) draws no text. */
  xobject(name: PdfValue): void {
    const page = this.page;
    const objects = page.objects;
    const xobjects = objects.dict(objects.get(this.resources, 'XObject'));
    const xobject = typeof name === 'string' ? objects.resolve(xobjects?.get(name)) : undefined;
    if (xobject instanceof PdfStream && objects.get(xobject.dict, 'Subtype') === 'Form') {
      if (page.oc?.hidden(xobject.dict.get('OC'))) return;
      if (this.depth >= MAX_FORM_DEPTH) throw new Unsupported('forms nested too deep');
      const matrix = numbers(objects, xobject.dict.get('Matrix'), 6) as Matrix | null;
      const formResources = objects.dict(xobject.dict.get('Resources')) ?? this.resources;
      const gs = this.gs;
      new StreamReader(page, objects.decode(xobject), formResources, matrix ? mul(matrix, gs.ctm) : gs.ctm, this.depth + 1).run();
    }
  }

  /** BDC: only /OC sequences hide anything; their operand names a group in /Properties (or is one inline). */
  beginMarked(): void {
    const page = this.page;
    const oc = page.oc;
    const operands = this.operands;
    const nops = this.nops;
    let hides = false;
    if (oc && nops >= 2 && operands[nops - 2] === 'OC') {
      const props = operands[nops - 1];
      const objects = page.objects;
      hides = oc.hidden(typeof props === 'string' ? objects.get(objects.dict(objects.get(this.resources, 'Properties')), props) : props);
    }
    this.marked.push(hides);
    if (hides) page.hidden++;
  }

  run(): void {
    const page = this.page;
    const lex = this.lex;
    const operands = this.operands;
    const stack = this.stack;
    const tm = this.tm;
    const tlm = this.tlm;
    for (;;) {
      const t = lex.next();
      // Most tokens are numbers, operands of the next operator.
      if (typeof t === 'number') {
        operands[this.nops++] = t;
        continue;
      }
      if (t === undefined) break;
      if (!(t instanceof Op)) {
        if (typeof t === 'symbol') throw new Unsupported('stray bracket');
        operands[this.nops++] = t as PdfValue;
        continue;
      }
      if (++page.operators > MAX_OPERATORS) throw new Unsupported('too many operators');
      const nops = this.nops;
      switch (t.name) {
        case 'q':
          if (stack.length > 256) throw new Unsupported('graphics state stack too deep');
          stack.push(this.gs.copy());
          break;
        case 'Q':
          // An unbalanced Q is ignored, as viewers do.
          if (stack.length) this.gs = stack.pop()!;
          break;
        case 'cm':
          this.gs.ctm = mul([this.num(6), this.num(5), this.num(4), this.num(3), this.num(2), this.num(1)], this.gs.ctm);
          break;
        case 'BT':
          tm.set(IDENTITY);
          tlm.set(IDENTITY);
          break;
        case 'Tf': {
          const name = operands[nops - 2];
          const font = typeof name === 'string' ? page.fontOf(this.resources, name) : new Unsupported('Tf without a font name');
          const gs = this.gs;
          gs.font = font instanceof Unsupported ? null : font;
          gs.fontError = font instanceof Unsupported ? font : null;
          gs.fontSize = this.num(1);
          break;
        }
        case 'Tc':
          this.gs.charSpacing = this.num(1);
          break;
        case 'Tw':
          this.gs.wordSpacing = this.num(1);
          break;
        case 'Tz':
          this.gs.scale = this.num(1) / 100;
          break;
        case 'TL':
          this.gs.leading = this.num(1);
          break;
        case 'Ts':
          this.gs.rise = this.num(1);
          break;
        case 'Td':
          this.moveLine(this.num(2), this.num(1));
          break;
        case 'TD':
          this.gs.leading = -this.num(1);
          this.moveLine(this.num(2), this.num(1));
          break;
        case 'Tm':
          tlm[0] = this.num(6);
          tlm[1] = this.num(5);
          tlm[2] = this.num(4);
          tlm[3] = this.num(3);
          tlm[4] = this.num(2);
          tlm[5] = this.num(1);
          tm.set(tlm);
          break;
        case 'T*':
          this.moveLine(0, -this.gs.leading);
          break;
        case 'Tj':
          this.show(operands[nops - 1]);
          break;
        case "'":
          this.moveLine(0, -this.gs.leading);
          this.show(operands[nops - 1]);
          break;
        case '"':
          this.gs.wordSpacing = this.num(3);
          this.gs.charSpacing = this.num(2);
          this.moveLine(0, -this.gs.leading);
          this.show(operands[nops - 1]);
          break;
        case 'TJ':
          this.showArray(operands[nops - 1]);
          break;
        case 'Do':
          this.xobject(operands[nops - 1]);
          break;
        case 'm':
          this.moveTo(this.num(2), this.num(1));
          break;
        case 'l':
          this.lineTo(this.num(2), this.num(1));
          break;
        case 'c':
          this.point(this.num(6), this.num(5));
          this.point(this.num(4), this.num(3));
          this.point(this.num(2), this.num(1));
          this.curveTo();
          break;
        case 'v':
        case 'y':
          this.point(this.num(4), this.num(3));
          this.point(this.num(2), this.num(1));
          this.curveTo();
          break;
        case 'h':
          this.closePath();
          break;
        case 're': {
          const rx = this.num(4);
          const ry = this.num(3);
          const rw = this.num(2);
          const rh = this.num(1);
          this.moveTo(rx, ry);
          this.lineTo(rx + rw, ry);
          this.lineTo(rx + rw, ry + rh);
          this.lineTo(rx, ry + rh);
          // PDFium closes a rectangle with a fifth point on the first one, then its close flag:
          // a stroked rectangle gives it (and so the rulings) a zero-length segment as well.
          this.lineTo(rx, ry);
          this.closePath();
          break;
        }
        case 'S':
          this.paint(true, false);
          break;
        case 's':
          this.closePath();
          this.paint(true, false);
          break;
        case 'f':
        case 'F':
        case 'f*':
          this.paint(false, true);
          break;
        case 'B':
        case 'B*':
          this.paint(true, true);
          break;
        case 'b':
        case 'b*':
          this.closePath();
          this.paint(true, true);
          break;
        case 'n':
          this.paint(false, false);
          break;
        case 'BI':
          if (skipInlineImage(lex) && page.hidden === 0) this.maskRule();
          break;
        case 'BMC':
          this.marked.push(false);
          break;
        case 'BDC':
          this.beginMarked();
          break;
        case 'EMC':
          if (this.marked.pop()) page.hidden--;
          break;
        case 'Tr':
        case 'ET':
        default:
          break;
      }
      this.nops = 0;
    }
    // A stream that leaves sequences open (a broken form) does not hide what follows it.
    for (const hides of this.marked) if (hides) page.hidden--;
  }
}

/**
 * Skips an inline image (BI … ID <binary> EI): its data is not PDF syntax. Returns whether it
 * is a stencil mask of one painted pixel: a filled box the size of its matrix, as Ghostscript
 * writes the rules dvips draws (a table's rules, scaled 1×1 masks).
 */
function skipInlineImage(lex: Lexer): boolean {
  const dict: PdfValue[] = [];
  for (;;) {
    const t = lex.next();
    if (t === undefined) throw new Unsupported('inline image without ID');
    if (t instanceof Op && t.name === 'ID') break;
    if (!(t instanceof Op) && typeof t !== 'symbol') dict.push(t);
  }
  const entry = (short: string, long: string): PdfValue | undefined => {
    for (let i = 0; i + 1 < dict.length; i += 2) if (dict[i] === short || dict[i] === long) return dict[i + 1];
    return undefined;
  };
  const decode = entry('D', 'Decode');
  const inverted = Array.isArray(decode) && decode[0] === 1;
  const b = lex.bytes;
  // The data starts after one whitespace byte and ends at an "EI" between whitespace.
  const start = lex.pos + 1;
  // (One pixel: its bit 0 paints, unless the decode array inverts it.)
  const onePixel = entry('IM', 'ImageMask') === true && entry('W', 'Width') === 1 && entry('H', 'Height') === 1 && entry('F', 'Filter') === undefined && start < b.length && ((b[start] & 0x80) === 0) !== inverted;
  let p = start;
  for (; p + 1 < b.length; p++) {
    if (b[p] === 0x45 && b[p + 1] === 0x49 && (p === 0 || b[p - 1] <= 0x20) && (p + 2 >= b.length || b[p + 2] <= 0x20)) {
      lex.pos = p + 2;
      return onePixel;
    }
  }
  throw new Unsupported('inline image without EI');
}
