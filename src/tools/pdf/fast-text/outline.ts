/**
 * The document's outline (bookmarks) read from its objects, as open-pdf.ts's outline() reads
 * it through PDFium's bookmark functions (FPDFBookmark_GetFirstChild / GetNextSibling /
 * GetTitle / GetDest, FPDFAction_GetDest, FPDFDest_GetDestPageIndex), which cost pdf-md about
 * 3 % of its time: PDFium parses each bookmark's objects and looks its page up by walking the
 * page tree. What this reads is what those functions give for the plain cases, step by step:
 *
 * - children: /Outlines /First, then /Next (a dictionary, or a stream's), ending at a
 *   bookmark seen before;
 * - title: a string /Title as PDFium decodes it (PDFDocEncoding, UTF-16BE after its byte-order
 *   mark), each character up to U+0020 a space;
 * - destination: /Dest, else a /GoTo action's /D; an array, or a name or string looked up in
 *   the /Names /Dests tree (as PDFium searches it, /Limits and all) and then in the catalog's
 *   /Dests; a dictionary found there gives its /D;
 * - page: the destination's first element, a page number as is or a page object's index.
 *
 * Anything else (other encodings and language escapes in titles, other action types, remote
 * destinations, names outside printable ASCII, a page that is no page) is Unsupported, and
 * the caller asks PDFium for the whole outline: the answer never depends on a guess.
 */
import type { OutlineEntry } from '../open-pdf.ts';
import { PdfStream, PdfString, Ref, Unsupported, type PdfDict, type PdfObjects, type PdfValue } from './pdf-objects.ts';


/** PDFium's name tree recursion limit (kNameTreeMaxRecursion). */
const MAX_NAME_TREE_DEPTH = 32;
/**
 * Name tree nodes visited for one outline before it is left to PDFium: a tree whose kids point
 * back up would otherwise be searched exponentially often within the depth limit.
 */
const MAX_NAME_TREE_VISITS = 100_000;

/** The dictionary behind a value (as PDFium's GetDictFor); a stream is left to PDFium. */
const dictOf = (objects: PdfObjects, v: PdfValue | undefined): PdfDict | undefined => {
  const r = objects.resolve(v);
  if (r instanceof PdfStream) throw new Unsupported('a stream where the outline has dictionaries');
  return r instanceof Map ? r : undefined;
};

/**
 * The text of a PDF text string as PDFium's PDF_DecodeText gives it, for the encodings read
 * here: PDFDocEncoding where it is ASCII (and the control codes below U+0018, which it keeps),
 * UTF-16BE with a byte-order mark and no language escape. Unsupported for anything else.
 */
function decodeText(s: PdfString): string {
  const b = s.src;
  const n = s.end - s.start;
  let out = '';
  if (n >= 2 && b[s.start] === 0xfe && b[s.start + 1] === 0xff) {
    if (n % 2 !== 0) throw new Unsupported('odd UTF-16 text');
    for (let i = s.start + 2; i < s.end; i += 2) {
      const u = (b[i] << 8) | b[i + 1];
      if (u === 0x1b) throw new Unsupported('language escape in a text string');
      if (u >= 0xd800 && u <= 0xdbff) {
        const low = i + 3 < s.end ? (b[i + 2] << 8) | b[i + 3] : -1;
        if (low < 0xdc00 || low > 0xdfff) throw new Unsupported('unpaired surrogate');
        out += String.fromCharCode(u, low);
        i += 2;
        continue;
      }
      if (u >= 0xdc00 && u <= 0xdfff) throw new Unsupported('unpaired surrogate');
      out += String.fromCharCode(u);
    }
    return out;
  }
  if (n >= 2 && b[s.start] === 0xff && b[s.start + 1] === 0xfe) throw new Unsupported('UTF-16LE text');
  if (n >= 3 && b[s.start] === 0xef && b[s.start + 1] === 0xbb && b[s.start + 2] === 0xbf) throw new Unsupported('UTF-8 text');
  for (let i = s.start; i < s.end; i++) {
    const c = b[i];
    // PDFDocEncoding is ASCII here, and the identity below 0x18 (0x18-0x1f are accents).
    if (!(c < 0x18 || (c >= 0x20 && c < 0x7f))) throw new Unsupported('text beyond ASCII');
    out += String.fromCharCode(c);
  }
  return out;
}

/** A destination name (a name, or a string's bytes) that decodes the same in every reading: printable ASCII. */
function destName(v: PdfValue | undefined): string {
  if (typeof v === 'string') {
    for (let i = 0; i < v.length; i++) if (v.charCodeAt(i) < 0x20 || v.charCodeAt(i) > 0x7e) throw new Unsupported('destination name beyond ASCII');
    return v;
  }
  if (v instanceof PdfString) {
    const text = decodeText(v);
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 0x20 || text.charCodeAt(i) > 0x7e) throw new Unsupported('destination name beyond ASCII');
    return text;
  }
  throw new Unsupported('not a destination name');
}

/** A name tree key as PDFium compares it (GetUnicodeTextAt), restricted as destName is. */
const keyText = (objects: PdfObjects, v: PdfValue | undefined): string => {
  const r = objects.resolve(v);
  if (r instanceof PdfString) return destName(r);
  // PDFium's GetUnicodeTextAt of a non-string is empty; such trees are left to PDFium.
  throw new Unsupported('name tree key is not a string');
};

/** A name tree node as the search reads it: its /Limits, /Names and /Kids, decoded once. */
interface NameNode {
  /** The two limits, sanitised (swapped when out of order); null without /Limits. */
  limits: [string, string] | null;
  /** A leaf's decoded keys and its /Names array (values at odd places); null for an inner node. */
  keys: string[] | null;
  names: PdfValue[] | null;
  /** An inner node's kids that are dictionaries (others are skipped, as PDFium skips them). */
  kids: PdfDict[] | null;
}

/** What the name tree searches of one outline share: the nodes read so far, and a visit count. */
interface NameTreeCache {
  nodes: Map<PdfDict, NameNode>;
  visits: number;
}

function nameNode(objects: PdfObjects, node: PdfDict, cache: NameTreeCache): NameNode {
  let n = cache.nodes.get(node);
  if (n) return n;
  const limits = objects.array(node.get('Limits'));
  const names = objects.array(node.get('Names')) ?? null;
  let bounds: [string, string] | null = null;
  if (limits) {
    // GetNodeLimitsAndSanitize: the two limits, swapped when out of order.
    const left = limits.length > 0 ? keyText(objects, limits[0]) : '';
    const right = limits.length > 1 ? keyText(objects, limits[1]) : '';
    bounds = left > right ? [right, left] : [left, right];
  }
  let keys: string[] | null = null;
  if (names) {
    keys = [];
    for (let i = 0; i + 1 < names.length; i += 2) keys.push(keyText(objects, names[i]));
  }
  let kids: PdfDict[] | null = null;
  if (!names) {
    const list = objects.array(node.get('Kids'));
    if (list) {
      kids = [];
      for (const kid of list) {
        const k = dictOf(objects, kid);
        if (k) kids.push(k);
      }
    }
  }
  n = { limits: bounds, keys, names, kids };
  cache.nodes.set(node, n);
  return n;
}

/**
 * CPDF_NameTree's SearchNameNodeByName: the value of `name`, found as PDFium finds it, or
 * undefined. A value that is null or missing (where PDFium's search would go on or stop
 * depending on which) is left to PDFium.
 */
function searchNameTree(objects: PdfObjects, node: PdfDict, name: string, level: number, cache: NameTreeCache): PdfValue | undefined {
  if (level > MAX_NAME_TREE_DEPTH) return undefined;
  if (++cache.visits > MAX_NAME_TREE_VISITS) throw new Unsupported('name tree too large or looping');
  const n = nameNode(objects, node, cache);
  if (n.limits) {
    if (name < n.limits[0]) return undefined;
    if (name > n.limits[1] && n.names) return undefined;
  }
  if (n.keys && n.names) {
    for (let i = 0; i < n.keys.length; i++) {
      const key = n.keys[i];
      if (key > name) break;
      if (key < name) continue;
      const value = objects.resolve(n.names[2 * i + 1]);
      if (value === null || value === undefined) throw new Unsupported('named destination without a value');
      return value;
    }
    return undefined;
  }
  if (!n.kids) return undefined;
  for (const kid of n.kids) {
    const found = searchNameTree(objects, kid, name, level + 1, cache);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** GetNamedDestFromObject: an array as is, a dictionary's /D array. */
function namedDest(objects: PdfObjects, v: PdfValue | undefined): PdfValue[] | null {
  if (Array.isArray(v)) return v;
  if (v instanceof Map) return objects.array(v.get('D')) ?? null;
  return null;
}

/** CPDF_Dest::Create: the destination array of a /Dest or /D value, or null. */
function destArray(objects: PdfObjects, catalog: PdfDict | undefined, value: PdfValue | undefined, keys: NameTreeCache): PdfValue[] | null {
  const v = objects.resolve(value);
  if (v === undefined || v === null) return null;
  if (typeof v === 'string' || v instanceof PdfString) {
    const name = destName(v);
    const tree = dictOf(objects, dictOf(objects, catalog?.get('Names'))?.get('Dests'));
    let found: PdfValue[] | null = null;
    if (tree) found = namedDest(objects, searchNameTree(objects, tree, name, 0, keys));
    if (!found) {
      // The old style: the catalog's /Dests dictionary, keyed by the name's bytes (those of
      // a string whose text is ASCII without a byte-order mark are that text).
      const old = dictOf(objects, catalog?.get('Dests'));
      if (old) {
        if (v instanceof PdfString && v.end - v.start !== name.length) throw new Unsupported('string destination with a byte-order mark');
        found = namedDest(objects, objects.resolve(old.get(name)));
      }
    }
    return found;
  }
  return Array.isArray(v) ? v : null;
}

/** CPDF_Dest::GetDestPageIndex, as a page number (1-based) or null. */
function destPage(objects: PdfObjects, dest: PdfValue[] | null, pageIndex: Map<number, number>): number | null {
  if (!dest) return null;
  const first = dest[0];
  const target = objects.resolve(first);
  if (target === undefined || target === null) return null;
  if (typeof target === 'number') {
    if (!Number.isInteger(target)) throw new Unsupported('fractional page number');
    return target >= 0 ? target + 1 : null;
  }
  if (!(target instanceof Map)) {
    if (target instanceof PdfStream) throw new Unsupported('destination page is a stream');
    return null;
  }
  if (!(first instanceof Ref)) throw new Unsupported('destination page written inline');
  const index = pageIndex.get(first.num);
  if (index === undefined) throw new Unsupported('destination page is not a page');
  return index + 1;
}

/** The outline, depth first, as open-pdf.ts's PDFium walk gives it (same limits). */
export function readOutline(objects: PdfObjects, pageIndex: Map<number, number>, maxEntries: number, maxDepth: number): OutlineEntry[] {
  const catalog = dictOf(objects, objects.trailer.get('Root'));
  const out: OutlineEntry[] = [];
  const seen = new Set<PdfDict>();
  const keys: NameTreeCache = { nodes: new Map(), visits: 0 };
  const walk = (parent: PdfDict | undefined, depth: number) => {
    if (depth > maxDepth) return;
    for (let b = dictOf(objects, parent?.get('First')); b && !seen.has(b) && out.length < maxEntries; b = dictOf(objects, b.get('Next'))) {
      seen.add(b);
      const titleValue = objects.resolve(b.get('Title'));
      const raw = titleValue instanceof PdfString ? decodeText(titleValue) : '';
      let title = '';
      for (let i = 0; i < raw.length; i++) title += raw.charCodeAt(i) > 0x20 ? raw[i] : ' ';
      let dest = destArray(objects, catalog, b.get('Dest'), keys);
      if (!dest) {
        const action = dictOf(objects, b.get('A'));
        if (action) {
          // CPDF_Action::GetType: a /Type other than /Action makes no action; /S a direct name.
          const kind = action.get('Type');
          const type = action.get('S');
          if ((kind !== undefined && kind !== 'Action') || (type !== undefined && typeof type !== 'string')) throw new Unsupported('unusual action');
          if (type === 'GoTo') dest = destArray(objects, catalog, action.get('D'), keys);
          else if (type === 'GoToR' || type === 'GoToE') throw new Unsupported('remote destination');
        }
      }
      out.push({ title: title.replace(/\s+/g, ' ').trim(), depth, page: destPage(objects, dest, pageIndex) });
      walk(b, depth + 1);
    }
  };
  walk(dictOf(objects, catalog?.get('Outlines')), 1);
  return out;
}
