/**
 * The built-in encoding of an embedded font program: which glyph name each code shows when the
 * PDF's font dictionary names none (no /Encoding, or /Differences over no base encoding in a
 * symbolic font). TeX's Type 1 fonts (Computer Modern and friends, as pdfTeX and dvips embed
 * them) come this way, without a ToUnicode map or with one that lists only a few codes; PDFium
 * and pdftotext read their text from these names, and so does the fast reader now, instead of
 * sending the page to PDFium.
 *
 * Two program formats: a Type 1 font (FontFile), whose cleartext part holds the encoding as
 * PostScript (`/Encoding StandardEncoding def`, or `dup <code> /<name> put` lines), and a
 * bare CFF font (FontFile3 /Type1C), whose binary Top DICT points at its charset (glyph ->
 * name) and encoding (code -> glyph). Anything else (TrueType programs, CID-keyed CFF, the
 * Expert encodings) answers null and the codes stay unknown.
 */
import { latin1, PdfStream, type PdfDict, type PdfObjects } from './pdf-objects.ts';

/** code -> glyph name (undefined: the program names no glyph for the code). */
export type Names = (string | undefined)[];

/** The built-in encoding of the font program the descriptor embeds, or null. */
export function builtinEncoding(objects: PdfObjects, descriptor: PdfDict | undefined, standard: Names): Names | null {
  const type1 = objects.resolve(descriptor?.get('FontFile'));
  if (type1 instanceof PdfStream) return type1Encoding(objects, type1, standard);
  const cff = objects.resolve(descriptor?.get('FontFile3'));
  if (cff instanceof PdfStream && objects.get(cff.dict, 'Subtype') === 'Type1C') {
    try {
      return cffEncoding(objects.decode(cff), standard);
    } catch (error) {
      // A truncated or damaged program: as if it named nothing (PDFium reads the page).
      if (error instanceof RangeError) return null;
      throw error;
    }
  }
  return null;
}

// --- Type 1 (cleartext part) ---------------------------------------------------------------

function type1Encoding(objects: PdfObjects, stream: PdfStream, standard: Names): Names | null {
  const data = objects.decode(stream);
  // The cleartext part ends where the encrypted one starts (Length1, or "eexec").
  const length1 = objects.num(stream.dict, 'Length1');
  const end = length1 && length1 > 0 && length1 <= data.length ? length1 : Math.min(data.length, 65536);
  const text = latin1(data, 0, end);
  const at = text.indexOf('/Encoding');
  if (at < 0) return null;
  const eexec = text.indexOf('eexec', at);
  const rest = text.slice(at + 9, eexec < 0 ? undefined : eexec);
  if (/^\s*StandardEncoding\s+def/.test(rest)) return standard;
  if (!/^\s*\d+\s+array/.test(rest)) return null;
  const names: Names = new Array(256);
  // The array ends at its "def" ("readonly def"); entries are "dup <code> /<name> put".
  const defAt = rest.search(/\bdef\b/);
  const body = defAt < 0 ? rest : rest.slice(0, defAt);
  for (const m of body.matchAll(/dup\s+(\d+)\s*\/([^\s/\[\]{}()<>%]+)\s+put/g)) {
    const code = Number(m[1]);
    if (code < 256) names[code] = m[2];
  }
  return names;
}

// --- CFF (Adobe Technical Note #5176) ------------------------------------------------------

/** The CFF's 391 standard strings (SIDs 0-390), from the specification's Appendix A. */
const STANDARD_STRINGS = `
.notdef space exclam quotedbl numbersign dollar percent ampersand quoteright parenleft parenright asterisk
plus comma hyphen period slash zero one two three four five six seven eight nine colon semicolon less equal
greater question at A B C D E F G H I J K L M N O P Q R S T U V W X Y Z bracketleft backslash bracketright
asciicircum underscore quoteleft a b c d e f g h i j k l m n o p q r s t u v w x y z braceleft bar braceright
asciitilde exclamdown cent sterling fraction yen florin section currency quotesingle quotedblleft
guillemotleft guilsinglleft guilsinglright fi fl endash dagger daggerdbl periodcentered paragraph bullet
quotesinglbase quotedblbase quotedblright guillemotright ellipsis perthousand questiondown grave acute
circumflex tilde macron breve dotaccent dieresis ring cedilla hungarumlaut ogonek caron emdash AE ordfeminine
Lslash Oslash OE ordmasculine ae dotlessi lslash oslash oe germandbls onesuperior logicalnot mu trademark Eth
onehalf plusminus Thorn onequarter divide brokenbar degree thorn threequarters twosuperior registered minus
eth multiply threesuperior copyright Aacute Acircumflex Adieresis Agrave Aring Atilde Ccedilla Eacute
Ecircumflex Edieresis Egrave Iacute Icircumflex Idieresis Igrave Ntilde Oacute Ocircumflex Odieresis Ograve
Otilde Scaron Uacute Ucircumflex Udieresis Ugrave Yacute Ydieresis Zcaron aacute acircumflex adieresis agrave
aring atilde ccedilla eacute ecircumflex edieresis egrave iacute icircumflex idieresis igrave ntilde oacute
ocircumflex odieresis ograve otilde scaron uacute ucircumflex udieresis ugrave yacute ydieresis zcaron
exclamsmall Hungarumlautsmall dollaroldstyle dollarsuperior ampersandsmall Acutesmall parenleftsuperior
parenrightsuperior twodotenleader onedotenleader zerooldstyle oneoldstyle twooldstyle threeoldstyle
fouroldstyle fiveoldstyle sixoldstyle sevenoldstyle eightoldstyle nineoldstyle commasuperior
threequartersemdash periodsuperior questionsmall asuperior bsuperior centsuperior dsuperior esuperior
isuperior lsuperior msuperior nsuperior osuperior rsuperior ssuperior tsuperior ff ffi ffl parenleftinferior
parenrightinferior Circumflexsmall hyphensuperior Gravesmall Asmall Bsmall Csmall Dsmall Esmall Fsmall Gsmall
Hsmall Ismall Jsmall Ksmall Lsmall Msmall Nsmall Osmall Psmall Qsmall Rsmall Ssmall Tsmall Usmall Vsmall
Wsmall Xsmall Ysmall Zsmall colonmonetary onefitted rupiah Tildesmall exclamdownsmall centoldstyle Lslashsmall
Scaronsmall Zcaronsmall Dieresissmall Brevesmall Caronsmall Dotaccentsmall Macronsmall figuredash
hypheninferior Ogoneksmall Ringsmall Cedillasmall questiondownsmall oneeighth threeeighths fiveeighths
seveneighths onethird twothirds zerosuperior foursuperior fivesuperior sixsuperior sevensuperior eightsuperior
ninesuperior zeroinferior oneinferior twoinferior threeinferior fourinferior fiveinferior sixinferior
seveninferior eightinferior nineinferior centinferior dollarinferior periodinferior commainferior Agravesmall
Aacutesmall Acircumflexsmall Atildesmall Adieresissmall Aringsmall AEsmall Ccedillasmall Egravesmall
Eacutesmall Ecircumflexsmall Edieresissmall Igravesmall Iacutesmall Icircumflexsmall Idieresissmall Ethsmall
Ntildesmall Ogravesmall Oacutesmall Ocircumflexsmall Otildesmall Odieresissmall OEsmall Oslashsmall
Ugravesmall Uacutesmall Ucircumflexsmall Udieresissmall Yacutesmall Thornsmall Ydieresissmall 001.000 001.001
001.002 001.003 Black Bold Book Light Medium Regular Roman Semibold
`.trim().split(/\s+/);

interface Index {
  /** Offsets of each item's data in the font (count + 1 entries). */
  offsets: number[];
  /** The position after the index. */
  end: number;
}

function readIndex(b: Uint8Array, pos: number): Index {
  const count = card16(b, pos);
  if (count === 0) return { offsets: [], end: pos + 2 };
  const offSize = byte(b, pos + 2);
  if (offSize < 1 || offSize > 4) throw new RangeError('bad CFF offset size');
  const base = pos + 3 + (count + 1) * offSize - 1;
  const offsets: number[] = new Array(count + 1);
  for (let i = 0; i <= count; i++) {
    let v = 0;
    for (let k = 0; k < offSize; k++) v = v * 256 + byte(b, pos + 3 + i * offSize + k);
    offsets[i] = base + v;
  }
  const end = offsets[count];
  if (end > b.length) throw new RangeError('CFF index past the end');
  return { offsets, end };
}

const byte = (b: Uint8Array, p: number): number => {
  if (p < 0 || p >= b.length) throw new RangeError('CFF read past the end');
  return b[p];
};
const card16 = (b: Uint8Array, p: number): number => (byte(b, p) << 8) | byte(b, p + 1);

/** A Top DICT's operators (12 x as 1200 + x) -> their operands (numbers only; reals as 0). */
function readDict(b: Uint8Array, start: number, end: number): Map<number, number[]> {
  const dict = new Map<number, number[]>();
  let operands: number[] = [];
  for (let p = start; p < end; ) {
    const b0 = byte(b, p++);
    if (b0 <= 21) {
      const op = b0 === 12 ? 1200 + byte(b, p++) : b0;
      dict.set(op, operands);
      operands = [];
    } else if (b0 === 28) {
      operands.push(((card16(b, p) << 16) >> 16));
      p += 2;
    } else if (b0 === 29) {
      operands.push((card16(b, p) << 16) | card16(b, p + 2));
      p += 4;
    } else if (b0 === 30) {
      // A real: nibbles up to an 0xf; its value is not needed here.
      while ((byte(b, p) & 0x0f) !== 0x0f && (byte(b, p) & 0xf0) !== 0xf0) p++;
      p++;
      operands.push(0);
    } else if (b0 >= 32 && b0 <= 246) operands.push(b0 - 139);
    else if (b0 >= 247 && b0 <= 250) operands.push((b0 - 247) * 256 + byte(b, p++) + 108);
    else if (b0 >= 251 && b0 <= 254) operands.push(-(b0 - 251) * 256 - byte(b, p++) - 108);
    else throw new RangeError('bad CFF dict byte');
  }
  return dict;
}

function cffEncoding(b: Uint8Array, standard: Names): Names | null {
  const nameIndex = readIndex(b, byte(b, 2));
  const topIndex = readIndex(b, nameIndex.end);
  const stringIndex = readIndex(b, topIndex.end);
  if (topIndex.offsets.length < 2) return null;
  const top = readDict(b, topIndex.offsets[0], topIndex.offsets[1]);
  // A CID-keyed font (ROS) has no glyph names.
  if (top.has(1230)) return null;
  const charStrings = top.get(17)?.[0];
  if (charStrings === undefined) return null;
  const glyphs = readIndex(b, charStrings).offsets.length - 1;
  const sidName = (sid: number): string | undefined => {
    if (sid < STANDARD_STRINGS.length) return STANDARD_STRINGS[sid];
    const i = sid - STANDARD_STRINGS.length;
    const o = stringIndex.offsets;
    return i + 1 < o.length ? latin1(b, o[i], o[i + 1]) : undefined;
  };

  // Glyph (GID) -> name; GID 0 is .notdef.
  const charsetAt = top.get(15)?.[0] ?? 0;
  if (charsetAt === 1 || charsetAt === 2) return null; // the Expert charsets
  const glyphNames: (string | undefined)[] = new Array(glyphs);
  if (charsetAt === 0) {
    for (let g = 1; g < glyphs; g++) glyphNames[g] = sidName(g);
  } else {
    const format = byte(b, charsetAt);
    let p = charsetAt + 1;
    if (format === 0) {
      for (let g = 1; g < glyphs; g++, p += 2) glyphNames[g] = sidName(card16(b, p));
    } else if (format === 1 || format === 2) {
      for (let g = 1; g < glyphs; ) {
        const first = card16(b, p);
        const left = format === 1 ? byte(b, p + 2) : card16(b, p + 2);
        p += format === 1 ? 3 : 4;
        for (let k = 0; k <= left && g < glyphs; k++) glyphNames[g++] = sidName(first + k);
      }
    } else return null;
  }

  // Code -> glyph: the standard encoding by name, or the font's own table.
  const encodingAt = top.get(16)?.[0] ?? 0;
  if (encodingAt === 0) return standard;
  if (encodingAt === 1) return null; // the Expert encoding
  const names: Names = new Array(256);
  const format = byte(b, encodingAt);
  let p = encodingAt + 1;
  if ((format & 0x7f) === 0) {
    const n = byte(b, p++);
    for (let g = 1; g <= n; g++) names[byte(b, p++)] = glyphNames[g];
  } else if ((format & 0x7f) === 1) {
    const ranges = byte(b, p++);
    let g = 1;
    for (let r = 0; r < ranges; r++) {
      const first = byte(b, p);
      const left = byte(b, p + 1);
      p += 2;
      for (let k = 0; k <= left; k++, g++) if (first + k < 256) names[first + k] = glyphNames[g];
    }
  } else return null;
  if (format & 0x80) {
    const sups = byte(b, p++);
    for (let s = 0; s < sups; s++, p += 3) names[byte(b, p)] = sidName(card16(b, p + 1));
  }
  return names;
}
