/**
 * Fonts for the fast text path: what each character code of a shown string means (unicode)
 * and how far it advances. Only what can be known for sure from the PDF's dictionaries:
 * a ToUnicode map, or a named encoding (with /Differences), or the built-in encoding of an
 * embedded Type 1 / CFF program (font-program.ts), whose glyph names we know (the Adobe Glyph
 * List); widths from /Widths, /W, or the standard 14 fonts' metrics (@pdf-lib/standard-fonts,
 * Adobe's AFM data). Anything else (Type 3 fonts, glyph names PDFium does not know, other
 * embedded programs, vertical writing) is `Unsupported`, and the page goes to PDFium.
 */
import { Encodings, Font as StandardFont, type IFontNames } from '@pdf-lib/standard-fonts';
import { cleanFontName } from '../page-fonts.ts';
import { builtinEncoding, type Names } from './font-program.ts';
import { GLYPH_LIST } from './glyph-list.ts';
import { Lexer, Op, PdfString, PdfStream, Unsupported, type PdfDict, type PdfObjects, type PdfValue } from './pdf-objects.ts';

export interface FastFont {
  /** Base font name, subset tag removed. */
  name: string;
  /** 1 for simple fonts, 2 for Identity-H composite fonts. */
  bytesPerCode: 1 | 2;
  /** Advance of a code in text space units per 1000 (glyph space). */
  width(code: number): number;
  /** The text of a code ('' for nothing, e.g. a control code), or Unsupported when unknown. */
  text(code: number): string;
  /** Ascent and descent in glyph space units (descent negative). */
  ascent: number;
  descent: number;
  /** Glyph units per font size of the box's height: ascent - descent (one em), or 1000. */
  em: number;
}

// --- glyph names and encodings ------------------------------------------------------------

const STANDARD_HIGH: [number, string][] = Object.entries({
  161: 'exclamdown cent sterling fraction yen florin section currency quotesingle quotedblleft guillemotleft guilsinglleft guilsinglright fi fl',
  177: 'endash dagger daggerdbl periodcentered',
  182: 'paragraph bullet quotesinglbase quotedblbase quotedblright guillemotright ellipsis perthousand',
  191: 'questiondown',
  193: 'grave acute circumflex tilde macron breve dotaccent dieresis',
  202: 'ring cedilla',
  205: 'hungarumlaut ogonek caron emdash',
  225: 'AE',
  227: 'ordfeminine',
  232: 'Lslash Oslash OE ordmasculine',
  241: 'ae',
  245: 'dotlessi',
  248: 'lslash oslash oe germandbls',
}).flatMap(([start, names]) => names.split(' ').map((n, i): [number, string] => [Number(start) + i, n]));

/** Glyph name -> unicode for the names the standard encodings use, and a few more. */
const NAME_TO_UNICODE = new Map<string, number>([
  ['fi', 0xfb01],
  ['fl', 0xfb02],
  ['ff', 0xfb00],
  ['ffi', 0xfb03],
  ['ffl', 0xfb04],
  ['dotlessi', 0x131],
  ['Lslash', 0x141],
  ['lslash', 0x142],
  ['fraction', 0x2044],
  ['breve', 0x2d8],
  ['dotaccent', 0x2d9],
  ['hungarumlaut', 0x2dd],
  ['ogonek', 0x2db],
  ['caron', 0x2c7],
  ['ring', 0x2da],
  ['minus', 0x2212],
  ['quotesingle', 0x27],
  ['quoteright', 0x2019],
  ['quoteleft', 0x2018],
  ['nbspace', 0xa0],
  ['sfthyphen', 0xad],
  // TeX's © is this circle (CMSY) over a "c" (CMR): the combining circle, as pdfTeX's own
  // glyph-to-unicode table says, so the "c" after it reads as © (flow-text.ts).
  ['circlecopyrt', 0x20dd],
]);

/** code -> glyph name of the encodings pdf-lib ships (unicode -> [code, name]) */
function encodingFrom(enc: { unicodeMappings?: Record<number, [number, string]> }): Names {
  const names: Names = new Array(256);
  for (const [u, [code, name]] of Object.entries(enc.unicodeMappings ?? {})) {
    names[code] ??= name;
    if (!NAME_TO_UNICODE.has(name)) NAME_TO_UNICODE.set(name, Number(u));
  }
  return names;
}

const WIN_ANSI = encodingFrom(Encodings.WinAnsi as never);
const SYMBOL = encodingFrom(Encodings.Symbol as never);
const ZAPF = encodingFrom(Encodings.ZapfDingbats as never);
// WinAnsi prints 0xA0 as a space and 0xAD as a hyphen, as readers do.
WIN_ANSI[0xa0] ??= 'space';
WIN_ANSI[0xad] ??= 'hyphen';

const STANDARD: Names = new Array(256);
for (let c = 32; c < 127; c++) STANDARD[c] = WIN_ANSI[c];
STANDARD[0x27] = 'quoteright';
STANDARD[0x60] = 'quoteleft';
for (const [code, name] of STANDARD_HIGH) STANDARD[code] = name;

/** MacRoman through the platform's decoder; names where WinAnsi has the same character. */
const MAC_ROMAN: Names = (() => {
  const unicodeToName = new Map<number, string>();
  WIN_ANSI.forEach((n) => n && unicodeToName.set(NAME_TO_UNICODE.get(n)!, n));
  for (const [, n] of STANDARD_HIGH) unicodeToName.set(NAME_TO_UNICODE.get(n)!, n);
  const decoded = new TextDecoder('macintosh').decode(Uint8Array.from({ length: 256 }, (_, i) => i));
  const names: Names = new Array(256);
  for (let c = 32; c < 256; c++) names[c] = unicodeToName.get(decoded.charCodeAt(c)) ?? STANDARD[c];
  return names;
})();

const BASE_ENCODINGS: Record<string, Names> = { WinAnsiEncoding: WIN_ANSI, MacRomanEncoding: MAC_ROMAN, StandardEncoding: STANDARD };

/** The Adobe Glyph List (glyph-list.ts), built on first use: most documents never need it. */
let glyphList: Map<string, number> | undefined;
function agl(name: string): number | undefined {
  if (!glyphList) {
    glyphList = new Map();
    for (const pair of GLYPH_LIST.split(/\s+/)) {
      const colon = pair.lastIndexOf(':');
      if (colon > 0) glyphList.set(pair.slice(0, colon), parseInt(pair.slice(colon + 1), 16));
    }
  }
  return glyphList.get(name);
}

/** The unicode text of a glyph name, or null when the name says nothing we know. */
export function glyphText(name: string): string | null {
  const known = NAME_TO_UNICODE.get(name) ?? agl(name);
  if (known !== undefined) return String.fromCodePoint(known);
  let m = /^uni((?:[0-9A-F]{4})+)$/.exec(name);
  if (m) return m[1].match(/.{4}/g)!.map((h) => String.fromCharCode(parseInt(h, 16))).join('');
  m = /^u([0-9A-F]{4,6})$/.exec(name);
  if (m) {
    const cp = parseInt(m[1], 16);
    return cp <= 0x10ffff ? String.fromCodePoint(cp) : null;
  }
  // "a.sc", "f_i": variants and ligatures of known glyphs.
  const dot = name.indexOf('.');
  if (dot > 0) return glyphText(name.slice(0, dot));
  if (name.includes('_')) {
    const parts = name.split('_').map(glyphText);
    return parts.every((p) => p !== null) ? parts.join('') : null;
  }
  return null;
}

// --- standard 14 fonts --------------------------------------------------------------------

interface StandardMetrics {
  widths: Map<string, number>;
  ascent: number;
  descent: number;
  /** The font's own encoding (Symbol and ZapfDingbats), else StandardEncoding. */
  builtin: Names;
}

const standardCache = new Map<string, StandardMetrics>();

/** The standard 14 font a base font name stands for (as readers substitute them), or null. */
export function standardFontName(baseFont: string): IFontNames | null {
  const name = cleanFontName(baseFont).replace(/[\s]/g, '');
  const lower = name.toLowerCase();
  const bold = /bold|black|heavy/.test(lower);
  const italic = /italic|oblique/.test(lower);
  const family = /^(helvetica|arial)/.test(lower) ? 'Helvetica' : /^times/.test(lower) ? 'Times' : /^courier/.test(lower) ? 'Courier' : null;
  if (family === 'Times') return `Times-${bold && italic ? 'BoldItalic' : bold ? 'Bold' : italic ? 'Italic' : 'Roman'}` as IFontNames;
  if (family) return `${family}${bold || italic ? '-' : ''}${bold ? 'Bold' : ''}${italic ? 'Oblique' : ''}` as IFontNames;
  if (lower === 'symbol') return 'Symbol';
  if (lower === 'zapfdingbats') return 'ZapfDingbats';
  return null;
}

function standardMetrics(name: IFontNames): StandardMetrics {
  let m = standardCache.get(name);
  if (!m) {
    const font = StandardFont.load(name);
    const widths = new Map(font.CharMetrics.map((c) => [c.N, c.WX] as const));
    const builtin = name === 'Symbol' ? SYMBOL : name === 'ZapfDingbats' ? ZAPF : STANDARD;
    m = { widths, ascent: font.Ascender ?? font.FontBBox[3], descent: font.Descender ?? font.FontBBox[1], builtin };
    standardCache.set(name, m);
  }
  return m;
}

// --- ToUnicode maps -----------------------------------------------------------------------

/** A string's bytes as UTF-16BE (read in place: PdfString.bytes would make a subarray). */
const utf16 = (str: PdfString): string => {
  const bytes = str.src;
  let s = '';
  for (let i = str.start; i + 1 < str.end; i += 2) s += String.fromCharCode((bytes[i] << 8) | bytes[i + 1]);
  return s;
};

/** A string's bytes as one big-endian number. */
const codeOf = (str: PdfString): number => {
  let v = 0;
  for (let i = str.start; i < str.end; i++) v = v * 256 + str.src[i];
  return v;
};

/** A ToUnicode CMap's bfchar and bfrange entries (code -> text). */
export function parseToUnicode(data: Uint8Array): Map<number, string> {
  const map = new Map<number, string>();
  const lex = new Lexer(data);
  const operands: PdfValue[] = [];
  for (;;) {
    const t = lex.next();
    if (t === undefined) break;
    if (!(t instanceof Op)) {
      if (typeof t !== 'symbol') operands.push(t as PdfValue);
      continue;
    }
    if (t.name === 'endbfchar') {
      for (let i = 0; i + 1 < operands.length; i += 2) {
        const [src, dst] = [operands[i], operands[i + 1]];
        if (src instanceof PdfString && dst instanceof PdfString) map.set(codeOf(src), utf16(dst));
      }
    } else if (t.name === 'endbfrange') {
      for (let i = 0; i + 2 < operands.length; i += 3) {
        const [lo, hi, dst] = [operands[i], operands[i + 1], operands[i + 2]];
        if (!(lo instanceof PdfString && hi instanceof PdfString)) continue;
        const [a, b] = [codeOf(lo), codeOf(hi)];
        if (b < a || b - a > 0xffff) continue;
        if (Array.isArray(dst)) {
          dst.forEach((d, k) => d instanceof PdfString && a + k <= b && map.set(a + k, utf16(d)));
        } else if (dst instanceof PdfString && dst.end - dst.start >= 2) {
          // The last UTF-16 unit counts up through the range.
          const base = utf16(dst);
          const head = base.slice(0, -1);
          const last = base.charCodeAt(base.length - 1);
          for (let c = a; c <= b; c++) map.set(c, head + String.fromCharCode(last + (c - a)));
        }
      }
    }
    operands.length = 0;
  }
  return map;
}

// --- fonts ----------------------------------------------------------------------------------

/** Loads the font of a /Font resource entry; Unsupported for what only PDFium can read. */
export function loadFont(objects: PdfObjects, fontValue: PdfValue | undefined): FastFont {
  const dict = objects.dict(fontValue);
  if (!dict) throw new Unsupported('font missing');
  const subtype = objects.get(dict, 'Subtype');
  const baseFont = objects.get(dict, 'BaseFont');
  const name = typeof baseFont === 'string' ? cleanFontName(baseFont) : '';
  const toUnicodeStream = objects.get(dict, 'ToUnicode');
  const toUnicode = toUnicodeStream instanceof PdfStream ? parseToUnicode(objects.decode(toUnicodeStream)) : null;
  if (subtype === 'Type0') return compositeFont(objects, dict, name, toUnicode);
  if (subtype !== 'Type1' && subtype !== 'TrueType' && subtype !== 'MMType1') throw new Unsupported(`font type ${String(subtype)}`);
  return simpleFont(objects, dict, name, toUnicode);
}

function descriptorMetrics(objects: PdfObjects, descriptor: PdfDict | undefined, fallback?: StandardMetrics): { ascent: number; descent: number } {
  let ascent = objects.num(descriptor, 'Ascent') ?? 0;
  let descent = objects.num(descriptor, 'Descent') ?? 0;
  if (ascent === 0 && descent === 0) {
    const bbox = objects.array(objects.get(descriptor, 'FontBBox'));
    ascent = fallback?.ascent ?? (typeof bbox?.[3] === 'number' ? bbox[3] : 800);
    descent = fallback?.descent ?? (typeof bbox?.[1] === 'number' ? bbox[1] : -200);
  }
  if (descent > 0) descent = -descent;
  if (ascent <= descent) [ascent, descent] = [800, -200];
  return { ascent, descent };
}

function simpleFont(objects: PdfObjects, dict: PdfDict, name: string, toUnicode: Map<number, string> | null): FastFont {
  const descriptor = objects.dict(dict.get('FontDescriptor'));
  const standardName = standardFontName(name);
  // An embedded font is its own: the standard metrics stand in only for a font that is not.
  const embedded = !!descriptor && ['FontFile', 'FontFile2', 'FontFile3'].some((k) => descriptor.has(k));
  const standard = standardName && !embedded ? standardMetrics(standardName) : undefined;
  const flags = objects.num(descriptor, 'Flags') ?? 0;
  const symbolic = (flags & 4) !== 0 && (flags & 32) === 0;

  // Glyph names per code: the base encoding, then /Differences.
  const encoding = objects.get(dict, 'Encoding');
  const encodingDict = encoding instanceof Map ? encoding : undefined;
  const baseName = typeof encoding === 'string' ? encoding : objects.get(encodingDict, 'BaseEncoding');
  let names: Names | undefined;
  if (typeof baseName === 'string') names = BASE_ENCODINGS[baseName];
  else if (standard) names = standard.builtin;
  else if (!embedded || !symbolic) names = STANDARD;
  // An embedded symbolic font with no encoding of its own in the PDF: its program's (TeX fonts).
  else names = builtinEncoding(objects, descriptor, STANDARD) ?? undefined;
  const programEncoding = !!names && !standard && typeof baseName !== 'string' && embedded && symbolic;
  if (names) names = [...names];
  const differences = objects.array(encodingDict?.get('Differences'));
  if (differences) {
    names ??= new Array(256);
    let code = 0;
    for (const d of differences) {
      const v = objects.resolve(d);
      if (typeof v === 'number') code = v;
      else if (typeof v === 'string' && code < 256) names[code++] = v;
    }
  }

  const firstChar = objects.num(dict, 'FirstChar') ?? 0;
  const widthArray = objects.array(dict.get('Widths'));
  // PDFium keeps a simple font's widths as integers (a real in /Widths is truncated), and
  // places glyphs with them: TeX's fractional widths (444.4) drift a line by a tenth of a
  // point, enough to change where PDFium sees a word gap.
  // Built by push: an array from .map changes its elements kind with the tier of the code
  // that made it, and the reads below deoptimized on it (V8 recompile churn).
  let widths: number[] | undefined;
  if (widthArray) {
    widths = [];
    for (const w of widthArray) {
      const v = objects.resolve(w);
      widths.push(typeof v === 'number' ? Math.trunc(v) : 0);
    }
  }
  const missing = objects.num(descriptor, 'MissingWidth') ?? 0;
  if (!widths && !standard) throw new Unsupported(`no widths for ${name}`);

  // The text of each code, worked out on its first use (undefined until then): a page shows
  // a few dozen of a font's 256 codes, and glyph names cost map look-ups and regexes.
  const advance = new Float64Array(256);
  for (let code = 0; code < 256; code++) {
    const glyph = names?.[code];
    const w = widths?.[code - firstChar];
    advance[code] = w !== undefined ? w : widths ? missing : glyph ? (standard!.widths.get(glyph) ?? 0) : 0;
  }
  let { ascent, descent } = descriptorMetrics(objects, descriptor, standard);
  let em = ascent - descent;
  // Such a font's box, as PDFium gives it, spans the program's FontBBox (FreeType's ascender
  // and descender of a Type 1 or CFF face) at its own scale, not one em.
  const box = programEncoding ? objects.array(objects.get(descriptor, 'FontBBox')) : undefined;
  const bottom = box ? objects.resolve(box[1]) : undefined;
  const top = box ? objects.resolve(box[3]) : undefined;
  if (box) for (const v of box) objects.resolve(v);
  if (typeof bottom === 'number' && typeof top === 'number' && top > bottom) [ascent, descent, em] = [top, bottom, 1000];
  return new SimpleFont(name, advance, names, toUnicode, embedded && symbolic, ascent, descent, em);
}

/**
 * A simple font (one byte a code). Classes, not object literals of closures made per font:
 * closures made per call lose their optimized code when collected (V8 recompile churn).
 */
class SimpleFont implements FastFont {
  readonly bytesPerCode = 1;
  /**
   * The text of each code, worked out on its first use (undefined until then): a page shows
   * a few dozen of a font's 256 codes, and glyph names cost map look-ups and regexes.
   */
  private readonly texts: (string | null | undefined)[] = new Array(256).fill(undefined);
  constructor(
    readonly name: string,
    private readonly advance: Float64Array,
    private readonly names: Names | undefined,
    private readonly toUnicode: Map<number, string> | null,
    /** An embedded symbolic font: a control code is a glyph only its program can name. */
    private readonly programGlyphs: boolean,
    readonly ascent: number,
    readonly descent: number,
    readonly em: number,
  ) {}

  width(code: number): number {
    return this.advance[code];
  }

  text(code: number): string {
    let t = this.texts[code];
    if (t === undefined) t = this.texts[code] = this.textOf(code);
    if (t === null) throw new Unsupported(`code ${code} of ${this.name} has no known text`);
    return t;
  }

  private textOf(code: number): string | null {
    const glyph = this.names?.[code];
    const mapped = this.toUnicode?.get(code);
    // A control code with no glyph name is reported as itself, as PDFium does (a tab is a
    // space, CR and LF break the line); in an embedded symbolic font it is a glyph only the
    // font program can name.
    return mapped ?? (glyph ? glyphText(glyph) : code < 32 && !this.programGlyphs ? String.fromCharCode(code) : null);
  }
}

function compositeFont(objects: PdfObjects, dict: PdfDict, name: string, toUnicode: Map<number, string> | null): FastFont {
  if (objects.get(dict, 'Encoding') !== 'Identity-H') throw new Unsupported('composite font without Identity-H');
  if (!toUnicode) throw new Unsupported('composite font without ToUnicode');
  const descendant = objects.dict(objects.array(dict.get('DescendantFonts'))?.[0]);
  if (!descendant) throw new Unsupported('composite font without a descendant');
  const defaultWidth = objects.num(descendant, 'DW') ?? 1000;
  const widths = new Map<number, number>();
  const w = objects.array(descendant.get('W')) ?? [];
  for (let i = 0; i < w.length; ) {
    const first = objects.resolve(w[i]);
    const second = objects.resolve(w[i + 1]);
    if (typeof first !== 'number') break;
    if (Array.isArray(second)) {
      second.forEach((v, k) => {
        const r = objects.resolve(v);
        if (typeof r === 'number') widths.set(first + k, r);
      });
      i += 2;
    } else {
      const value = objects.resolve(w[i + 2]);
      if (typeof second !== 'number' || typeof value !== 'number' || second - first > 0xffff) break;
      for (let c = first; c <= second; c++) widths.set(c, value);
      i += 3;
    }
  }
  const { ascent, descent } = descriptorMetrics(objects, objects.dict(descendant.get('FontDescriptor')));
  return new CompositeFont(name, widths, defaultWidth, toUnicode, ascent, descent);
}

/** An Identity-H composite font (two bytes a code). */
class CompositeFont implements FastFont {
  readonly bytesPerCode = 2;
  readonly em: number;
  constructor(
    readonly name: string,
    private readonly widths: Map<number, number>,
    private readonly defaultWidth: number,
    private readonly toUnicode: Map<number, string>,
    readonly ascent: number,
    readonly descent: number,
  ) {
    this.em = ascent - descent;
  }

  width(code: number): number {
    return this.widths.get(code) ?? this.defaultWidth;
  }

  text(code: number): string {
    const t = this.toUnicode.get(code);
    if (t === undefined) throw new Unsupported(`CID ${code} of ${this.name} has no ToUnicode entry`);
    return t;
  }
}
