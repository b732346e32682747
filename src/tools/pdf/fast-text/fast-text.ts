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
  const fonts = new Map<PdfValue, FastFont | Unsupported>();
  // Read on the first page asked for: which optional content the document hides.
  let hiddenContent: OptionalContent | null | undefined;
  return {
    declined: null,
    outline(maxEntries, maxDepth) {
      // PDFium finds a bookmark's page by its object number, walking the tree by /Count:
      // only a tree whose counts and kinds of node agree with the walk here gives the same index.
      if (!plainTree) return null;
      const pageIndex = new Map<number, number>();
      pages.forEach((p, i) => {
        if (p.num > 0 && !pageIndex.has(p.num)) pageIndex.set(p.num, i);
      });
      try {
        return readOutline(objects, pageIndex, maxEntries, maxDepth);
      } catch (error) {
        if (error instanceof Unsupported || error instanceof RangeError) return null;
        throw error;
      }
    },
    pageText(pageNumber) {
      const page = pages[pageNumber - 1];
      this.declined = page ? null : 'no such page';
      if (!page) return null;
      try {
        if (hiddenContent === undefined) hiddenContent = optionalContent(objects);
        return readPage(objects, fonts, page, hiddenContent);
      } catch (error) {
        // RangeError: a stack or an allocation too large for a hostile file; PDFium decides.
        if (error instanceof Unsupported || error instanceof RangeError) {
          this.declined = error.message;
          return null;
        }
        throw error;
      }
    },
  };
}

const numbers = (objects: PdfObjects, v: PdfValue | undefined, n: number): number[] | null => {
  const a = objects.array(v);
  if (!a || a.length < n) return null;
  const out = a.slice(0, n).map((x) => objects.resolve(x));
  return out.every((x) => typeof x === 'number' && Number.isFinite(x)) ? (out as number[]) : null;
};

/**
 * The page tree in order, with inherited resources, boxes and rotation; `plain` when every
 * node is a page exactly when it has no /Kids and every inner node's /Count is its number of
 * pages (then PDFium's page index of a page object is its place here).
 */
function pageList(objects: PdfObjects): { pages: PageInfo[]; plain: boolean } {
  const root = objects.dict(objects.trailer.get('Root'));
  const pages: PageInfo[] = [];
  const seen = new Set<PdfDict>();
  let plain = true;
  const walk = (node: PdfDict | undefined, num: number, inherited: { resources?: PdfDict; mediaBox?: number[]; cropBox?: number[]; rotate?: number }, depth: number) => {
    if (!node || seen.has(node) || depth > 64) throw new Unsupported('bad page tree');
    seen.add(node);
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
      if (node.has('Kids')) plain = false;
      pages.push({ dict: node, num, resources: here.resources, viewBox: view, rotate: (((turns % 4) + 4) % 4) as 0 | 1 | 2 | 3 });
      return;
    }
    const before = pages.length;
    if (!kids) plain = false;
    for (const kid of kids ?? []) walk(objects.dict(kid), kid instanceof Ref ? kid.num : 0, here, depth + 1);
    if (objects.num(node, 'Count') !== pages.length - before) plain = false;
  };
  const top = root?.get('Pages');
  walk(objects.dict(top), top instanceof Ref ? top.num : 0, {}, 0);
  return { pages, plain };
}

/** The decoded bytes of the page's content streams, in order, with a space between. */
function pageContent(objects: PdfObjects, page: PdfDict): Uint8Array {
  const contents = objects.resolve(page.get('Contents'));
  if (contents === undefined || contents === null) return new Uint8Array(0);
  if (contents instanceof PdfStream) return objects.decode(contents);
  if (!Array.isArray(contents)) throw new Unsupported('bad /Contents');
  const parts = contents.map((c) => {
    const s = objects.resolve(c);
    if (!(s instanceof PdfStream)) throw new Unsupported('bad content stream');
    return objects.decode(s);
  });
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

interface GraphicsState {
  ctm: Matrix;
  font: FastFont | null;
  /** Why the current font cannot be read, when it cannot. */
  fontError: Unsupported | null;
  fontSize: number;
  charSpacing: number;
  wordSpacing: number;
  /** Horizontal scaling, as a fraction. */
  scale: number;
  leading: number;
  rise: number;
}

function readPage(objects: PdfObjects, fonts: Map<PdfValue, FastFont | Unsupported>, page: PageInfo, oc: OptionalContent | null): RawPageText {
  const builder = new RunBuilder();
  // How many of the marked-content sequences open around the current operator are hidden
  // optional content (optional-content.ts): while any is, nothing is drawn, so no glyph and no
  // ruling is kept (text positions still advance, as they do when a viewer hides them).
  let hidden = 0;
  const { viewBox } = page;
  // Painted lines for ruled tables, so PDFium need not load the page for them.
  const rules: RawRules = { strokes: [], fills: [] };
  let objectId = 0;
  let operators = 0;
  // The last glyph shown (any text object), for the space PDFium generates between two text
  // objects on one line: its object, origin (user space), width (glyph units), font size,
  // its text matrix's x axis (unit direction and scale) and whether it was a space.
  let lastObject = 0;
  let lastWasSpace = false;
  // The doubles among them in a typed array: a double in a closure's variable is boxed, a
  // fresh heap number on every store, and these are stored for every glyph.
  const last = new Float64Array(7);
  const LAST_OX = 0;
  const LAST_OY = 1;
  const LAST_WIDTH = 2;
  const LAST_SIZE = 3;
  const LAST_DX = 4;
  const LAST_DY = 5;
  const LAST_SCALE = 6;
  last[LAST_DX] = 1;
  last[LAST_SCALE] = 1;
  // The lengths of the text matrix's axes (Math.hypot) for the last axes seen, NaN at first.
  const hyp = new Float64Array(6).fill(NaN);
  const HYP_A = 0;
  const HYP_B = 1;
  const HYP_AB = 2;
  const HYP_C = 3;
  const HYP_D = 4;
  const HYP_CD = 5;

  /**
   * Whether PDFium's text page puts a generated space between the last glyph and a text
   * object starting at (ox, oy) with a glyph of `width` at size `fs` (CPDF_TextPage::
   * ProcessInsertObject): the gap from the last glyph's end, in the last object's text space,
   * over a threshold from the wider glyph (a quarter to a sixth of it, by width). A new line
   * (a jump across the baseline) gets none: the layout breaks lines itself.
   */
  const generatedSpace = (ox: number, oy: number, width: number, fs: number, scale: number, dx: number, dy: number): boolean => {
    const lastDx = last[LAST_DX];
    const lastDy = last[LAST_DY];
    if (lastObject === 0 || lastWasSpace || Math.abs(dx - lastDx) + Math.abs(dy - lastDy) > 0.01) return false;
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
  };

  const fontOf = (resources: PdfDict | undefined, name: string): FastFont | Unsupported => {
    const fontDict = objects.dict(objects.get(resources, 'Font'));
    const ref = fontDict?.get(name);
    if (ref === undefined) return new Unsupported(`font ${name} missing`);
    const key = ref instanceof Ref ? ref.num : ref;
    let font = fonts.get(key);
    if (font === undefined) {
      try {
        font = loadFont(objects, ref);
      } catch (error) {
        if (!(error instanceof Unsupported)) throw error;
        font = error;
      }
      fonts.set(key, font);
    }
    // A font we cannot read is only a problem if it shows text: remember it, fail on use.
    return font;
  };

  const run = (content: Uint8Array, resources: PdfDict | undefined, ctm: Matrix, depth: number): void => {
    const lex = new Lexer(content);
    const stack: GraphicsState[] = [];
    let gs: GraphicsState = { ctm, font: null, fontError: null, fontSize: 0, charSpacing: 0, wordSpacing: 0, scale: 1, leading: 0, rise: 0 };
    // The text matrix and the text line matrix, updated in place (a new array per string shown
    // and per line was most of the reader's allocation).
    const tm = new Float64Array(IDENTITY);
    const tlm = new Float64Array(IDENTITY);
    // The operands of the operator being read: the first `nops` entries. Truncating the array
    // after every operator (length = 0) cost more than interpreting most operators.
    const operands: PdfValue[] = [];
    // This stream's open marked-content sequences, whether each hides its content.
    const marked: boolean[] = [];
    let nops = 0;
    // The path under construction, in user space: its straight segments and the box of its
    // points. The current point (cx, cy), the subpath's start (sx, sy), the box and the last
    // transformed point (ux, uy) live in a typed array, not in closure variables (boxed doubles).
    const segs: number[] = [];
    const path = new Float64Array(10);
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
    path[MIN_X] = path[MIN_Y] = Infinity;
    path[MAX_X] = path[MAX_Y] = -Infinity;
    /** Transforms (px, py) by the CTM into path[UX], path[UY] and grows the box. */
    const point = (px: number, py: number): void => {
      const m = gs.ctm;
      const ux = m[0] * px + m[2] * py + m[4];
      const uy = m[1] * px + m[3] * py + m[5];
      if (ux < path[MIN_X]) path[MIN_X] = ux;
      if (ux > path[MAX_X]) path[MAX_X] = ux;
      if (uy < path[MIN_Y]) path[MIN_Y] = uy;
      if (uy > path[MAX_Y]) path[MAX_Y] = uy;
      path[UX] = ux;
      path[UY] = uy;
    };
    const moveTo = (px: number, py: number) => {
      point(px, py);
      path[SX] = path[CX] = path[UX];
      path[SY] = path[CY] = path[UY];
    };
    const lineTo = (px: number, py: number) => {
      point(px, py);
      segs.push(path[CX], path[CY], path[UX], path[UY]);
      path[CX] = path[UX];
      path[CY] = path[UY];
    };
    const curveTo = () => {
      path[CX] = path[UX];
      path[CY] = path[UY];
    };
    const closePath = () => {
      segs.push(path[CX], path[CY], path[SX], path[SY]);
      path[CX] = path[SX];
      path[CY] = path[SY];
    };
    const paint = (stroke: boolean, fill: boolean) => {
      if (hidden > 0) stroke = fill = false;
      if (stroke) for (let i = 0; i < segs.length; i++) rules.strokes.push(segs[i]);
      else if (fill && path[MIN_X] <= path[MAX_X]) rules.fills.push(path[MIN_X], path[MIN_Y], path[MAX_X], path[MAX_Y]);
      segs.length = 0;
      path[MIN_X] = path[MIN_Y] = Infinity;
      path[MAX_X] = path[MAX_Y] = -Infinity;
    };

    const num = (i: number): number => {
      const v = operands[nops - i];
      if (typeof v !== 'number') throw new Unsupported('operand is not a number');
      return v;
    };
    const moveLine = (tx: number, ty: number) => {
      const e = tx * tlm[0] + ty * tlm[2] + tlm[4];
      const f = tx * tlm[1] + ty * tlm[3] + tlm[5];
      tlm[4] = e;
      tlm[5] = f;
      tm.set(tlm);
    };

    const show = (s: PdfValue) => {
      if (!(s instanceof PdfString)) throw new Unsupported('show operand is not a string');
      const font = gs.font;
      if (!font) {
        if (s.end === s.start) return;
        throw gs.fontError ?? new Unsupported('text without a font');
      }
      const object = ++objectId;
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
        if (text.length > 0 && hidden === 0) {
          const u = text.codePointAt(0)!;
          const space = isSpace(u) && text.length === 1;
          const glyphOx = x * m0 + m4;
          const glyphOy = x * m1 + m5;
          if (object !== lastObject && !space && generatedSpace(glyphOx, glyphOy, fw, fs, scaleX, dx, dy)) builder.space();
          lastObject = object;
          last[LAST_OX] = glyphOx;
          last[LAST_OY] = glyphOy;
          last[LAST_WIDTH] = fw;
          last[LAST_SIZE] = fs;
          last[LAST_DX] = dx;
          last[LAST_DY] = dy;
          last[LAST_SCALE] = scaleX || 1;
          lastWasSpace = space;
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
    };

    for (;;) {
      const t = lex.next();
      // Most tokens are numbers, operands of the next operator.
      if (typeof t === 'number') {
        operands[nops++] = t;
        continue;
      }
      if (t === undefined) break;
      if (!(t instanceof Op)) {
        if (typeof t === 'symbol') throw new Unsupported('stray bracket');
        operands[nops++] = t as PdfValue;
        continue;
      }
      if (++operators > MAX_OPERATORS) throw new Unsupported('too many operators');
      switch (t.name) {
        case 'q':
          if (stack.length > 256) throw new Unsupported('graphics state stack too deep');
          stack.push({ ...gs });
          break;
        case 'Q':
          // An unbalanced Q is ignored, as viewers do.
          if (stack.length) gs = stack.pop()!;
          break;
        case 'cm':
          gs.ctm = mul([num(6), num(5), num(4), num(3), num(2), num(1)], gs.ctm);
          break;
        case 'BT':
          tm.set(IDENTITY);
          tlm.set(IDENTITY);
          break;
        case 'Tf': {
          const name = operands[nops - 2];
          const font = typeof name === 'string' ? fontOf(resources, name) : new Unsupported('Tf without a font name');
          gs.font = font instanceof Unsupported ? null : font;
          gs.fontError = font instanceof Unsupported ? font : null;
          gs.fontSize = num(1);
          break;
        }
        case 'Tc':
          gs.charSpacing = num(1);
          break;
        case 'Tw':
          gs.wordSpacing = num(1);
          break;
        case 'Tz':
          gs.scale = num(1) / 100;
          break;
        case 'TL':
          gs.leading = num(1);
          break;
        case 'Ts':
          gs.rise = num(1);
          break;
        case 'Td':
          moveLine(num(2), num(1));
          break;
        case 'TD':
          gs.leading = -num(1);
          moveLine(num(2), num(1));
          break;
        case 'Tm':
          tlm[0] = num(6);
          tlm[1] = num(5);
          tlm[2] = num(4);
          tlm[3] = num(3);
          tlm[4] = num(2);
          tlm[5] = num(1);
          tm.set(tlm);
          break;
        case 'T*':
          moveLine(0, -gs.leading);
          break;
        case 'Tj':
          show(operands[nops - 1]);
          break;
        case "'":
          moveLine(0, -gs.leading);
          show(operands[nops - 1]);
          break;
        case '"':
          gs.wordSpacing = num(3);
          gs.charSpacing = num(2);
          moveLine(0, -gs.leading);
          show(operands[nops - 1]);
          break;
        case 'TJ': {
          const items = operands[nops - 1];
          if (!Array.isArray(items)) throw new Unsupported('TJ operand is not an array');
          // One text object for the whole array, as PDFium makes it.
          const first = objectId + 1;
          for (const item of items) {
            if (typeof item === 'number') {
              const tx = (-item / 1000) * gs.fontSize * gs.scale;
              const e = tx * tm[0] + tm[4];
              const f = tx * tm[1] + tm[5];
              tm[4] = e;
              tm[5] = f;
            } else {
              show(item);
              objectId = first - 1;
            }
          }
          objectId = first;
          break;
        }
        case 'Do': {
          const name = operands[nops - 1];
          const xobjects = objects.dict(objects.get(resources, 'XObject'));
          const xobject = typeof name === 'string' ? objects.resolve(xobjects?.get(name)) : undefined;
          if (xobject instanceof PdfStream && objects.get(xobject.dict, 'Subtype') === 'Form') {
            if (oc?.hidden(xobject.dict.get('OC'))) break;
            if (depth >= MAX_FORM_DEPTH) throw new Unsupported('forms nested too deep');
            const matrix = numbers(objects, xobject.dict.get('Matrix'), 6) as Matrix | null;
            const formResources = objects.dict(xobject.dict.get('Resources')) ?? resources;
            run(objects.decode(xobject), formResources, matrix ? mul(matrix, gs.ctm) : gs.ctm, depth + 1);
          }
          break;
        }
        case 'm':
          moveTo(num(2), num(1));
          break;
        case 'l':
          lineTo(num(2), num(1));
          break;
        case 'c':
          point(num(6), num(5));
          point(num(4), num(3));
          point(num(2), num(1));
          curveTo();
          break;
        case 'v':
        case 'y':
          point(num(4), num(3));
          point(num(2), num(1));
          curveTo();
          break;
        case 'h':
          closePath();
          break;
        case 're': {
          const [rx, ry, rw, rh] = [num(4), num(3), num(2), num(1)];
          moveTo(rx, ry);
          lineTo(rx + rw, ry);
          lineTo(rx + rw, ry + rh);
          lineTo(rx, ry + rh);
          // PDFium closes a rectangle with a fifth point on the first one, then its close flag:
          // a stroked rectangle gives it (and so the rulings) a zero-length segment as well.
          lineTo(rx, ry);
          closePath();
          break;
        }
        case 'S':
          paint(true, false);
          break;
        case 's':
          closePath();
          paint(true, false);
          break;
        case 'f':
        case 'F':
        case 'f*':
          paint(false, true);
          break;
        case 'B':
        case 'B*':
          paint(true, true);
          break;
        case 'b':
        case 'b*':
          closePath();
          paint(true, true);
          break;
        case 'n':
          paint(false, false);
          break;
        case 'BI':
          skipInlineImage(lex);
          break;
        case 'BMC':
          marked.push(false);
          break;
        case 'BDC': {
          // Only /OC sequences hide anything; their operand names a group in /Properties (or is one inline).
          let hides = false;
          if (oc && nops >= 2 && operands[nops - 2] === 'OC') {
            const props = operands[nops - 1];
            hides = oc.hidden(typeof props === 'string' ? objects.get(objects.dict(objects.get(resources, 'Properties')), props) : props);
          }
          marked.push(hides);
          if (hides) hidden++;
          break;
        }
        case 'EMC':
          if (marked.pop()) hidden--;
          break;
        case 'Tr':
        case 'ET':
        default:
          break;
      }
      nops = 0;
    }
    // A stream that leaves sequences open (a broken form) does not hide what follows it.
    for (const hides of marked) if (hides) hidden--;
  };

  run(pageContent(objects, page.dict), page.resources, [1, 0, 0, 1, 0, 0], 0);
  return { runs: builder.finish(), viewBox: page.viewBox, rotate: page.rotate, rules };
}

/** Skips an inline image (BI … ID <binary> EI): its data is not PDF syntax. */
function skipInlineImage(lex: Lexer): void {
  for (;;) {
    const t = lex.next();
    if (t === undefined) throw new Unsupported('inline image without ID');
    if (t instanceof Op && t.name === 'ID') break;
  }
  const b = lex.bytes;
  // The data starts after one whitespace byte and ends at an "EI" between whitespace.
  let p = lex.pos + 1;
  for (; p + 1 < b.length; p++) {
    if (b[p] === 0x45 && b[p + 1] === 0x49 && (p === 0 || b[p - 1] <= 0x20) && (p + 2 >= b.length || b[p + 2] <= 0x20)) {
      lex.pos = p + 2;
      return;
    }
  }
  throw new Unsupported('inline image without EI');
}
