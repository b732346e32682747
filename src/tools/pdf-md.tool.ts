/**
 * pdf-md: Markdown an agent can feed a language model without cleaning it first.
 *
 * - Page furniture (running headers and footers, page numbers) is left out, found across the
 *   whole document (pdf/page-furniture.ts); each page starts with an anchor `<!-- page N -->`
 *   so a reader can cite a page (option `pageAnchors: false` leaves them out).
 * - Headings come from the font-size hierarchy of the whole document (the most used size is
 *   body text; the larger sizes, biggest first, become #, ## and ###). When the PDF has an
 *   outline (bookmarks) whose titles name the text's headings, the outline decides instead:
 *   a block reading as a bookmark's title on its page is a heading at the bookmark's depth,
 *   other lines (authors, dates, contents lines) are not.
 * - Ruled tables whose cells span columns or rows (a rule missing between two cells) become
 *   HTML <table>s with colspan/rowspan; other tables become pipe tables.
 * - Paragraphs flow: a paragraph cut by a column or page break (no sentence end before, a
 *   lower-case start after) is joined again, and line-end hyphens are joined when the document
 *   itself never writes the pair as a hyphenated compound (flow-text.ts).
 * - Lines set in a monospaced font become fenced code blocks, with their indentation.
 * - Table-of-contents lines (dot leaders) become a list, never headings.
 * - Bullets and numbers become lists.
 * A page without a text layer (a scan) adds an HTML comment saying so, so a reader of the
 * Markdown knows content is missing rather than absent.
 */
import type { PdfDocument, PdfPage } from './pdf/open-pdf.ts';
import { mapPages } from './pdf/pdf-pages.ts';
import { fontNameOf, isBoldFont } from './pdf/page-fonts.ts';
import { findFurniture } from './pdf/page-furniture.ts';
import { buildBlocks, commonLeft, median, readingOrder, readPageText, type Block, type Box, type Fragment } from './pdf/page-layout.ts';
import { findTables, readRulings, type GridCell, type Table } from './pdf/ruled-tables.ts';
import { CAPTION, findAlignedTables } from './pdf/aligned-tables.ts';
import { ascending, byX0, mostUsedSize } from './pdf/fragments.ts';
import { fixSymbols, joinLines, Vocabulary } from './pdf/flow-text.ts';
import type { PdfMdResult, ProgressFn } from './tool-types.ts';

export interface PdfMdOptions {
  /** `<!-- page N -->` before each page's text (default true). */
  pageAnchors?: boolean;
}

export type PageItem = { kind: 'text'; block: Block; bold: boolean; note?: boolean } | { kind: 'table'; table: Table };

/** One rendered piece of a page, with what the page-to-page joining needs to know. */
interface Part {
  md: string;
  kind: 'para' | 'heading' | 'list' | 'code' | 'table' | 'toc' | 'note' | 'other';
  /** For code: the fragments, so a listing cut by a page break stays one block. */
  code?: Fragment[][];
  /** For a table: the table, so one cut by a page break is joined again. */
  table?: Table;
}

/**
 * Whether `next` (first on its page) goes on with `prev` (last on the page before): a table
 * cut by the page break, its columns at the same offsets from its first (a ruled table's bounds,
 * both sides too, at the same places: word processors and Asciidoctor draw a table's
 * continuation with the same rules, with or without its header row again). Its first row is
 * then a body row, unless it repeats the header. The answer is how many of prev's columns come
 * before next's first (null: no continuation): a word processor's tree table whose top-level
 * column is empty on the next page has its rules reaching over that column but no column there,
 * so next's columns are prev's last ones, at the same offsets from the rules' left end.
 */
function continuationShift(prev: Table, next: Table): number | null {
  const a = prev.columns;
  const b = next.columns;
  if (!a || !b) return null;
  if (a.length === b.length) {
    if (prev.rows[0]?.length !== next.rows[0]?.length) return null;
    return a.every((x, k) => Math.abs(x - a[0] - (b[k] - b[0])) <= 3) ? 0 : null;
  }
  // One part read as a grid (its bounds with the right side) and the other from its rules'
  // stack (cells' left edges: a part with one row rule left, FHS's header over one row): their
  // left edges, when both have one per column.
  const la = leftEdges(prev);
  const lb = leftEdges(next);
  if (la.length === lb.length && la.length === prev.rows[0]?.length && la.length === next.rows[0]?.length && la.every((x, k) => Math.abs(x - la[0] - (lb[k] - lb[0])) <= 3)) return 0;
  // (Only a ruled part whose box reaches left of its first column: its rules go on there.)
  if (b.length > a.length || b[0] - next.x0 < 10 || Math.abs(a[0] - prev.x0) > 3) return null;
  for (let k = 1; k + b.length <= a.length; k++) {
    let fits = true;
    for (let j = 0; j < b.length && fits; j++) fits = Math.abs(a[k + j] - a[0] - (b[j] - next.x0)) <= 3;
    if (fits && (k + b.length === a.length || Math.abs(a[a.length - 1] - a[0] - (next.x1 - next.x0)) <= 3)) return k;
  }
  return null;
}

/** A table's column left edges: its bounds without the right side when they hold it (one more than its cells). */
function leftEdges(t: Table): number[] {
  const c = t.columns ?? [];
  const width = t.rows[0]?.length ?? 0;
  return c.length === width + 1 ? c.slice(0, width) : c;
}

/** A table's rows and cells moved `shift` columns right and padded to `width` columns (see continuationShift). */
function shiftTable(t: Table, shift: number, width: number): Table {
  if (!shift && t.rows.every((r) => r.length === width)) return t;
  const rows: string[][] = [];
  for (const r of t.rows) {
    const row: string[] = [];
    for (let k = 0; k < shift; k++) row.push('');
    row.push(...r);
    while (row.length < width) row.push('');
    rows.push(row);
  }
  const cells = t.cells?.map((row) => row.map((c) => ({ ...c, col: c.col + shift })));
  return { ...t, rows, ...(cells ? { cells } : {}) };
}

/** A row's cell texts without its empty cells, for comparing rows. */
function rowTexts(row: string[]): string {
  const texts: string[] = [];
  for (const c of row) if (c) texts.push(c);
  return texts.join('|');
}

const SENTENCE_ENDS = /[.!?:;]["”’)\]]*$/;

/**
 * How many of a continuation's first rows are the rest of the row the page break cut (0: none;
 * a word processor lets a row break across pages and draws no rule at the cut): every cell they
 * fill is one the cut row filled too, and either a column that every other row of both parts
 * fills (the rows' names) is empty in them (one row, or several: a row made of lines without
 * rules between them, its lines on the next page read as rows, "Ryunosuke Satoh" under no
 * language), or (one row) each of its cells reads on from the cell above (no sentence end
 * there, and a hyphen, dash or comma there or a lower-case letter or digit here: "18-Mar-" /
 * "2024", "Digi-ID" / "and Mobile-IDs"), one of them broken after a hyphen, dash or comma.
 */
function restOfCutRow(prevRows: string[][], nextRows: string[][]): number {
  const last = prevRows[prevRows.length - 1];
  const first = nextRows[0];
  if (!last || !first || last.length !== first.length) return 0;
  // The leading rows filling only cells the cut row filled.
  let m = 0;
  for (; m < nextRows.length; m++) {
    const row = nextRows[m];
    if (row.length !== last.length) break;
    let filled = 0;
    let within = true;
    for (let k = 0; k < row.length && within; k++) {
      if (!row[k]) continue;
      if (!last[k]) within = false;
      filled++;
    }
    if (!within || !filled) break;
  }
  if (!m) return 0;
  // The most of them that leave a name column empty, every other row filling it.
  for (let n = m; n >= 1; n--) {
    for (let k = 0; k < first.length; k++) {
      if (!last[k]) continue;
      let always = true;
      for (let r = 0; r < n && always; r++) always = nextRows[r][k] === '';
      for (let r = 0; r < prevRows.length && always; r++) always = prevRows[r][k] !== '';
      for (let r = n; r < nextRows.length && always; r++) always = nextRows[r][k] !== '';
      if (always) return n;
    }
  }
  let broken = false;
  for (let k = 0; k < first.length; k++) {
    if (!first[k]) continue;
    if (SENTENCE_ENDS.test(last[k])) return 0;
    const open = /[-‐–—,]$/u.test(last[k]);
    if (!open && !/^[\p{Ll}\p{N}]/u.test(first[k])) return 0;
    if (open) broken = true;
  }
  // (At least one cell broken at a hyphen, dash or comma: rows of names and lower-case values
  // cut between two rows read on as well, "Gamma | identity, inverse, log" / "inverse.gaussian".)
  return broken ? 1 : 0;
}

/** A paragraph's text without the anchors a page break put inside it (joinAcrossBreak). */
const withoutAnchors = (md: string): string => (md.includes('<!-- page ') ? md.replace(/ <!-- page \d+ -->(?= |$)/g, '') : md);

/**
 * The document's Markdown from its parts, made with their pages' anchors; without anchors
 * (`anchors` false) those are left out, and list items only an anchor parted are one list again
 * (as they are on one page).
 */
function partsToMarkdown(out: Part[], anchors: boolean): string {
  // By push, not map: see tocToParts.
  const mds: string[] = [];
  let last: Part | null = null;
  let dropped = false;
  for (const p of out) {
    if (!anchors && isPageAnchor(p)) {
      dropped = true;
      continue;
    }
    const md = p.kind === 'code' ? codeToMarkdown(p.code!.flat()) : fixSymbols(anchors ? p.md : withoutAnchors(p.md));
    if (dropped && last && (p.kind === 'list' || p.kind === 'toc') && last.kind === p.kind) mds[mds.length - 1] += `\n${md}`;
    else mds.push(md);
    last = p;
    dropped = false;
  }
  return mds.join('\n\n') + '\n';
}

/** Whether a part is a page's anchor as pdf-md writes it, alone. */
const isPageAnchor = (p: Part): boolean => p.kind === 'other' && /^<!-- page \d+ -->$/.test(p.md);

/**
 * Two parts of a paragraph a break cut, joined; the page's anchor (when there is one) where the
 * page begins: at the joining space, or after a word the break hyphenated.
 */
function joinAcrossBreak(before: string, after: string, anchor: string | null, vocab: Vocabulary): string {
  const joined = joinLines([before, after], vocab);
  if (!anchor) return joined;
  const at = joined.startsWith(before + ' ') ? before.length : joined.indexOf(' ', before.length - 1);
  return at < 0 ? `${joined} ${anchor}` : `${joined.slice(0, at)} ${anchor} ${joined.slice(at).trimStart()}`;
}

/** Appends `next`, the part of a table on the next page, to the table of `before`: its repeated header dropped, a row the break cut completed. */
function appendTable(before: Part, next: Table, vocab: Vocabulary): void {
  const prev = before.table!;
  // The rows the continuation repeats at its top (its header, and a title row over it)
  // are dropped: as many of its first rows as are the table's first rows (their texts:
  // a header cell spanning columns may fall in another of them on the next page).
  let k = 0;
  while (k < next.rows.length && k < prev.rows.length && rowTexts(next.rows[k]) === rowTexts(prev.rows[k])) k++;
  let rows = next.rows.slice(k);
  // Cells that span (either part's) are kept as drawn: the parts' cells one after the other.
  const asCells = (t: Table) => t.cells ?? t.rows.map((r) => r.map((text, col) => ({ text, col, colspan: 1, rowspan: 1 })));
  let prevRows = prev.rows;
  let prevCells = prev.cells || next.cells ? asCells(prev) : undefined;
  let nextCells = prevCells ? asCells(next).slice(k) : undefined;
  // A row the break cut in two is one row again: its rest completes it, cell by cell.
  for (let rest = restOfCutRow(prev.rows, rows); rest > 0; rest--) {
    const cut = completeCutRow(prevRows, rows[0], prevCells, nextCells?.[0], vocab);
    if (!cut) break;
    prevRows = cut.rows;
    prevCells = cut.cells;
    rows = rows.slice(1);
    nextCells = nextCells?.slice(1);
  }
  const cells = prevCells && nextCells ? [...prevCells, ...nextCells] : undefined;
  before.table = { ...prev, rows: [...prevRows, ...rows], bottom: next.bottom, ...(cells ? { cells } : {}) };
  before.md = renderTable(before.table);
}

/**
 * A paragraph of one short line (a table's "Continued on next page"), not a caption (which
 * names a table of its own: "Table 7. Example of tabularx environment" over the same header).
 */
const isShortLine = (p: Part | undefined): boolean => (p?.kind === 'para' || p?.kind === 'note') && !p.md.includes('\n') && p.md.split(/\s+/).length <= 6 && !CAPTION.test(p.md);

/** Whether `next` starts with `prev`'s header row again (two cells named or more): a longtable's head repeated over its part on the next page. */
function repeatsHeader(prev: Table, next: Table): boolean {
  const head = prev.rows[0];
  if (!head || next.rows[0]?.length !== head.length || next.rows[0].join('|') !== head.join('|')) return false;
  let named = 0;
  for (const cell of head) if (cell) named++;
  return named >= 2;
}

/**
 * The short lines (one each side at most) between a table's part and its next part joined
 * across a page break, when that part repeats the header: the foot a longtable sets under each
 * part but the last (set small at the page's foot, so it may have been read as a footnote).
 */
function footLinesBetween(out: Part[], before: Part): Part[] {
  const lines: Part[] = [];
  for (let i = out.indexOf(before) + 1; i < out.length; i++) {
    const p = out[i];
    if (isPageAnchor(p)) continue;
    if (!isShortLine(p) || lines.length === 2) return [];
    lines.push(p);
  }
  return lines;
}

/**
 * The table `next` goes on with across the page break just before it, when one short line
 * stands between them on each side of the break (the foot of one part, the head of the next)
 * and `next` repeats the table's header row (two cells named or more): that table's part, and
 * the lines between.
 */
function continuedPast(out: Part[], next: Table): { before: Part; lines: Part[] } | null {
  const lines: Part[] = [];
  let i = out.length - 1;
  if (isShortLine(out[i])) lines.push(out[i--]);
  if (i < 0 || !isPageAnchor(out[i])) return null;
  i--;
  if (isShortLine(out[i])) lines.push(out[i--]);
  // (The anchor of the page a part joined before stands after the table.)
  while (i >= 0 && isPageAnchor(out[i])) i--;
  const before = out[i];
  // (One line will do, the foot without a head over the next part, as R's xtable sets them.)
  if (!lines.length || !before || before.kind !== 'table' || !before.table) return null;
  // (Its columns need not be at the same offsets: each page's part of a longtable is as wide as
  // its own widest cells when the widths were not settled. Its header, repeated, says enough.)
  return repeatsHeader(before.table, next) ? { before, lines } : null;
}

const BULLET = /^([•◦▪▫‣●○■□·∙–—*+-])\s+(.*)$/u;
const NUMBERED = /^(\d{1,3}|[a-zA-Z]|[ivxIVX]{1,4})([.)])\s+(.*)$/;
/** A line that starts a list item (bullet or number). */
export const LIST_LINE = new RegExp(`${BULLET.source}|${NUMBERED.source}`, 'u');
/** A table-of-contents or index entry: title, a dot leader, a page number (an index's: several, "6, 55", "93–95"). */
export const TOC_LINE = /^(.*?\S)\s*(?:\.\s*){4,}\s*((?:\d{1,4}|[ivxlc]{1,6})(?:\s*[,–-]\s*(?:\d{1,4}|[ivxlc]{1,6}))*)?$/i;
/**
 * TOC_LINE.test, without running the (backtracking) expression on the many lines that have
 * fewer than the four dots of a leader.
 */
export function isTocLine(text: string): boolean {
  let dots = 0;
  for (let i = text.indexOf('.'); i >= 0; i = text.indexOf('.', i + 1)) if (++dots === 4) return TOC_LINE.test(text);
  return false;
}
// Monospaced families by name: URW's Courier clone Nimbus Mono L is "NimbusMonL" (ghostscript,
// PassiveTeX and LaTeX's psnfss), TeX's typewriter faces are cmtt/lmtt/ectt/sftt/txtt, psnfss
// names Courier pcrr/pcrb; the M+ fonts' monospaced members are "mplus1mn" and "mplus-2m"
// (Asciidoctor PDF's code font).
const MONO = /mono|courier|cmtt|typewriter|consol|menlo|inconsolata|code|lmtt|sfmono|fixed|ttf?\d|nimbusmon|cousine|letter.?gothic|ectt|sftt|txtt|pcr[rb]\d|mplus-?\d?m[n-]/i;

/** MONO.test by font name: a document has a handful of fonts and many runs. */
const monoFonts = new Map<string, boolean>();
const isMonoFont = (fontId: string): boolean => {
  let mono = monoFonts.get(fontId);
  if (mono === undefined) {
    if (monoFonts.size > 4096) monoFonts.clear();
    monoFonts.set(fontId, (mono = MONO.test(fontId)));
  }
  return mono;
};

const escapeCell = (s: string) => s.replace(/\|/g, '\\|');

export function tableToMarkdown(rows: string[][]): string {
  const width = Math.max(...rows.map((r) => r.length));
  const norm = rows.map((r) => [...r, ...Array(width - r.length).fill('')].map(escapeCell));
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(norm[0]), line(norm[0].map(() => '---')), ...norm.slice(1).map(line)].join('\n');
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A table a pipe table cannot hold (cells spanning columns or rows) as HTML, with colspan and
 * rowspan as drawn. The first row is a header row unless one of its cells reaches below it.
 */
export function tableToHtml(cells: GridCell[][]): string {
  const header = cells.length > 1 && cells[0].every((c) => c.rowspan === 1);
  const cell = (c: GridCell, tag: string) => {
    const span = `${c.colspan > 1 ? ` colspan="${c.colspan}"` : ''}${c.rowspan > 1 ? ` rowspan="${c.rowspan}"` : ''}`;
    return `<${tag}${span}>${escapeHtml(c.text)}</${tag}>`;
  };
  // Positions no cell covers (an empty cell, or one spanning from a row above) are told apart
  // from the grid: the empty ones get an empty <td> so the cells after them keep their column.
  const width = Math.max(...cells.map((row) => Math.max(0, ...row.map((c) => c.col + c.colspan))));
  const covered = cells.map(() => Array<boolean>(width).fill(false));
  cells.forEach((row, r) => {
    for (const c of row) for (let dr = 0; dr < c.rowspan; dr++) for (let dc = 0; dc < c.colspan; dc++) if (covered[r + dr]) covered[r + dr][c.col + dc] = true;
  });
  const rows = cells.map((row, r) => {
    const tag = header && r === 0 ? 'th' : 'td';
    const out: string[] = [];
    for (let k = 0; k < width; k++) {
      const c = row.find((x) => x.col === k);
      if (c) out.push(cell(c, tag));
      else if (!covered[r][k]) out.push(`<${tag}></${tag}>`);
    }
    return `<tr>${out.join('')}</tr>`;
  });
  return `<table>\n${rows.join('\n')}\n</table>`;
}

/** Words after which a hyphen and a space are a suspended compound ("pre- and post-"), not a line end. */
const SUSPENDED_BEFORE = new Set(['and', 'or', 'nor', 'to', 'as', 'und', 'oder', 'bis', 'et', 'ou']);

/**
 * A table cell's lines come joined by spaces, so a word broken at a cell's line end reads
 * "excep- tions" (TeX) or "in- game" (a compound of a document that does not hyphenate): each
 * "word- word" is joined as running text would be (flow-text's rules, with the document's
 * words), unless the next word is a conjunction of a suspended compound ("pre- and post-").
 * A narrow cell also breaks its lines after a hyphen that follows a digit ("24:00:00-" /
 * "1559", a time with its offset), after a dash set close to a word ("Certificate–" /
 * "based"), after a slash ("PKCS11/CNG/" / "PKCS12") and before a digit ("18-Mar-" / "2024"):
 * these stay, with no space.
 */
export function healCellText(text: string, vocab: Vocabulary): string {
  if (!text.includes('- ') && !text.includes('– ') && !text.includes('— ') && !text.includes('/ ')) return text;
  const tokens = text.split(' ');
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    let tok = tokens[i];
    while (i + 1 < tokens.length && /[\p{L}\p{N}][-–—/]$/u.test(tok) && tokens[i + 1] && !SUSPENDED_BEFORE.has(tokens[i + 1].toLowerCase())) {
      if (!/\p{L}-$/u.test(tok) || /^\p{N}/u.test(tokens[i + 1])) {
        tok += tokens[++i];
        continue;
      }
      const joined = joinLines([tok, tokens[i + 1]], vocab);
      if (joined.includes(' ')) break;
      tok = joined;
      i++;
    }
    out.push(tok);
  }
  return out.join(' ');
}

const healCellHyphens = (t: Table, vocab: Vocabulary): Table => ({
  ...t,
  rows: t.rows.map((row) => row.map((c) => healCellText(c, vocab))),
  ...(t.cells ? { cells: t.cells.map((row) => row.map((c) => ({ ...c, text: healCellText(c.text, vocab) }))) } : {}),
});

/** A table as Markdown: a pipe table when every cell is its own, else HTML. */
export const renderTable = (t: Table): string =>
  t.cells?.some((row) => row.some((c) => c.colspan > 1 || c.rowspan > 1)) ? tableToHtml(t.cells) : tableToMarkdown(t.rows);

/** Escapes text that Markdown would otherwise read as structure. */
const escapeText = (s: string) => s.replace(/^(#{1,6}\s|>|\d+[.)]\s|[-*+]\s)/, '\\$1');

/** Whether a fragment is set (80% or more of its characters) in a monospaced font. */
export const isMonoFragment = (f: Fragment): boolean => {
  // One run (most fragments): the loop below reduced to it.
  if (f.runs.length === 1) return f.runs[0].text.length > 0 && isMonoFont(f.runs[0].fontId);
  let mono = 0;
  let all = 0;
  for (const r of f.runs) {
    all += r.text.length;
    if (isMonoFont(r.fontId)) mono += r.text.length;
  }
  if (all > 0 && mono >= 0.8 * all) return true;
  // A listing's comment in the text font after a typewriter comment mark (Texinfo's @r{} in
  // @example: "# Extract those elements") is a line of the listing, not prose beside it.
  const first = f.runs[0];
  return f.runs.length > 1 && first !== undefined && /^\s*(?:#|\/\/|;|%|--)(?:\s|$)/.test(first.text) && isMonoFont(first.fontId);
};

/**
 * A code listing as text: rows by baseline, indentation and inner spacing from x-positions
 * in character widths of the monospaced font, a blank line where the listing has one.
 */
function codeToMarkdown(fragments: Fragment[]): string {
  const rows: Fragment[][] = [];
  // The rows of each page, in order: a fragment joins the first row of its page on its baseline.
  const pageRows = new Map<number | undefined, Fragment[][]>();
  for (const f of fragments) {
    let onPage = pageRows.get(f.page);
    if (!onPage) pageRows.set(f.page, (onPage = []));
    const row = onPage.find((r) => Math.abs(r[0].baseline - f.baseline) <= 0.35 * f.size);
    if (row) row.push(f);
    else {
      rows.push([f]);
      onPage.push(rows[rows.length - 1]);
    }
  }
  const charWidth = (f: Fragment) => (f.x1 - f.x0) / Math.max(1, f.text.length);
  // By push, not filter and map: see tocToParts.
  const widths: number[] = [];
  for (const f of fragments) if (f.text.length >= 4) widths.push(charWidth(f));
  widths.sort(ascending);
  const cw = widths[Math.floor(widths.length / 2)] || 6;
  const minX = Math.min(...fragments.map((f) => f.x0));
  // By push, not map and filter: see tocToParts.
  const steps: number[] = [];
  for (let i = 1; i < rows.length; i++) {
    const s = rows[i][0].page === rows[i - 1][0].page ? rows[i][0].baseline - rows[i - 1][0].baseline : 0;
    if (s > 0) steps.push(s);
  }
  steps.sort(ascending);
  const step = steps[0] ?? 0;
  const out: string[] = [];
  // A loop, not rows.forEach with a closure: see readPageModel.
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    row.sort(byX0);
    if (i > 0 && step && row[0].page === rows[i - 1][0].page && row[0].baseline - rows[i - 1][0].baseline > step * 1.6) out.push('');
    let line = '';
    for (const f of row) {
      const col = Math.max(0, Math.round((f.x0 - minX) / cw));
      line += ' '.repeat(Math.max(line ? 1 : 0, col - line.length)) + f.text;
    }
    out.push(line.replace(/\s+$/, ''));
  }
  const fence = out.some((l) => l.includes('```')) ? '~~~' : '```';
  return `${fence}\n${out.join('\n')}\n${fence}`;
}

const SENTENCE_END = '.!?:;';
const CLOSING = '"”’)]';
/**
 * Whether text ends a sentence: /[.!?:;]["”’)\]]?$/ read from the end, where the expression
 * would be tried at every position of a paragraph that grows as its pieces join.
 */
const endsSentence = (text: string): boolean => {
  const last = text.charAt(text.length - 1);
  if (last && SENTENCE_END.includes(last)) return true;
  return !!last && CLOSING.includes(last) && text.length >= 2 && SENTENCE_END.includes(text.charAt(text.length - 2));
};

/**
 * What blockToParts keeps while it walks a block's lines. Its steps are module-level functions
 * over it, not closures: under tsx a named closure costs a defineProperty each time it is made,
 * and this runs for every block.
 */
interface BlockState {
  out: Part[];
  para: string[];
  item: { indent: number; marker: string; text: string[] } | null;
  /** x-positions of the list markers seen, sorted: a marker's index is its nesting level. */
  markerX: number[];
  bold: boolean;
  vocab: Vocabulary;
}

function flushPara(st: BlockState): void {
  if (st.para.length) {
    const text = joinLines(st.para, st.vocab);
    st.out.push(st.bold && text.length <= 120 ? { md: `**${text}**`, kind: 'other' } : { md: escapeText(text), kind: 'para' });
  }
  st.para = [];
}

function flushItem(st: BlockState): void {
  const item = st.item;
  if (item) st.out.push({ md: `${'  '.repeat(item.indent)}${item.marker} ${joinLines(item.text, st.vocab)}`, kind: 'list' });
  st.item = null;
}

function markerLevel(st: BlockState, x: number): number {
  let level = st.markerX.findIndex((mx) => Math.abs(mx - x) < 4);
  if (level < 0) {
    st.markerX.push(x);
    st.markerX.sort(ascending);
    level = st.markerX.indexOf(x);
  }
  return level;
}

/** Renders one text block: a heading, a list run, or a paragraph. */
export function blockToParts(block: Block, headingLevel: number | null, bold: boolean, vocab: Vocabulary): Part[] {
  if (headingLevel) return [{ md: `${'#'.repeat(headingLevel)} ${joinLines(block.lines.map((l) => l.text), vocab)}`, kind: 'heading' }];
  const st: BlockState = { out: [], para: [], item: null, markerX: [], bold, vocab };
  let prev: Fragment | null = null;
  for (const line of block.lines) {
    const bullet = BULLET.exec(line.text);
    let numbered = bullet ? null : NUMBERED.exec(line.text);
    // A number that a paragraph's line happens to start with, the line before ending no sentence:
    // one closing a parenthesis the paragraph opened ("... other than 3 or / 128) causes ..."),
    // or one after a line of a paragraph of two or more that runs to the block's edge.
    if (numbered && prev && st.para.length && !st.item && !endsSentence(prev.text.trimEnd())) {
      const text = st.para.join(' ');
      const open = numbered[2] === ')' && text.split('(').length > text.split(')').length;
      if (open || (st.para.length >= 2 && prev.x1 >= block.x1 - 2 * prev.size)) numbered = null;
    }
    prev = line;
    if (bullet || numbered) {
      flushPara(st);
      flushItem(st);
      const text = bullet ? bullet[2] : numbered![3];
      const marker = bullet ? '-' : /^\d+$/.test(numbered![1]) ? `${numbered![1]}.` : '-';
      st.item = { indent: markerLevel(st, line.x0), marker, text: [text] };
    } else if (st.item && line.x0 > (st.markerX[st.item.indent] ?? line.x0) + 3) {
      // Indented past the marker: the item's text wraps onto this line.
      st.item.text.push(line.text);
    } else {
      flushItem(st);
      st.markerX = [];
      st.para.push(line.text);
    }
  }
  flushItem(st);
  flushPara(st);
  return st.out;
}

/** Table-of-contents lines as list items, nested by their indentation. */
function tocToParts(lines: Fragment[], vocab: Vocabulary): Part[] {
  // Loops and push, not map: an array made by map is packed from the builtin and holey from
  // TurboFan's inlined map, and the code reading these deoptimized on each kind ("wrong map").
  const indents = new Set<number>();
  for (const l of lines) indents.add(Math.round(l.x0 / 4));
  const xs = [...indents].sort(ascending);
  const parts: Part[] = [];
  for (const l of lines) {
    const m = TOC_LINE.exec(l.text);
    const title = joinLines([m ? m[1].replace(/\s*\.$/, '') : l.text], vocab);
    const page = m?.[2] ? ` (${/[,–-]/.test(m[2]) ? 'pages' : 'page'} ${m[2]})` : '';
    parts.push({ md: `${'  '.repeat(Math.min(3, xs.indexOf(Math.round(l.x0 / 4))))}- ${title}${page}`, kind: 'toc' });
  }
  return parts;
}

/** The block cut where lines change between a monospaced font and another, each part with its own box. */
export function segments(block: Block): Block[] {
  const out: Fragment[][] = [];
  let cur: Fragment[] = [];
  // Whether cur[0] is monospaced, tested once per segment rather than again for every line.
  let curMono = false;
  for (const l of block.lines) {
    const mono = isMonoFragment(l);
    if (cur.length && mono !== curMono) {
      out.push(cur);
      cur = [];
    }
    if (!cur.length) curMono = mono;
    cur.push(l);
  }
  if (cur.length) out.push(cur);
  // A name in a typewriter font that ends up alone on a prose line ("... compatibility with /
  // longtable.") is the paragraph's last words, not a listing: one short monospaced line, at
  // the paragraph's left edge, after a line with no sentence end, ending in punctuation, stays
  // in the text.
  for (let i = 1; i < out.length; i++) {
    const [line] = out[i];
    const prev = out[i - 1];
    const last = prev[prev.length - 1];
    if (out[i].length !== 1 || isMonoFragment(prev[0]) || endsSentence(last.text) || line.text.trim().split(/\s+/).length > 3) continue;
    // It ends as prose does (a full stop or comma, perhaps a footnote mark): a listing's line does not.
    if (!/[.,;:!?]["'’”)\]]?\d?$/.test(line.text.trim())) continue;
    if (Math.abs(line.x0 - Math.min(...prev.map((l) => l.x0))) > 2) continue;
    prev.push(line, ...(out[i + 1] ?? []));
    out.splice(i, out[i + 1] ? 2 : 1);
    i--;
  }
  if (out.length === 1) return [block];
  return out.map((lines) => ({
    lines,
    x0: Math.min(...lines.map((l) => l.x0)),
    x1: Math.max(...lines.map((l) => l.x1)),
    top: Math.min(...lines.map((l) => l.top)),
    bottom: Math.max(...lines.map((l) => l.bottom)),
    size: lines[0].size,
    fontId: lines[0].fontId,
  }));
}

interface PageModel {
  frameHeight: number;
  fragments: Fragment[];
  tables: Table[];
}

/**
 * Pass 1 for one page: its fragments (each marked with its page) and ruled tables. (At module
 * level, as is pageItems: closures made inside pdfMd were compiled again for every document,
 * since V8 drops a closure's optimized code once its closures are collected.)
 */
function readPageModel(page: PdfPage, pageNumber: number): PageModel {
  const { frame, fragments, rules } = readPageText(page);
  for (const f of fragments) f.page = pageNumber;
  const tables = fragments.length ? findTables(readRulings(page, frame, rules), fragments, isMonoFragment) : [];
  return { frameHeight: frame.height, fragments, tables };
}

const isTocFragment = (f: Fragment): boolean => isTocLine(f.text);

/**
 * A contents list without dot leaders (LaTeX's section lines, "1 Introduction" with its page
 * number at the right margin, the subsections' lines with leaders between them) read as one
 * with them: a title and a page number alone on its right, three or more such lines on the
 * page with their numbers ending at one right edge and rising down the page, are one line
 * "title . . . . 7", which the contents rendering then takes. Elsewhere the fragments are
 * returned as they are (a table's last column of numbers does not rise row by row, or has
 * other cells in its rows).
 */
function withContentsLeaders(fragments: Fragment[]): Fragment[] {
  const numbers: Fragment[] = [];
  for (const f of fragments) if (/^(?:\d{1,4}|[ivxlc]{1,6})$/i.test(f.text.trim())) numbers.push(f);
  if (!numbers.length) return fragments;
  // Each number's title: the one other fragment on its baseline, left of it and a gap apart.
  const pairs: { title: Fragment; number: Fragment }[] = [];
  for (const n of numbers) {
    let title: Fragment | null = null;
    let others = 0;
    for (const f of fragments) {
      if (f === n || Math.abs(f.baseline - n.baseline) > 1) continue;
      others++;
      if (f.x1 < n.x0 - f.size) title = f;
    }
    // (A title may bring its leader, the number standing apart: "5.8 Option pdfinfo . . . ." "16".)
    if (title && others === 1 && /^[\p{Lu}\d]/u.test(title.text) && (!isTocLine(title.text) || /\.\s*$/.test(title.text))) pairs.push({ title, number: n });
  }
  // Right-aligned at one edge, three or more, page numbers that never fall going down.
  const edge = median(pairs.map((p) => p.number.x1));
  const list = pairs.filter((p) => Math.abs(p.number.x1 - edge) <= 2).sort((a, b) => a.number.baseline - b.number.baseline);
  if (list.length < 3 && !shortContents(list)) return fragments;
  const value = (f: Fragment) => (/^\d+$/.test(f.text.trim()) ? Number(f.text.trim()) : -1);
  for (let i = 1; i < list.length; i++) if (value(list[i].number) < value(list[i - 1].number)) return fragments;
  const drop = new Set<Fragment>();
  const joined = new Map<Fragment, Fragment>();
  for (const { title, number } of list) {
    drop.add(number);
    joined.set(title, { ...title, text: `${title.text}${/\.\s*$/.test(title.text) ? ' ' : ' . . . . '}${number.text.trim()}`, x1: number.x1 });
  }
  const out: Fragment[] = [];
  for (const f of fragments) if (!drop.has(f)) out.push(joined.get(f) ?? f);
  return out;
}

/**
 * A contents list of one or two lines (a short document's two sections): fewer lines than
 * withContentsLeaders asks for, so more of each: titles that open with section numbers in
 * sequence from 1 ("1 Sowing", "2 Harvest": the whole list of a short document), each page
 * number well apart from its title.
 */
function shortContents(list: { title: Fragment; number: Fragment }[]): boolean {
  if (!list.length) return false;
  let last = 0;
  for (const { title, number } of list) {
    const n = Number(/^(\d{1,2})\s+\p{Lu}/u.exec(title.text)?.[1] ?? NaN);
    if (n !== last + 1 || number.x0 - title.x1 < 3 * title.size) return false;
    last = n;
  }
  return true;
}
const isTocRow = (row: Fragment[]): boolean => row.some(isTocFragment);

/**
 * A "table" the rules of a page of prose and framed listings make (MuPDF's HTML: a rule over
 * each heading, a frame round each <pre>, as wide as the text): its lines of prose stand alone
 * in their rows, only its listing lines have pieces side by side (cut where a name's colour
 * changes). Its text is read as text.
 */
export function ruledProse(t: Table, fragments: Fragment[]): boolean {
  const rows = new Map<number, Fragment[]>();
  for (const f of fragments) {
    const x = (f.x0 + f.x1) / 2;
    const y = f.baseline - f.size * 0.3;
    if (x <= t.x0 || x >= t.x1 || y <= t.top || y >= t.bottom) continue;
    const key = Math.round(f.baseline);
    const row = rows.get(key);
    if (row) row.push(f);
    else rows.set(key, [f]);
  }
  let listing = false;
  let prose = false;
  for (const row of rows.values()) {
    if (row.every(isMonoFragment)) listing = true;
    else if (row.length > 1) return false;
    else prose = true;
  }
  return listing && prose;
}

/** Pass 2 for one page: its reading order, blocks and tables, furniture left out; null for a page without text. */
function pageItems(model: PageModel | null | undefined, furniture: Set<Fragment>, bodySize: number): PageItem[] | null {
  if (!model || !model.fragments.length) return null;
  // The fragment and table lists by push, not .filter: a filter's result changes its elements
  // kind with the tier of the code that made it (none kept: a Smi array), and this function
  // deoptimized 'wrong map' on them, to be compiled again (V8 recompile churn).
  const unfurnished: Fragment[] = [];
  for (const f of model.fragments) if (!furniture.has(f)) unfurnished.push(f);
  const kept = withContentsLeaders(unfurnished);
  // Tables without rules, from x-positions. Where one overlaps a ruled table, the one with
  // more columns wins (unless the ruled one has spanning cells): rules that frame only part of a table (FHS's man page table) would
  // otherwise scatter its other columns.
  let aligned = findAlignedTables(kept, bodySize, isTocRow, isMonoFragment);
  const overlaps = (a: Table, b: Table) => a.x0 < b.x1 && b.x0 < a.x1 && a.top < b.bottom && b.top < a.bottom;
  const width = (t: Table) => Math.max(0, ...t.rows.map((r) => r.length));
  // A ruled table whose cells span (its rules say which) keeps them: x-positions cannot tell.
  // (Only one reaching past the ruled one's sides: within them, the rules and the whitespace
  // between them part the columns, and a centred column's cells start at many x-positions.)
  const past = (a: Table, t: Table) => a.x0 < t.x0 - 2 || a.x1 > t.x1 + 2;
  const ruled: Table[] = [];
  // (Nor one of lists set side by side with a rule between them: x-positions across the rule
  // line up rows of different lists.)
  for (const t of model.tables) if (!ruledProse(t, kept) && (t.cells || t.beside || !aligned.some((a) => overlaps(a, t) && width(a) > width(t) && past(a, t)))) ruled.push(t);
  const alignedKept: typeof aligned = [];
  for (const a of aligned) if (!ruled.some((t) => overlaps(a, t))) alignedKept.push(a);
  aligned = alignedKept;
  const inRuled = (f: Fragment) => ruled.some((t) => (f.x0 + f.x1) / 2 > t.x0 && (f.x0 + f.x1) / 2 < t.x1 && f.baseline - f.size * 0.3 > t.top && f.baseline - f.size * 0.3 < t.bottom);
  const inAligned = new Set(aligned.flatMap((t) => t.fragments));
  const outside: Fragment[] = [];
  for (const f of kept) if (!inRuled(f)) outside.push(f);
  // By push, not map: see tocToParts.
  const tables: Table[] = [...ruled];
  for (const { fragments: _, ...t } of aligned) tables.push(t);
  const inText: Fragment[] = [];
  for (const f of outside) if (!inAligned.has(f)) inText.push(f);
  const notes = footnotesOf(inText, bodySize, model.frameHeight);
  let fragments = inText;
  if (notes.size) {
    fragments = [];
    for (const f of inText) if (!notes.has(f)) fragments.push(f);
  }
  // The fragments are placed as they are (their boxes), the tables as boxes holding them.
  type Placed = Fragment | (Box & { table: Table });
  // By push, not map: see tocToParts.
  const placed: Placed[] = [...fragments];
  for (const t of tables) placed.push({ x0: t.x0, x1: t.x1, top: t.top, bottom: t.bottom, baseline: t.bottom, size: (t.bottom - t.top) / 0.85, table: t });
  const items: PageItem[] = [];
  let run: Fragment[] = [];
  const flush = () => {
    for (const block of buildBlocks(run)) items.push({ kind: 'text', block, bold: isBoldFont(fontNameOf(block.fontId)) });
    run = [];
  };
  for (const p of readingOrder(placed)) {
    if ('table' in p) {
      flush();
      items.push({ kind: 'table', table: p.table });
    } else run.push(p);
  }
  flush();
  // Footnotes go after the page's text, so a paragraph that runs past them stays whole.
  if (notes.size) for (const block of buildBlocks(readingOrder([...notes]))) items.push({ kind: 'text', block, bold: false, note: true });
  return items;
}

/** What renderPage needs of the whole document (see pdfMd). */
interface RenderContext {
  out: Part[];
  anchors: boolean;
  vocab: Vocabulary;
  body: number;
  codeWanted: boolean;
  outline: HeadingOutline | null;
  headingSizes: number[];
  /** pageStart: the page's anchor (null when anchors are off); newPage: the part is its page's first. */
  push: (part: Part, pageStart: string | null, newPage: boolean) => void;
  isToc: (b: Block) => boolean;
  segmentsOf: (b: Block) => Block[];
  headingLevel: (seg: Block, it: { bold: boolean; note?: boolean }, page: number) => number | null;
}

/**
 * One page's items as Markdown parts onto ctx.out. (At module level, not a closure in pdfMd: V8
 * drops a closure's optimized code once its closures are collected, so as a closure made per
 * document it was compiled again for every document.)
 */
function renderPage(ctx: RenderContext, items: PageItem[] | null, pageNumber: number): void {
  if (!items) {
    ctx.out.push({ md: `<!-- page ${pageNumber}: no text layer (image-only or unreadable page) -->`, kind: 'other' });
    return;
  }
  let pageStart: string | null = ctx.anchors ? `<!-- page ${pageNumber} -->` : null;
  // (Apart from the anchor: without anchors a table cut by the page break is still joined.)
  let newPage = true;
  const emit = (part: Part) => {
    ctx.push(part, pageStart, newPage);
    pageStart = null;
    newPage = false;
  };
  let code: Fragment[] = [];
  let toc: Fragment[] = [];
  // The page's first text: a bold title line there is the page's (a slide's) heading.
  let firstText = true;
  const titles = ctx.outline ? null : titlesOverParagraphs(items, ctx.body);
  const flushCode = () => {
    if (code.length) emit({ md: '', kind: 'code', code: [code] });
    code = [];
  };
  const flushToc = () => {
    for (const p of tocToParts(toc, ctx.vocab)) emit(p);
    toc = [];
  };
  for (const it of items) {
    if (it.kind === 'table') {
      flushCode();
      flushToc();
      if (it.table.rows.length) {
        const table = healCellHyphens(it.table, ctx.vocab);
        emit({ md: renderTable(table), kind: 'table', table });
      }
      continue;
    }
    if (ctx.isToc(it.block)) {
      flushCode();
      toc.push(...it.block.lines);
      continue;
    }
    flushToc();
    // A footnote mark set apart from its line (a small lone number, as FOP sets them) goes
    // back to the end of the paragraph before it, as a Markdown footnote reference.
    const only = it.block.lines.length === 1 ? it.block.lines[0].text.trim() : '';
    if (/^\d{1,3}$/.test(only) && it.block.size < 0.85 * ctx.body) {
      const prev = ctx.out[ctx.out.length - 1];
      if (prev?.kind === 'para') prev.md += `[^${only}]`;
      continue;
    }
    // A block may hold prose and a listing (the spacing alone did not part them): split at font changes.
    for (const seg of ctx.segmentsOf(it.block)) {
      if (ctx.codeWanted && seg.lines.every(isMonoFragment)) {
        code.push(...seg.lines);
        continue;
      }
      flushCode();
      let level = ctx.headingLevel(seg, it, pageNumber);
      if (level === null && !it.note) level = sectionSequel(ctx.out, seg);
      if (level === null && !ctx.outline && firstText && !it.note && titleLike(seg, it.bold)) level = Math.min(3, Math.min(ctx.headingSizes.length, 2) + 1);
      // An unnumbered bold title at the body size over its paragraph: below the sized headings.
      if (level === null && seg === it.block && titles?.has(it.block)) level = Math.min(6, Math.min(ctx.headingSizes.length, 3) + 1);
      firstText = false;
      for (const p of blockToParts(seg, level, it.bold, ctx.vocab)) emit(it.note && p.kind === 'para' ? { ...p, kind: 'note' } : p);
    }
  }
  flushCode();
  flushToc();
  if (pageStart) ctx.out.push({ md: pageStart, kind: 'other' });
}

/**
 * The table's last row completed by the rest of it the page break carried over (restOfCutRow):
 * each cell's two parts joined as the lines of a cell are. Null when a cell the rest fills
 * is not one of the last row's own (it spans from a row above, or over several columns).
 */
function completeCutRow(rows: string[][], rest: string[], cells: GridCell[][] | undefined, restCells: GridCell[] | undefined, vocab: Vocabulary): { rows: string[][]; cells?: GridCell[][] } | null {
  const last = rows[rows.length - 1];
  const joined: string[] = [];
  for (let k = 0; k < last.length; k++) joined.push(rest[k] ? healCellText(`${last[k]} ${rest[k]}`, vocab) : last[k]);
  if (!cells) return { rows: [...rows.slice(0, -1), joined] };
  const lastCells = cells[cells.length - 1];
  const merged: GridCell[] = [];
  for (const c of lastCells) merged.push({ ...c });
  for (const c of restCells ?? []) {
    if (!c.text) continue;
    const into = merged.find((m) => m.col === c.col && m.colspan === c.colspan && m.rowspan === 1);
    if (!into || c.rowspan !== 1) return null;
    into.text = healCellText(`${into.text} ${c.text}`, vocab);
  }
  return { rows: [...rows.slice(0, -1), joined], cells: [...cells.slice(0, -1), merged] };
}

export async function pdfMd(doc: PdfDocument, onProgress?: ProgressFn, options: PdfMdOptions = {}): Promise<PdfMdResult> {
  // The parts are made with their pages' anchors either way (the joins across a page break look
  // for them: a longtable's parts, a sentence round a float); without anchors they go at the end.
  const anchors = true;
  // Pass 1: each page's fragments and ruled tables. Furniture and vocabulary need the whole document.
  const visits = await mapPages(doc, readPageModel, onProgress);
  // By push, not map: see tocToParts.
  const furniturePages: { height: number; fragments: Fragment[] }[] = [];
  for (const v of visits) furniturePages.push({ height: v.value?.frameHeight ?? 0, fragments: v.value?.fragments ?? [] });
  // (The outline tells subsections that open pages from headers that change with every page.)
  const furniture = findFurniture(furniturePages, doc.outline());
  const vocab = new Vocabulary();
  for (const v of visits) for (const f of v.value?.fragments ?? []) if (!furniture.has(f)) vocab.addLine(f.text);

  // Body text size (by characters), for telling columns of prose from tables.
  const bodyChars = new Map<number, number>();
  for (const v of visits) for (const f of v.value?.fragments ?? []) bodyChars.set(Math.round(f.size), (bodyChars.get(Math.round(f.size)) ?? 0) + f.text.length);
  const bodySize = [...bodyChars.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 10;

  // Pass 2: reading order and blocks of what remains.
  // By push, not map: an array made by map is packed from the builtin and holey from TurboFan's
  // inlined map, and pdfMd deoptimized on each kind ("wrong map") as its tier changed.
  const pages: (PageItem[] | null)[] = [];
  for (const v of visits) pages.push(pageItems(v.value, furniture, bodySize));

  // Heading levels from the document-wide size hierarchy (table-of-contents and code lines aside).
  const isToc = (b: Block) => b.lines.some(isTocFragment);
  const isCode = (b: Block) => b.lines.every(isMonoFragment);
  const textBlocks = pages.flatMap((items) => (items ?? []).flatMap((it) => (it.kind === 'text' ? [it.block] : [])));
  const monoChars = textBlocks.reduce((n, b) => n + (isCode(b) ? b.lines.reduce((k, l) => k + l.text.length, 0) : 0), 0);
  const allChars = textBlocks.reduce((n, b) => n + b.lines.reduce((k, l) => k + l.text.length, 0), 0);
  // A document set wholly in a typewriter font has no code to tell apart from its prose.
  const codeWanted = monoChars < 0.5 * allChars;
  const body = mostUsedSize(textBlocks.flatMap((b) => b.lines));
  // A loop into the set, not new Set(filter().map()): that expression deoptimized pdfMd ("wrong
  // map") on nearly every document, and each time TurboFan recompiled all of pdfMd.
  const blockSizes = new Set<number>();
  for (const b of textBlocks) if (b.lines.length <= 3 && !isToc(b)) blockSizes.add(Math.round(b.size * 2) / 2);
  const headingSizes = [...blockSizes]
    .filter((s) => s >= body * 1.15)
    .sort((a, b) => b - a);
  const levelOf = (size: number): number | null => {
    const i = headingSizes.indexOf(Math.round(size * 2) / 2);
    return i < 0 ? null : Math.min(i + 1, 3);
  };
  // A bold numbered line at body size ("1. Introduction", "3.2 Naming"): a heading below the
  // sized ones, one level deeper per number.
  const numberedLevel = (b: Block, bold: boolean): number | null => {
    if (!bold || b.lines.length > 2) return null;
    const text = b.lines.map((l) => l.text).join(' ');
    const m = SECTION_NUMBER.exec(text);
    if (!m || text.length > 90 || /[.:;,]$/.test(text)) return null;
    return Math.min(6, Math.min(headingSizes.length, 3) + m[1].split('.').length);
  };

  // The outline (bookmarks), when the document has one that names its headings: a block whose
  // text is a bookmark's title on the bookmark's page is a heading at the bookmark's depth;
  // other lines the sizes would make headings are not (a date under the title, a caption).
  // Each block's segments, cut once: the outline's matching and the rendering both walk them.
  const segmentCache = new Map<Block, Block[]>();
  const segmentsOf = (b: Block): Block[] => {
    let segs = segmentCache.get(b);
    if (!segs) segmentCache.set(b, (segs = codeWanted ? segments(b) : [b]));
    return segs;
  };
  const outline = headingOutline(doc, pages, segmentsOf, isToc, body);
  const boldSubheading = outline ? null : boldSubheadings(pages, segmentsOf, body);
  // Bold numbered lines by font and size: an outline that stops at a depth (fontspec's bookmarks
  // reach "3.1", its text goes on to "3.1.3 Contextuals") or names other headings than a series
  // of numbered ones ("9. ILib3MFModelBaseMaterial" under a bookmarked "COM Interfaces") leaves
  // them out; three or more in one style are headings all the same. (Not a line of the
  // contents, a page number to its right on its baseline.)
  const numberedStyles = outline ? numberedSeries(pages, segmentsOf, numberedLevel) : null;
  // Their level: as many below the bookmarked numbered headings' as their number is longer
  // ("3.1.3" under a bookmarked "3.1" at level 3 is at level 4).
  const shift = outline ? numberedShift(pages, segmentsOf, outline) : 0;
  const headingLevel = (seg: Block, it: { bold: boolean; note?: boolean }, page: number): number | null => {
    if (it.note || seg.lines.length > 3) return null;
    const sized = levelOf(seg.size) ?? numberedLevel(seg, it.bold) ?? (boldSubheading?.(seg, it.bold) ? Math.min(6, Math.min(headingSizes.length, 3) + 1) : null);
    // A date under the title is set large but names no section (the title page's \date).
    if (sized !== null && sized > 1 && page === 1 && isTitlePageDate(seg)) return null;
    if (!outline) return sized;
    const depth = outline.depthOf(seg, page, it.bold);
    if (depth !== null) return Math.min(6, depth + outline.offset);
    const numbered = numberedLevel(seg, it.bold);
    if (numbered !== null && numberedStyles && !numberedStyles.contents.has(seg.lines[0]) && (numberedStyles.counts.get(styleOf(seg.lines[0])) ?? 0) >= 3) return Math.max(1, Math.min(6, numberDepth(seg) + shift));
    // The document's title (the first page's largest block, not bookmarked) stays a heading.
    const t = outline.title;
    return t && page === t.page && Math.abs(seg.size - t.size) < 0.25 ? 1 : null;
  };

  const out: Part[] = [];
  const push = (part: Part, pageStart: string | null, newPage: boolean) => {
    // Footnotes stand after their page's text: a paragraph that goes on past them joins the
    // paragraph before them.
    let prev = out[out.length - 1];
    if (part.kind === 'para' && prev?.kind === 'note') {
      const before = out.findLast((p) => p.kind !== 'note' && !isPageAnchor(p));
      if (before?.kind === 'para') prev = before;
    }
    // A paragraph cut by a column or page break: no sentence end before, lower case after.
    if (prev && prev.kind === 'para' && part.kind === 'para' && !endsSentence(prev.md) && /^[a-z(]/.test(part.md)) {
      if (prev !== out[out.length - 1]) pageStart = null;
      prev.md = joinAcrossBreak(prev.md, part.md, pageStart, vocab);
      return;
    }
    // A paragraph cut by a page break whose next page opens with a float (a table and its
    // caption) before the rest of the sentence: the sentence is joined whole, the float follows
    // it, the page's anchor at the join.
    // (Not a float's note under it, "a footnotes are placed under the table": a mark, a space.)
    if (part.kind === 'para' && prev && prev.kind !== 'para' && /^[a-z(]/.test(part.md) && !/^[a-z]\s/.test(part.md)) {
      const at = floatOpening(out);
      if (at) {
        const { before, anchor } = at;
        before.md = joinAcrossBreak(before.md, part.md, anchor.md, vocab);
        out.splice(out.indexOf(anchor), 1);
        if (pageStart) out.push({ md: pageStart, kind: 'other' });
        return;
      }
    }
    // A table cut by a page break stays one table.
    if (part.kind === 'table' && part.table && newPage) {
      // (Past the anchors of pages the table filled whole: a table over three pages and more.)
      const before = out.findLast((p) => p.kind !== 'note' && !isPageAnchor(p));
      const shift = before?.kind === 'table' && before.table ? continuationShift(before.table, part.table) : null;
      if (before?.table && shift !== null) {
        // (A foot line under the part before, read as a footnote, goes with the break.)
        if (repeatsHeader(before.table, part.table)) for (const p of footLinesBetween(out, before)) out.splice(out.indexOf(p), 1);
        appendTable(before, shiftTable(part.table, shift, before.table.rows[0]?.length ?? 0), vocab);
        if (pageStart) out.push({ md: pageStart, kind: 'other' });
        return;
      }
    }
    // So does one whose parts a line of its own follows at the foot of the page and precedes at
    // the top of the next (a longtable's foot and head, "Continued on next page" / "Continued
    // from previous page", over its header repeated): those lines, the table's at every break,
    // go with the break.
    if (part.kind === 'table' && part.table) {
      const continued = continuedPast(out, part.table);
      if (continued) {
        for (const p of continued.lines) out.splice(out.indexOf(p), 1);
        appendTable(continued.before, part.table, vocab);
        // (The page's anchor when the part opens it: no head line above it brought the anchor.)
        if (pageStart) out.push({ md: pageStart, kind: 'other' });
        return;
      }
    }
    // A listing cut by a page break stays one fenced block.
    if (prev && prev.kind === 'code' && part.kind === 'code' && prev.code && part.code) {
      // Rendered once at the end, from all its pages' fragments (not again on every page).
      prev.code.push(...part.code);
      return;
    }
    // Consecutive list items split into blocks by spacing stay one list.
    if (prev && (prev.kind === 'list' || prev.kind === 'toc') && prev.kind === part.kind && !pageStart) {
      prev.md = `${prev.md}\n${part.md}`;
      return;
    }
    if (pageStart) out.push({ md: pageStart, kind: 'other' });
    out.push(part);
  };
  // Pass 3: each page's items as Markdown parts (renderPage).
  const ctx: RenderContext = { out, anchors, vocab, body, codeWanted, outline, headingSizes, push, isToc, segmentsOf, headingLevel };
  for (let i = 0; i < pages.length; i++) renderPage(ctx, pages[i], visits[i].pageNumber);
  const markdown = partsToMarkdown(out, options.pageAnchors ?? true);
  return { markdown, pages: doc.numPages, page_count: doc.numPages };
}

/**
 * Level minus number length of the bookmarked headings that start with a section number,
 * the most frequent; the outline's offset plus one where none does.
 */
function numberedShift(pages: (PageItem[] | null)[], segmentsOf: (b: Block) => Block[], outline: HeadingOutline): number {
  const counts = new Map<number, number>();
  pages.forEach((items, i) => {
    for (const it of items ?? []) {
      if (it.kind !== 'text' || it.note) continue;
      for (const seg of segmentsOf(it.block)) {
        if (!SECTION_NUMBER.test(seg.lines[0].text)) continue;
        const depth = outline.depthOf(seg, seg.lines[0].page ?? i + 1, it.bold);
        if (depth === null) continue;
        const d = depth + outline.offset - numberDepth(seg);
        counts.set(d, (counts.get(d) ?? 0) + 1);
      }
    }
  });
  let best = outline.offset + 1;
  let most = 0;
  for (const [d, n] of counts) if (n > most) [best, most] = [d, n];
  return best;
}

/**
 * A line numbered as the next section under the last heading, or beside it ("8.5.1.2. Times"
 * after "8.5.1. Date/Time Input" or after "8.5.1.1. Dates"), is a heading one level below it or
 * at its level, however it is set (a browser's small grey sans-serif subheadings): section
 * numbers say what typography may not. Null for anything else.
 */
function sectionSequel(out: Part[], seg: Block): number | null {
  if (seg.lines.length !== 1) return null;
  const text = seg.lines[0].text.trim();
  const m = /^((?:\d{1,3}\.)+\d{1,3}|\d{1,3})\.?\s+\p{Lu}/u.exec(text);
  if (!m || text.length > 80 || /[.:;,]$/.test(text)) return null;
  let last: Part | undefined;
  for (let i = out.length - 1; i >= 0 && !last; i--) if (out[i].kind === 'heading') last = out[i];
  const h = last && /^(#+)\s+((?:\d{1,3}\.)*\d{1,3})\.?\s/.exec(last.md);
  if (!h) return null;
  const mine = m[1].split('.');
  const theirs = h[2].split('.');
  const level = h[1].length;
  const same = (n: number) => theirs.slice(0, n).join('.') === mine.slice(0, n).join('.');
  if (mine.length === theirs.length + 1 && same(theirs.length) && Number(mine[mine.length - 1]) === 1) return Math.min(6, level + 1);
  if (mine.length === theirs.length && same(theirs.length - 1) && Number(mine[mine.length - 1]) === Number(theirs[theirs.length - 1]) + 1) return level;
  return null;
}

/**
 * Where the parts end in a float that opened a page: a paragraph that does not end a sentence,
 * then that page's anchor, then only tables and captions (four parts at most). The paragraph
 * and the anchor; null otherwise.
 */
function floatOpening(out: Part[]): { before: Part; anchor: Part } | null {
  let anchor: Part | null = null;
  let floats = 0;
  for (let i = out.length - 1; i >= 0 && i >= out.length - 5; i--) {
    const p = out[i];
    if (p.kind === 'table' || (p.kind === 'para' && CAPTION_LINE.test(p.md))) {
      if (anchor) return null;
      floats++;
      continue;
    }
    if (isPageAnchor(p)) {
      if (anchor || !floats) return null;
      anchor = p;
      continue;
    }
    return anchor && p.kind === 'para' && !endsSentence(p.md) ? { before: p, anchor } : null;
  }
  return null;
}

/** A fragment's font and size, to tell lines set alike. */
const styleOf = (f: Fragment): string => `${f.fontId}|${Math.round(f.size * 2) / 2}`;

/** How many numbers a block's section number has ("3.1.3 Contextuals": 3). */
const numberDepth = (b: Block): number => (SECTION_NUMBER.exec(b.lines[0].text)?.[1].split('.').length ?? 1);

/** A section number opening a title: "3.2 Naming", "1. Introduction". */
const SECTION_NUMBER = /^((?:\d{1,2}\.)*\d{1,2})\.?\s+\p{Lu}/u;

/**
 * How many blocks of the document are bold numbered lines, by font and size; lines of a
 * contents list (a page number on their baseline, right of them) left out and not counted.
 */
function numberedSeries(pages: (PageItem[] | null)[], segmentsOf: (b: Block) => Block[], numberedLevel: (b: Block, bold: boolean) => number | null): { counts: Map<string, number>; contents: Set<Fragment> } {
  const counts = new Map<string, number>();
  const contents = new Set<Fragment>();
  for (const items of pages) {
    const numbers: Fragment[] = [];
    for (const it of items ?? []) if (it.kind === 'text') for (const l of it.block.lines) if (/^\d{1,4}$/.test(l.text.trim())) numbers.push(l);
    for (const it of items ?? []) {
      if (it.kind !== 'text' || it.note) continue;
      for (const seg of segmentsOf(it.block)) {
        if (numberedLevel(seg, it.bold) === null) continue;
        const first = seg.lines[0];
        if (numbers.some((n) => Math.abs(n.baseline - first.baseline) <= 1 && n.x0 > first.x1)) {
          contents.add(first);
          continue;
        }
        const key = styleOf(seg.lines[0]);
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
  }
  return { counts, contents };
}

/**
 * Bold lines set a little larger than the text (1.05 to 1.15 times it: LaTeX's \subsection at
 * 11pt is 12pt over 10.95pt), short, no list item and no sentence end, two or more in one font
 * and size: headings a level below the sized ones (for a document without a usable outline).
 * Not in a style that numbers its headings elsewhere ("8.5.1. Date/Time Input"): its lines
 * without a number are labels ("Note", "Caution" over a box). The test for one segment.
 */
function boldSubheadings(pages: (PageItem[] | null)[], segmentsOf: (b: Block) => Block[], body: number): (seg: Block, bold: boolean) => boolean {
  const candidate = (b: Block, bold: boolean): boolean => {
    if (!bold || b.lines.length > 2 || b.size < body * 1.05 || b.size >= body * 1.15 || LIST_LINE.test(b.lines[0].text)) return false;
    const text = b.lines.map((l) => l.text).join(' ');
    return text.length <= 90 && !/[.:;,]$/.test(text) && !isTocLine(text) && b.lines.every((l) => styleOf(l) === styleOf(b.lines[0]));
  };
  const counts = new Map<string, number>();
  const numbered = new Set<string>();
  for (const items of pages) {
    for (const it of items ?? []) {
      if (it.kind !== 'text' || it.note) continue;
      for (const seg of segmentsOf(it.block)) {
        if (!candidate(seg, it.bold)) continue;
        const style = styleOf(seg.lines[0]);
        if (SECTION_NUMBER.test(seg.lines[0].text)) numbered.add(style);
        else counts.set(style, (counts.get(style) ?? 0) + 1);
      }
    }
  }
  return (seg, bold) => candidate(seg, bold) && !numbered.has(styleOf(seg.lines[0])) && (counts.get(styleOf(seg.lines[0])) ?? 0) >= 2;
}

/** A title compared with a bookmark's: no section number ("2.2", "Chapter 3."), case, punctuation or spacing. */
const titleKey = (s: string): string =>
  s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/^\s*(?:chapter|appendix|section|part)\s+/, '')
    .replace(/^\s*(?:\d+|[a-z]|[ivxlc]+)(?:\.\d+)*\.?\s+/, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

interface HeadingOutline {
  /** The depth of the bookmark naming this block on this page (or the next or previous), else null. */
  depthOf(block: Block, page: number, bold: boolean): number | null;
  /** Levels below the document's title when the title is not itself bookmarked. */
  offset: number;
  /** The document's title (page and size), when it is not bookmarked itself. */
  title: { page: number; size: number } | null;
}

/**
 * The outline as heading evidence, or null when the document has none or its bookmarks do not
 * name the text's headings (fewer than half found on their pages: an outline of pages, of
 * slides, or of titles that differ from the text).
 */
function headingOutline(doc: PdfDocument, pages: (PageItem[] | null)[], segmentsOf: (b: Block) => Block[], isToc: (b: Block) => boolean, body: number): HeadingOutline | null {
  const entries = doc.outline().filter((e) => e.page !== null && titleKey(e.title));
  if (entries.length < 3) return null;
  const byKey = new Map<string, typeof entries>();
  // find() runs on every short block, twice (matching, then rendering): one key per text.
  const keys = new Map<string, string>();
  const keyOf = (text: string): string => {
    let k = keys.get(text);
    if (k === undefined) keys.set(text, (k = titleKey(text)));
    return k;
  };
  for (const e of entries) {
    const k = titleKey(e.title);
    if (!byKey.has(k)) byKey.set(k, []);
    byKey.get(k)!.push(e);
  }
  // A heading stands out (bold or larger than body text) and is no list item: "— symbolic
  // names;" in a list names a section too.
  const find = (b: Block, page: number, bold: boolean) => {
    if (b.lines.length > 3 || !(bold || b.size >= body * 1.1) || LIST_LINE.test(b.lines[0].text)) return undefined;
    const list = byKey.get(keyOf(b.lines.map((l) => l.text).join(' ')));
    return list?.find((e) => e.page === page) ?? list?.find((e) => Math.abs(e.page! - page) <= 1);
  };
  // Each bookmark names one block: of the blocks that read as its title (a contents line set
  // bold, the heading itself), the largest.
  const matched = new Map<(typeof entries)[number], Fragment>();
  let matchedSize = 0;
  pages.forEach((items, i) => {
    for (const it of items ?? []) {
      if (it.kind !== 'text' || it.note || isToc(it.block)) continue;
      for (const seg of segmentsOf(it.block)) {
        const e = find(seg, seg.lines[0].page ?? i + 1, it.bold);
        if (e && !seg.lines.every(isMonoFragment)) {
          const best = matched.get(e);
          if (!best || seg.size > best.size + 0.25) matched.set(e, seg.lines[0]);
          matchedSize = Math.max(matchedSize, seg.size);
        }
      }
    }
  });
  if (matched.size < 0.5 * entries.length) return null;
  // A title larger than every bookmarked heading, itself not bookmarked, sits above them all:
  // the largest such block of the first page with text (large type further on is a figure's,
  // a demonstration's, never the document's title).
  let title: { page: number; size: number } | null = null;
  const first = pages.findIndex((items) => (items ?? []).some((it) => it.kind === 'text'));
  for (const it of pages[first] ?? []) {
    if (it.kind !== 'text' || it.note || it.block.size <= matchedSize * 1.15 || it.block.lines.length > 3) continue;
    if (find(it.block, it.block.lines[0].page ?? first + 1, it.bold)) continue;
    if (!title || it.block.size > title.size) title = { page: first + 1, size: it.block.size };
  }
  const minDepth = Math.min(...[...matched.keys()].map((e) => e.depth));
  // The outline may leave a heading out (WinFF's manual bookmarks "Preferences For Windows"
  // but not "Preferences For Unix/Linux" beside it): a short block larger than the body text,
  // in the very font and size of two or more bookmarked headings, is a heading at their depth.
  const styleKey = (f: Fragment) => `${f.fontId}|${Math.round(f.size * 2) / 2}`;
  const styleDepths = new Map<string, number[]>();
  for (const [e, f] of matched) if (f.size >= body * 1.15) (styleDepths.get(styleKey(f)) ?? styleDepths.set(styleKey(f), []).get(styleKey(f))!).push(e.depth);
  const styleDepth = (b: Block): number | null => {
    if (b.lines.length > 2 || b.size < body * 1.15 || LIST_LINE.test(b.lines[0].text) || !b.lines.every((l) => styleKey(l) === styleKey(b.lines[0]))) return null;
    const depths = styleDepths.get(styleKey(b.lines[0]));
    if (!depths || depths.length < 2) return null;
    // The depth most of them have.
    const counts = new Map<number, number>();
    for (const d of depths) counts.set(d, (counts.get(d) ?? 0) + 1);
    return [...counts].sort((x, y) => y[1] - x[1] || x[0] - y[0])[0][0];
  };
  return {
    depthOf: (b, page, bold) => {
      if (b.lines.every(isMonoFragment)) return null;
      const e = find(b, page, bold);
      if (e) return matched.get(e) === b.lines[0] ? e.depth - minDepth + 1 : null;
      const d = styleDepth(b);
      return d === null ? null : d - minDepth + 1;
    },
    offset: title ? 1 : 0,
    title,
  };
}

const MONTH = '(?:January|February|March|April|May|June|July|August|September|October|November|December)';
/**
 * A line that is a date and nothing more, as a title page prints it: "Printed January 14,
 * 2020", "(December 2020)", "3 May 2021", "2021-05-03, Version 1.1". Whole-line only, with a
 * few words a title page puts before its date, so a heading that merely contains a date
 * ("Changes in May 2021") is not one.
 */
const TITLE_PAGE_DATE = new RegExp(
  `^\\(?(?:(?:Printed|Revised|Updated|Last updated|Dated|Draft|Released|Published|Compiled)(?: on)?:? )?(?:${MONTH} \\d{1,2},? \\d{4}|\\d{1,2} ${MONTH},? \\d{4}|${MONTH},? \\d{4}|\\d{4}-\\d{2}-\\d{2})\\)?(?:,? Version [\\w.-]+)?$`,
);
const isTitlePageDate = (b: Block): boolean => TITLE_PAGE_DATE.test(b.lines.map((l) => l.text.trim()).join(' ').replace(/\s+/g, ' '));

/** A bold line or two that reads as a title: a few words, capitalised, no sentence punctuation to go on. */
function titleLike(b: Block, bold: boolean): boolean {
  if (!bold || b.lines.length > 2) return false;
  const text = b.lines.map((l) => l.text).join(' ');
  // (Not a bold caption that a page happens to open with: "Table 8.12. Time Zone Input".)
  if (CAPTION_LINE.test(text)) return false;
  return text.length <= 100 && text.split(/\s+/).length >= 3 && /^\p{Lu}/u.test(text) && !/[:;,]$/.test(text) && !b.lines.some(isMonoFragment);
}

/** One bold line of a word or a few that could title a section ("Logging", "Spring tides"). */
function shortTitle(b: Block, bold: boolean): boolean {
  const text = b.lines[0].text.trim();
  return bold && b.lines.length === 1 && text.length <= 60 && /^\p{Lu}/u.test(text) && !/[:;,]$/.test(text) && !CAPTION_LINE.test(text) && !isMonoFragment(b.lines[0]);
}

/**
 * Bold lines at the body size that title the paragraph under them, unnumbered (LaTeX's
 * \subsubsection*, Doxygen's section titles within a page): a block of one bold line that reads
 * as a title and ends no sentence, followed on its page by a paragraph of prose in another
 * weight that starts at its left edge or indented from it. (Without an outline: with one, the
 * bookmarks say.)
 */
export function titlesOverParagraphs(items: PageItem[], body: number): Set<Block> {
  const out = new Set<Block>();
  const pageLines: Fragment[] = [];
  for (const it of items) if (it.kind === 'text' && !it.note) for (const l of it.block.lines) pageLines.push(l);
  const left = commonLeft(pageLines);
  for (let i = 0; i + 1 < items.length; i++) {
    const it = items[i];
    const next = items[i + 1];
    if (it.kind !== 'text' || next.kind !== 'text' || it.note || next.note || next.bold) continue;
    const b = it.block;
    const lines = next.block.lines;
    // Set out left of the page's text edge over a paragraph at that edge (a man page's .SS): a
    // title however short ("Logging"); a tagged paragraph's tag sits at the edge and stays.
    const outdented = b.x0 <= left - b.size && Math.abs(lines[0].x0 - left) <= 1;
    if (b.lines.length !== 1 || Math.abs(b.size - body) > 0.1 * body || /[.!?]$/.test(b.lines[0].text.trim()) || !(titleLike(b, it.bold) || (outdented && shortTitle(b, it.bold)))) continue;
    if (lines[0].x0 < b.x0 - 1 || lines.some(isMonoFragment)) continue;
    // Prose under it, not a navigation link ("Home") or a value ("555-4455"): lines that run on,
    // or a sentence.
    const text = lines.map((l) => l.text).join(' ').trim();
    if (text.split(/\s+/).length < 4 || (lines.length < 2 && !/[.!?:]["'’”)\]]?$/.test(text))) continue;
    out.add(b);
  }
  return out;
}

/**
 * A line opening with a caption's label: "Table 3:", "Figure 2.1.", "Listing 4", "TABLE 2" (looser
 * than aligned-tables' CAPTION, which must also tell a caption from a table row).
 */
const CAPTION_LINE = /^(?:table|figure|fig\.|listing|example)\s+[\dA-Z][\d.-]*[.:]?(?:\s|$)/i;

/**
 * Footnotes of a page: small text (below body size) in the lower part of the page with no
 * body text under it in its column. They are read after the page's text.
 */
function footnotesOf(fragments: Fragment[], bodySize: number, height: number): Set<Fragment> {
  const notes = new Set<Fragment>();
  // By push, not .filter (V8 recompile churn: see pageItems).
  const small: Fragment[] = [];
  for (const f of fragments) if (f.size <= 0.85 * bodySize && f.top > 0.55 * height) small.push(f);
  if (!small.length) return notes;
  const body: Fragment[] = [];
  for (const f of fragments) if (f.size >= 0.95 * bodySize) body.push(f);
  for (const f of small) if (!body.some((b) => b.top > f.top && b.x0 < f.x1 && f.x0 < b.x1)) notes.add(f);
  return notes;
}
