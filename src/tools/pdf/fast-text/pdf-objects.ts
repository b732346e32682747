/**
 * A small, lazy reader of PDF objects: the lexer, the cross-reference table (classic tables,
 * cross-reference streams, object streams, incremental updates) and Flate streams. It exists
 * for the fast text path (fast-text.ts) and is deliberately strict: anything it does not
 * understand (encryption, a broken cross-reference, filters other than Flate) is an
 * `Unsupported` error, and the caller falls back to PDFium, which repairs what it can. It
 * never has to be as forgiving as PDFium, only right when it answers.
 */
import { inflateSync } from 'node:zlib';

/** Thrown for anything the fast path does not handle; the page (or document) goes to PDFium. */
/**
 * What the fast reader does not read: always caught (the page or document goes to PDFium), so
 * it carries no stack trace, whose capture cost more than the rest of a failed page's work.
 */
export class Unsupported extends Error {
  constructor(message?: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
}

export class Ref {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
}

/**
 * A literal or hex string: its raw bytes (PDF strings are bytes, decoded by their use), as a
 * range of a byte array. Most strings of a content stream are read in place, and a subarray
 * for each (a typed-array object) cost more than the rest of lexing the string.
 */
export class PdfString {
  constructor(
    readonly src: Uint8Array,
    readonly start: number,
    readonly end: number,
  ) {}

  static of(bytes: Uint8Array): PdfString {
    return new PdfString(bytes, 0, bytes.length);
  }

  get bytes(): Uint8Array {
    return this.src.subarray(this.start, this.end);
  }
}

export type PdfDict = Map<string, PdfValue>;

export class PdfStream {
  constructor(
    readonly dict: PdfDict,
    /** The encoded bytes, between `stream` and `endstream`. */
    readonly raw: Uint8Array,
  ) {}
}

/** Names are JS strings (with #xx escapes decoded); keywords of content streams are `Op`. */
export type PdfValue = null | boolean | number | string | PdfString | PdfValue[] | PdfDict | Ref | PdfStream;

/** An operator keyword of a content stream (or true/false/null/R/obj… in a file body). */
export class Op {
  constructor(readonly name: string) {}
}

const enum C {
  NUL = 0,
  TAB = 9,
  LF = 10,
  FF = 12,
  CR = 13,
  SPACE = 32,
  PERCENT = 37,
  LPAREN = 40,
  RPAREN = 41,
  SLASH = 47,
  LT = 60,
  GT = 62,
  LBRACKET = 91,
  BACKSLASH = 92,
  RBRACKET = 93,
  LBRACE = 123,
  RBRACE = 125,
}

const WHITE = new Uint8Array(256);
for (const c of [C.NUL, C.TAB, C.LF, C.FF, C.CR, C.SPACE]) WHITE[c] = 1;
/** Whitespace or a delimiter: the end of a number, name or keyword. */
const STOP = new Uint8Array(256);
for (let c = 0; c < 256; c++) STOP[c] = WHITE[c];
for (const c of [C.LPAREN, C.RPAREN, C.LT, C.GT, C.LBRACKET, C.RBRACKET, C.LBRACE, C.RBRACE, C.SLASH, C.PERCENT]) STOP[c] = 1;

/** 0.1, then each divided by 10 in turn: the place values of a number's decimals. */
const placeValue = (k: number): number => {
  let scale = 0.1;
  for (let i = 0; i < k; i++) scale /= 10;
  return scale;
};
const PLACES = Float64Array.from({ length: 24 }, (_, k) => placeValue(k));

const hexValue = (c: number): number => (c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1);

/**
 * The content-stream operators of one to three letters: those of one and two letters in
 * arrays indexed by their (ASCII) bytes, a direct load where a Map look-up cost a hash; the
 * three-letter ones by their bytes (little-endian) in a Map.
 */
const OPS1: (Op | undefined)[] = new Array(128).fill(undefined);
const OPS2: (Op | undefined)[] = new Array(128 * 128).fill(undefined);
const OPS3 = new Map<number, Op>();
for (const name of 'q Q cm w J j M d ri i gs m l c v y h re S s f F f* B B* b b* n W W* BT ET Tc Tw Tz TL Tf Tr Ts Td TD Tm T* Tj TJ \' " Do BI ID EI BX EX MP DP BMC BDC EMC d0 d1 CS cs SC SCN sc scn G g RG rg K k sh R obj'.split(' ')) {
  const op = new Op(name);
  if (name.length === 1) OPS1[name.charCodeAt(0)] = op;
  else if (name.length === 2) OPS2[(name.charCodeAt(0) << 7) | name.charCodeAt(1)] = op;
  else OPS3.set(name.charCodeAt(0) | (name.charCodeAt(1) << 8) | (name.charCodeAt(2) << 16), op);
}

/** Marks the end of an array or dictionary while parsing (never a value). */
const END_ARRAY = Symbol('[');
const END_DICT = Symbol('<<');

/**
 * Reads PDF values from bytes. Used for the file body and for content streams alike; in a
 * content stream, keywords come back as `Op` and the caller interprets them.
 */
export class Lexer {
  pos: number;
  constructor(
    readonly bytes: Uint8Array,
    pos = 0,
  ) {
    this.pos = pos;
  }

  skipWhite(): void {
    const b = this.bytes;
    const n = b.length;
    const white = WHITE;
    let p = this.pos;
    for (;;) {
      while (p < n && white[b[p]]) p++;
      if (b[p] !== C.PERCENT) break;
      while (p < n && b[p] !== C.LF && b[p] !== C.CR) p++;
    }
    this.pos = p;
  }

  /** The next value; `Op` for keywords; undefined at the end of the bytes. */
  next(depth = 0): PdfValue | Op | typeof END_ARRAY | typeof END_DICT | undefined {
    this.skipWhite();
    const b = this.bytes;
    if (this.pos >= b.length) return undefined;
    const c = b[this.pos];
    // Numbers first: most tokens of a content stream are.
    if ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46) return this.number();
    if (c === C.SLASH) return this.name();
    if (c === C.LPAREN) return this.literal();
    if (c === C.LBRACKET) {
      this.pos++;
      return this.array(depth);
    }
    if (c === C.RBRACKET) {
      this.pos++;
      return END_ARRAY;
    }
    if (c === C.LT) {
      if (b[this.pos + 1] === C.LT) {
        this.pos += 2;
        return this.dict(depth);
      }
      return this.hex();
    }
    if (c === C.GT) {
      if (b[this.pos + 1] !== C.GT) throw new Unsupported('stray >');
      this.pos += 2;
      return END_DICT;
    }
    if (c === C.RPAREN || c === C.LBRACE || c === C.RBRACE) {
      this.pos++;
      return new Op(String.fromCharCode(c));
    }
    const start = this.pos;
    let p = start;
    while (p < b.length && !STOP[b[p]]) p++;
    this.pos = p;
    // Content-stream operators (one to three letters): a shared token, no string made.
    const length = p - start;
    if (length === 1) {
      const op = b[start] < 128 ? OPS1[b[start]] : undefined;
      if (op) return op;
    } else if (length === 2) {
      const op = b[start] < 128 && b[start + 1] < 128 ? OPS2[(b[start] << 7) | b[start + 1]] : undefined;
      if (op) return op;
    } else if (length === 3) {
      const op = OPS3.get(b[start] | (b[start + 1] << 8) | (b[start + 2] << 16));
      if (op) return op;
    }
    const word = latin1(b, start, p);
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (word === 'null') return null;
    return new Op(word);
  }

  /** The next value, which must be one (not a keyword or a closing bracket). */
  value(depth = 0): PdfValue {
    const v = this.next(depth);
    if (v === undefined || v === END_ARRAY || v === END_DICT || v instanceof Op) throw new Unsupported('expected a value');
    return v;
  }

  private number(): number {
    const b = this.bytes;
    let p = this.pos;
    let sign = 1;
    if (b[p] === 45) {
      sign = -1;
      p++;
    } else if (b[p] === 43) p++;
    // Producers write "--5" and "5-" now and then; readers take the leading sign.
    while (b[p] === 45 || b[p] === 43) p++;
    let value = 0;
    while (b[p] >= 48 && b[p] <= 57) value = value * 10 + (b[p++] - 48);
    if (b[p] === 46) {
      p++;
      // The place values 0.1, 0.1 / 10, ... from a table (the same doubles the divisions give).
      let k = 0;
      while (b[p] >= 48 && b[p] <= 57) {
        value += (b[p++] - 48) * (k < PLACES.length ? PLACES[k] : placeValue(k));
        k++;
      }
    }
    while (p < b.length && !STOP[b[p]]) p++;
    this.pos = p;
    return sign * value;
  }

  private name(): string {
    const b = this.bytes;
    let p = this.pos + 1;
    const start = p;
    let escaped = false;
    while (p < b.length && !STOP[b[p]]) {
      if (b[p] === 35) escaped = true;
      p++;
    }
    this.pos = p;
    if (!escaped) return latin1(b, start, p);
    let s = '';
    for (let i = start; i < p; i++) {
      const h = b[i] === 35 ? hexValue(b[i + 1]) * 16 + hexValue(b[i + 2]) : -1;
      if (h >= 0) {
        s += String.fromCharCode(h);
        i += 2;
      } else s += String.fromCharCode(b[i]);
    }
    return s;
  }

  private literal(): PdfString {
    const b = this.bytes;
    let p = this.pos + 1;
    // Fast case: no escapes and no nested parentheses.
    const start = p;
    while (p < b.length && b[p] !== C.RPAREN && b[p] !== C.BACKSLASH && b[p] !== C.LPAREN) p++;
    if (b[p] === C.RPAREN) {
      this.pos = p + 1;
      return new PdfString(b, start, p);
    }
    const out: number[] = [];
    for (let i = start; i < p; i++) out.push(b[i]);
    let nest = 1;
    while (p < b.length) {
      const c = b[p++];
      if (c === C.LPAREN) nest++;
      else if (c === C.RPAREN && --nest === 0) break;
      if (c !== C.BACKSLASH) {
        out.push(c);
        continue;
      }
      const e = b[p++];
      if (e === 110) out.push(10);
      else if (e === 114) out.push(13);
      else if (e === 116) out.push(9);
      else if (e === 98) out.push(8);
      else if (e === 102) out.push(12);
      else if (e === C.CR) {
        if (b[p] === C.LF) p++;
      } else if (e === C.LF) {
        // A line continuation.
      } else if (e >= 48 && e <= 55) {
        let v = e - 48;
        for (let k = 0; k < 2 && b[p] >= 48 && b[p] <= 55; k++) v = v * 8 + (b[p++] - 48);
        out.push(v & 255);
      } else if (e !== undefined) out.push(e);
    }
    this.pos = p;
    return PdfString.of(Uint8Array.from(out));
  }

  private hex(): PdfString {
    const b = this.bytes;
    const start = this.pos + 1;
    // Two passes, counting the digits first: the bytes go straight into their array (a number[]
    // copied by Uint8Array.from was a tenth of the reader's allocation on CID-font pages).
    let p = start;
    let digits = 0;
    while (p < b.length && b[p] !== C.GT) if (hexValue(b[p++]) >= 0) digits++;
    const end = p;
    // An odd last digit stands for its high half (a trailing 0).
    const out = new Uint8Array((digits + 1) >> 1);
    let n = 0;
    let high = -1;
    for (p = start; p < end; p++) {
      const h = hexValue(b[p]);
      if (h < 0) continue;
      if (high < 0) high = h;
      else {
        out[n++] = high * 16 + h;
        high = -1;
      }
    }
    if (high >= 0) out[n] = high * 16;
    this.pos = end + 1;
    return PdfString.of(out);
  }

  private array(depth: number): PdfValue[] {
    if (depth > 64) throw new Unsupported('nesting too deep');
    const out: PdfValue[] = [];
    for (;;) {
      const v = this.next(depth + 1);
      // Most elements (a TJ array's kerning) are numbers: no further tests for them.
      if (typeof v === 'number') {
        out.push(v);
        continue;
      }
      if (v === END_ARRAY) return out;
      if (v === undefined || v === END_DICT) throw new Unsupported('unterminated array');
      if (v instanceof Op) {
        if (v.name === 'R') out.push(toRef(out.pop(), out.pop()));
        else throw new Unsupported(`keyword ${v.name} in an array`);
      } else out.push(v);
    }
  }

  private dict(depth: number): PdfDict {
    if (depth > 64) throw new Unsupported('nesting too deep');
    const out: PdfDict = new Map();
    for (;;) {
      const key = this.next(depth + 1);
      if (key === END_DICT) return out;
      if (typeof key !== 'string') throw new Unsupported('dictionary key is not a name');
      let v = this.next(depth + 1);
      if (v === undefined || v === END_ARRAY || v === END_DICT || v instanceof Op) throw new Unsupported('dictionary value missing');
      // "n g R": look ahead for the second number and the R.
      if (typeof v === 'number') {
        const save = this.pos;
        const gen = this.next(depth + 1);
        const r = typeof gen === 'number' ? this.next(depth + 1) : undefined;
        if (r instanceof Op && r.name === 'R') v = new Ref(v, gen as number);
        else this.pos = save;
      }
      out.set(key, v);
    }
  }
}

const toRef = (gen: PdfValue | undefined, num: PdfValue | undefined): Ref => {
  if (typeof gen !== 'number' || typeof num !== 'number') throw new Unsupported('bad reference');
  return new Ref(num, gen);
};

export const latin1 = (b: Uint8Array, start: number, end: number): string => {
  if (end - start < 64) {
    let s = '';
    for (let i = start; i < end; i++) s += String.fromCharCode(b[i]);
    return s;
  }
  return Buffer.from(b.buffer, b.byteOffset + start, end - start).toString('latin1');
};

/** Where an object lives: at a byte offset, or inside an object stream. */
type XrefEntry = { offset: number } | { stream: number; index: number };

/**
 * The same bytes as a plain Uint8Array: a Buffer's subarray() runs Node's FastBuffer
 * constructor for every string the lexer cuts out of a content stream.
 */
const plain = (b: Uint8Array): Uint8Array => (Buffer.isBuffer(b) ? new Uint8Array(b.buffer, b.byteOffset, b.byteLength) : b);

/** A decoded stream may not grow past this (a Flate bomb is refused, not inflated). */
const MAX_DECODED = 64 * 1024 * 1024;

export class PdfObjects {
  private readonly xref = new Map<number, XrefEntry>();
  /** Numbers a newer section marks free: older sections must not bring them back. */
  private readonly freed = new Set<number>();
  private readonly cache = new Map<number, PdfValue>();
  private readonly objectStreams = new Map<number, { lexer: Lexer; offsets: Map<number, number> }>();
  readonly trailer: PdfDict;

  readonly bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    this.bytes = plain(bytes);
    this.trailer = this.readXref();
    if (this.trailer.has('Encrypt')) throw new Unsupported('encrypted');
  }

  /** Follows a reference (and references to references); other values pass through. */
  resolve(v: PdfValue | undefined): PdfValue | undefined {
    for (let hops = 0; v instanceof Ref; hops++) {
      if (hops > 32) throw new Unsupported('reference chain');
      v = this.object(v.num);
    }
    return v;
  }

  dict(v: PdfValue | undefined): PdfDict | undefined {
    const r = this.resolve(v);
    if (r instanceof Map) return r;
    if (r instanceof PdfStream) return r.dict;
    return undefined;
  }

  get(d: PdfDict | undefined, key: string): PdfValue | undefined {
    return d ? this.resolve(d.get(key)) : undefined;
  }

  num(d: PdfDict | undefined, key: string): number | undefined {
    const v = this.get(d, key);
    return typeof v === 'number' ? v : undefined;
  }

  array(v: PdfValue | undefined): PdfValue[] | undefined {
    const r = this.resolve(v);
    return Array.isArray(r) ? r : undefined;
  }

  /** The decoded bytes of a stream (Flate, with PNG predictors, or none). */
  decode(stream: PdfStream): Uint8Array {
    let filters = this.resolve(stream.dict.get('Filter') ?? stream.dict.get('F'));
    let parms = this.resolve(stream.dict.get('DecodeParms') ?? stream.dict.get('DP'));
    if (filters === undefined || filters === null) return stream.raw;
    if (typeof filters === 'string') filters = [filters];
    if (!Array.isArray(parms)) parms = [parms ?? null];
    if (!Array.isArray(filters)) throw new Unsupported('bad filter');
    let data = stream.raw;
    filters.forEach((f, i) => {
      const name = this.resolve(f);
      if (name !== 'FlateDecode' && name !== 'Fl') throw new Unsupported(`filter ${String(name)}`);
      try {
        data = inflateSync(data, { maxOutputLength: MAX_DECODED });
      } catch {
        throw new Unsupported('damaged Flate stream');
      }
      const p = this.dict((parms as PdfValue[])[i] ?? null);
      const predictor = this.num(p, 'Predictor') ?? 1;
      if (predictor >= 10) data = unpredictPng(data, this.num(p, 'Columns') ?? 1, (this.num(p, 'Colors') ?? 1) * Math.ceil((this.num(p, 'BitsPerComponent') ?? 8) / 8));
      else if (predictor !== 1) throw new Unsupported(`predictor ${predictor}`);
    });
    return plain(data);
  }

  /** Object `num` (its newest version); null for free or missing objects, as the spec says. */
  object(num: number): PdfValue {
    const cached = this.cache.get(num);
    if (cached !== undefined) return cached;
    const entry = this.xref.get(num);
    let value: PdfValue = null;
    if (entry && 'offset' in entry) value = this.objectAt(entry.offset, num);
    else if (entry) value = this.fromObjectStream(entry.stream, num);
    this.cache.set(num, value);
    return value;
  }

  private objectAt(offset: number, num: number): PdfValue {
    const lex = new Lexer(this.bytes, offset);
    const n = lex.next();
    const g = lex.next();
    const kw = lex.next();
    if (n !== num || typeof g !== 'number' || !(kw instanceof Op) || kw.name !== 'obj') throw new Unsupported(`object ${num} is not at its offset`);
    const value = lex.value();
    lex.skipWhite();
    if (value instanceof Map && this.startsWith(lex.pos, 'stream')) return this.streamAt(value, lex.pos + 6);
    return value;
  }

  private startsWith(pos: number, word: string): boolean {
    for (let i = 0; i < word.length; i++) if (this.bytes[pos + i] !== word.charCodeAt(i)) return false;
    return true;
  }

  private streamAt(dict: PdfDict, afterKeyword: number): PdfStream {
    const b = this.bytes;
    let start = afterKeyword;
    if (b[start] === C.CR) start++;
    if (b[start] === C.LF) start++;
    const declared = this.resolve(dict.get('Length'));
    let end = typeof declared === 'number' && declared >= 0 ? start + declared : -1;
    // A wrong /Length is common: trust it only when endstream follows it.
    const check = new Lexer(b, end);
    if (end < 0 || end > b.length || (check.skipWhite(), !this.startsWith(check.pos, 'endstream'))) {
      end = Buffer.from(b.buffer, b.byteOffset, b.length).indexOf('endstream', start, 'latin1');
      if (end < 0) throw new Unsupported('stream without endstream');
      while (end > start && (b[end - 1] === C.LF || b[end - 1] === C.CR)) end--;
    }
    return new PdfStream(dict, b.subarray(start, end));
  }

  private fromObjectStream(streamNum: number, num: number): PdfValue {
    let objStm = this.objectStreams.get(streamNum);
    if (!objStm) {
      const stream = this.object(streamNum);
      if (!(stream instanceof PdfStream)) throw new Unsupported('object stream missing');
      const data = this.decode(stream);
      const n = this.num(stream.dict, 'N') ?? 0;
      const first = this.num(stream.dict, 'First') ?? 0;
      const lexer = new Lexer(data);
      const offsets = new Map<number, number>();
      for (let i = 0; i < n; i++) {
        const objNum = lexer.next();
        const off = lexer.next();
        if (typeof objNum !== 'number' || typeof off !== 'number') throw new Unsupported('bad object stream header');
        offsets.set(objNum, first + off);
      }
      objStm = { lexer, offsets };
      this.objectStreams.set(streamNum, objStm);
    }
    const offset = objStm.offsets.get(num);
    if (offset === undefined) return null;
    objStm.lexer.pos = offset;
    return objStm.lexer.value();
  }

  /** Reads every cross-reference section from the last one back through /Prev. */
  private readXref(): PdfDict {
    const b = this.bytes;
    const tail = latin1(b, Math.max(0, b.length - 2048), b.length);
    const at = tail.lastIndexOf('startxref');
    if (at < 0) throw new Unsupported('no startxref');
    const m = /^startxref\s+(\d+)/.exec(tail.slice(at));
    if (!m) throw new Unsupported('bad startxref');
    let offset: number | null = Number(m[1]);
    let trailer: PdfDict | null = null;
    const seen = new Set<number>();
    while (offset !== null) {
      if (seen.has(offset) || seen.size > 64 || offset >= b.length) throw new Unsupported('bad xref chain');
      seen.add(offset);
      const section = this.startsWith(offset, 'xref') ? this.readXrefTable(offset) : this.readXrefStream(offset);
      trailer ??= section;
      // A hybrid file's table points at a stream with the objects the table leaves out.
      const hybrid = this.resolveDirect(section.get('XRefStm'));
      if (typeof hybrid === 'number') this.readXrefStream(hybrid);
      const prev = this.resolveDirect(section.get('Prev'));
      offset = typeof prev === 'number' ? prev : null;
    }
    if (!trailer) throw new Unsupported('no trailer');
    return trailer;
  }

  private resolveDirect(v: PdfValue | undefined): PdfValue | undefined {
    return v instanceof Ref ? undefined : v;
  }

  private setEntry(num: number, entry: XrefEntry | null): void {
    // Sections are read newest first: the first entry for a number wins (a free entry too).
    if (!this.xref.has(num) && !this.freed.has(num)) {
      if (entry) this.xref.set(num, entry);
      else this.freed.add(num);
    }
  }

  private readXrefTable(offset: number): PdfDict {
    const lex = new Lexer(this.bytes, offset + 4);
    for (;;) {
      const first = lex.next();
      if (first instanceof Op && first.name === 'trailer') break;
      const count = lex.next();
      if (typeof first !== 'number' || typeof count !== 'number' || count < 0 || count > 10_000_000) throw new Unsupported('bad xref subsection');
      for (let i = 0; i < count; i++) {
        const off = lex.next();
        const gen = lex.next();
        const kind = lex.next();
        if (typeof off !== 'number' || typeof gen !== 'number' || !(kind instanceof Op)) throw new Unsupported('bad xref entry');
        // Object 0 is the head of the free list; some producers number a table from 1 wrongly.
        if (first + i === 0) continue;
        this.setEntry(first + i, kind.name === 'n' ? { offset: off } : null);
      }
    }
    const trailer = lex.value();
    if (!(trailer instanceof Map)) throw new Unsupported('bad trailer');
    return trailer;
  }

  private readXrefStream(offset: number): PdfDict {
    const lex = new Lexer(this.bytes, offset);
    const num = lex.next();
    lex.next();
    const kw = lex.next();
    if (typeof num !== 'number' || !(kw instanceof Op) || kw.name !== 'obj') throw new Unsupported('no xref at startxref');
    const dict = lex.value();
    lex.skipWhite();
    if (!(dict instanceof Map) || dict.get('Type') !== 'XRef' || !this.startsWith(lex.pos, 'stream')) throw new Unsupported('bad xref stream');
    const stream = this.streamAt(dict, lex.pos + 6);
    const data = this.decode(stream);
    const w = dict.get('W');
    if (!Array.isArray(w) || w.length < 3 || !w.every((x) => typeof x === 'number' && x >= 0 && x <= 8)) throw new Unsupported('bad /W');
    const [w0, w1, w2] = w as number[];
    const size = dict.get('Size');
    const index = (dict.get('Index') as PdfValue[] | undefined) ?? [0, size as number];
    const rowLength = w0 + w1 + w2;
    const field = (p: number, n: number, fallback: number) => {
      if (n === 0) return fallback;
      let v = 0;
      for (let i = 0; i < n; i++) v = v * 256 + data[p + i];
      return v;
    };
    let p = 0;
    for (let s = 0; s + 1 < index.length; s += 2) {
      const first = index[s] as number;
      const count = index[s + 1] as number;
      for (let i = 0; i < count; i++, p += rowLength) {
        if (p + rowLength > data.length) throw new Unsupported('xref stream too short');
        const type = field(p, w0, 1);
        const a = field(p + w0, w1, 0);
        const c = field(p + w0 + w1, w2, 0);
        if (first + i === 0) continue;
        if (type === 1) this.setEntry(first + i, { offset: a });
        else if (type === 2) this.setEntry(first + i, { stream: a, index: c });
        else if (type === 0) this.setEntry(first + i, null);
      }
    }
    return dict;
  }
}

/** Undoes PNG row predictors (as used by cross-reference streams). */
function unpredictPng(data: Uint8Array, columns: number, bytesPerPixel: number): Uint8Array {
  const rowLength = columns * bytesPerPixel;
  const rows = Math.floor(data.length / (rowLength + 1));
  const out = new Uint8Array(rows * rowLength);
  for (let r = 0; r < rows; r++) {
    const type = data[r * (rowLength + 1)];
    const src = r * (rowLength + 1) + 1;
    const dst = r * rowLength;
    for (let i = 0; i < rowLength; i++) {
      const raw = data[src + i];
      const left = i >= bytesPerPixel ? out[dst + i - bytesPerPixel] : 0;
      const up = r > 0 ? out[dst - rowLength + i] : 0;
      const upLeft = r > 0 && i >= bytesPerPixel ? out[dst - rowLength + i - bytesPerPixel] : 0;
      let v: number;
      if (type === 0) v = raw;
      else if (type === 1) v = raw + left;
      else if (type === 2) v = raw + up;
      else if (type === 3) v = raw + ((left + up) >> 1);
      else if (type === 4) {
        const pa = Math.abs(up - upLeft);
        const pb = Math.abs(left - upLeft);
        const pc = Math.abs(left + up - 2 * upLeft);
        v = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
      } else throw new Unsupported('bad PNG predictor row');
      out[dst + i] = v & 255;
    }
  }
  return out;
}
