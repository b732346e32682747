/**
 * pdf-md's page reads (fragments and their runs) packed into a few flat arrays for the trip
 * from one pool worker to another (run-tool.ts, a split pdf-md job). A structured clone of the
 * objects themselves costs about a fifth of reading the pages (some 150 bytes and a dozen
 * fields per run, 4 runs per fragment), most of it on the receiving side, which is the part
 * that composes the document while the others wait: here the receiver slices one string and
 * reads one Float64Array. The round trip gives objects with the same fields, in the same
 * order, with the same values (Float64Array keeps every double, -0 included), so the
 * composed answer is the same; tables (few, small) travel as they are.
 */
import type { Table } from './ruled-tables.ts';
import type { Fragment, TextRun } from './text-types.ts';

/** A page as pdf-md reads it (pdf-md.tool.ts MdPageVisit), kept structural to avoid an import cycle. */
export interface CodecPage {
  pageNumber: number;
  value: { frameHeight: number; fragments: Fragment[]; tables: Table[] } | null;
}

export interface PackedPages {
  /** Every text and font name, one after the other; their lengths in `lengths`. */
  text: string;
  lengths: Int32Array;
  /** Per page: its number, whether read (1) or not (0), frame height, fragment count; per fragment its run count. */
  counts: Int32Array;
  numbers: Float64Array;
  tables: Table[][];
}

const FRAGMENT_NUMBERS = 6;
const RUN_NUMBERS = 6;

export function packPages(pages: CodecPage[]): PackedPages {
  const texts: string[] = [];
  const lengths: number[] = [];
  const counts: number[] = [];
  const numbers: number[] = [];
  const tables: Table[][] = [];
  const str = (s: string) => {
    texts.push(s);
    lengths.push(s.length);
  };
  for (const p of pages) {
    counts.push(p.pageNumber, p.value ? 1 : 0);
    if (!p.value) continue;
    numbers.push(p.value.frameHeight);
    counts.push(p.value.fragments.length);
    tables.push(p.value.tables);
    for (const f of p.value.fragments) {
      if (f.page !== p.pageNumber) throw new Error('packPages: a fragment of another page');
      counts.push(f.runs.length);
      str(f.text);
      str(f.fontId);
      numbers.push(f.x0, f.x1, f.baseline, f.top, f.bottom, f.size);
      for (const r of f.runs) {
        str(r.text);
        str(r.fontId);
        numbers.push(r.x0, r.x1, r.top, r.bottom, r.baseline, r.size);
      }
    }
  }
  return { text: texts.join(''), lengths: Int32Array.from(lengths), counts: Int32Array.from(counts), numbers: Float64Array.from(numbers), tables };
}

export function unpackPages(packed: PackedPages): CodecPage[] {
  const { text, lengths, counts, numbers, tables } = packed;
  let at = 0;
  let s = 0;
  let c = 0;
  let n = 0;
  let t = 0;
  const str = (): string => {
    const end = at + lengths[s++];
    const out = text.slice(at, end);
    at = end;
    return out;
  };
  const pages: CodecPage[] = [];
  while (c < counts.length) {
    const pageNumber = counts[c++];
    if (!counts[c++]) {
      pages.push({ pageNumber, value: null });
      continue;
    }
    const frameHeight = numbers[n++];
    const fragments: Fragment[] = new Array(counts[c++]);
    for (let i = 0; i < fragments.length; i++) {
      const runs: TextRun[] = new Array(counts[c++]);
      const ftext = str();
      const ffont = str();
      const fn = n;
      n += FRAGMENT_NUMBERS;
      for (let k = 0; k < runs.length; k++) {
        const rtext = str();
        const rfont = str();
        // The fields in the order the layout makes them (text-runs.ts), so objects have the same shape.
        runs[k] = { text: rtext, x0: numbers[n], x1: numbers[n + 1], top: numbers[n + 2], bottom: numbers[n + 3], baseline: numbers[n + 4], size: numbers[n + 5], fontId: rfont };
        n += RUN_NUMBERS;
      }
      // As fragments.ts makes them, then the page as pdf-md sets it: objects of the same shape
      // (hidden class) as the ones read here, or composing them mixed would run slower.
      const f: Fragment = { runs, text: ftext, x0: numbers[fn], x1: numbers[fn + 1], baseline: numbers[fn + 2], top: numbers[fn + 3], bottom: numbers[fn + 4], size: numbers[fn + 5], fontId: ffont };
      f.page = pageNumber;
      fragments[i] = f;
    }
    pages.push({ pageNumber, value: { frameHeight, fragments, tables: tables[t++] } });
  }
  return pages;
}
