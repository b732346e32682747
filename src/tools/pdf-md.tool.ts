/**
 * pdf-md: Markdown from the page layout. Headings come from the font-size hierarchy of the
 * whole document (the most used size is body text; the larger sizes, biggest first, become
 * #, ## and ###), bullets and numbers become lists, ruled tables become pipe tables.
 * A page without a text layer (a scan) adds an HTML comment saying so, so a reader of the
 * Markdown knows content is missing rather than absent.
 */
import type { PdfDocument } from './pdf/open-pdf.ts';
import { mapPages } from './pdf/pdf-pages.ts';
import { fontNameOf, isBoldFont } from './pdf/page-fonts.ts';
import { buildBlocks, readingOrder, readPageText, type Block, type Box, type Fragment } from './pdf/page-layout.ts';
import { findTables, readRulings, type Table } from './pdf/ruled-tables.ts';
import type { PdfMdResult, ProgressFn } from './tool-types.ts';

type PageItem = { kind: 'text'; block: Block; bold: boolean } | { kind: 'table'; table: Table };

interface PageModel {
  items: PageItem[];
  empty: boolean;
}

const BULLET = /^([•◦▪▫‣●○■□·∙–—*+-])\s+(.*)$/u;
const NUMBERED = /^(\d{1,3}|[a-zA-Z]|[ivxIVX]{1,4})([.)])\s+(.*)$/;

const escapeCell = (s: string) => s.replace(/\|/g, '\\|');

export function tableToMarkdown(rows: string[][]): string {
  const width = Math.max(...rows.map((r) => r.length));
  const norm = rows.map((r) => [...r, ...Array(width - r.length).fill('')].map(escapeCell));
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(norm[0]), line(norm[0].map(() => '---')), ...norm.slice(1).map(line)].join('\n');
}

const joinLines = (lines: string[]): string =>
  lines.reduce((acc, l) => (acc === '' ? l : /[A-Za-z]-$/.test(acc) && /^[a-z]/.test(l) ? acc + l : `${acc} ${l}`), '');

/** Escapes text that Markdown would otherwise read as structure. */
const escapeText = (s: string) => s.replace(/^(#{1,6}\s|>|\d+[.)]\s|[-*+]\s)/, '\\$1');

interface ListState {
  markerX: number[];
}

/** Renders one text block: a heading, a list run, or a paragraph. */
function blockToMarkdown(block: Block, headingLevel: number | null, bold: boolean): string {
  const texts = block.lines.map((l) => l.text);
  if (headingLevel) return `${'#'.repeat(headingLevel)} ${joinLines(texts)}`;
  const out: string[] = [];
  let para: string[] = [];
  let item: { indent: number; marker: string; text: string[] } | null = null;
  const list: ListState = { markerX: [] };
  const flushPara = () => {
    if (para.length) out.push(bold && para.join(' ').length <= 120 ? `**${joinLines(para)}**` : escapeText(joinLines(para)));
    para = [];
  };
  const flushItem = () => {
    if (item) out.push(`${'  '.repeat(item.indent)}${item.marker} ${joinLines(item.text)}`);
    item = null;
  };
  const levelOf = (x: number) => {
    let level = list.markerX.findIndex((mx) => Math.abs(mx - x) < 4);
    if (level < 0) {
      list.markerX.push(x);
      list.markerX.sort((a, b) => a - b);
      level = list.markerX.indexOf(x);
    }
    return level;
  };
  for (const line of block.lines) {
    const bullet = BULLET.exec(line.text);
    const numbered = bullet ? null : NUMBERED.exec(line.text);
    if (bullet || numbered) {
      flushPara();
      flushItem();
      const text = bullet ? bullet[2] : numbered![3];
      const marker = bullet ? '-' : /^\d+$/.test(numbered![1]) ? `${numbered![1]}.` : '-';
      item = { indent: levelOf(line.x0), marker, text: [text] };
    } else if (item && line.x0 > (list.markerX[item.indent] ?? line.x0) + 3) {
      // Indented past the marker: the item's text wraps onto this line.
      item.text.push(line.text);
    } else {
      flushItem();
      list.markerX = [];
      para.push(line.text);
    }
  }
  flushItem();
  flushPara();
  return out.join(out.some((l) => /^\s*(-|\d+\.) /.test(l)) ? '\n' : '\n\n');
}

/** Lines of one block that start list items belong in the same list even across blocks. */
const isListBlock = (md: string) => /^\s*(-|\d+\.) /.test(md);

export async function pdfMd(doc: PdfDocument, onProgress?: ProgressFn): Promise<PdfMdResult> {
  const visits = await mapPages(
    doc,
    (page): PageModel => {
      const { frame, fragments } = readPageText(page);
      if (!fragments.length) return { items: [], empty: true };
      const tables = findTables(readRulings(page, frame), fragments);
      const inTable = (f: Fragment) => tables.some((t) => (f.x0 + f.x1) / 2 > t.x0 && (f.x0 + f.x1) / 2 < t.x1 && f.baseline - f.size * 0.3 > t.top && f.baseline - f.size * 0.3 < t.bottom);
      type Placed = Box & ({ fragment: Fragment } | { table: Table });
      const placed: Placed[] = [
        ...fragments.filter((f) => !inTable(f)).map((f) => ({ ...pick(f), fragment: f })),
        ...tables.map((t) => ({ x0: t.x0, x1: t.x1, top: t.top, bottom: t.bottom, baseline: t.bottom, size: (t.bottom - t.top) / 0.85, table: t })),
      ];
      const ordered = readingOrder(placed);
      const items: PageItem[] = [];
      let run: Fragment[] = [];
      const flush = () => {
        for (const block of buildBlocks(run)) {
          const fontName = fontNameOf(block.fontId);
          items.push({ kind: 'text', block, bold: isBoldFont(fontName) });
        }
        run = [];
      };
      for (const p of ordered) {
        if ('table' in p) {
          flush();
          items.push({ kind: 'table', table: p.table });
        } else run.push(p.fragment);
      }
      flush();
      return { items, empty: false };
    },
    onProgress,
  );

  // Heading levels from the document-wide size hierarchy.
  const sizeChars = new Map<number, number>();
  for (const v of visits) for (const it of v.value?.items ?? []) if (it.kind === 'text') for (const l of it.block.lines) sizeChars.set(Math.round(l.size * 2) / 2, (sizeChars.get(Math.round(l.size * 2) / 2) ?? 0) + l.text.length);
  const body = [...sizeChars.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
  const headingSizes = [...new Set(
    visits.flatMap((v) => (v.value?.items ?? []).flatMap((it) => (it.kind === 'text' && it.block.lines.length <= 3 ? [Math.round(it.block.size * 2) / 2] : []))),
  )]
    .filter((s) => s >= body * 1.15)
    .sort((a, b) => b - a);
  const levelOf = (size: number): number | null => {
    const i = headingSizes.indexOf(Math.round(size * 2) / 2);
    return i < 0 ? null : Math.min(i + 1, 3);
  };

  const parts: string[] = [];
  for (const v of visits) {
    if (!v.value || v.value.empty) {
      parts.push(`<!-- page ${v.pageNumber}: no text layer (image-only or unreadable page) -->`);
      continue;
    }
    for (const it of v.value.items) {
      if (it.kind === 'table') {
        if (it.table.rows.length) parts.push(tableToMarkdown(it.table.rows));
        continue;
      }
      const level = it.block.lines.length <= 3 ? levelOf(it.block.size) : null;
      const md = blockToMarkdown(it.block, level, it.bold);
      const prev = parts[parts.length - 1];
      // Consecutive list items split into blocks by spacing stay one list.
      if (prev !== undefined && isListBlock(md) && isListBlock(prev.split('\n').pop() ?? '')) parts[parts.length - 1] = `${prev}\n${md}`;
      else parts.push(md);
    }
  }
  return { markdown: parts.join('\n\n') + '\n', pages: doc.numPages, page_count: doc.numPages };
}

const pick = (f: Fragment): Box => ({ x0: f.x0, x1: f.x1, top: f.top, bottom: f.bottom, baseline: f.baseline, size: f.size });
