/**
 * Page furniture: running headers and footers and page numbers, which belong to the page and
 * not to the text. A reader of the Markdown wants "If restoration of a system is planned",
 * not "If restoration of a system / 6 / The Root Filesystem / is planned".
 *
 * Furniture is found across the whole document, from where lines sit, not from what they say
 * (chapter names and page numbers change from page to page):
 * - a line in the top or bottom band of the page, set apart from the body by at least most
 *   of a blank line, whose position (band and baseline) recurs on a good share of the pages,
 *   is a running header or footer, whatever its text;
 * - a line in those bands, set apart the same way, that is only a page number ("6", "xii",
 *   "Page 3 of 9") is a page number even on a page of its own.
 * The gap test keeps the first and last body lines, which also sit at the same place on
 * every page but follow the text at normal line spacing.
 * A row the body comes close to is furniture too where its text repeats at its place on many
 * pages (a browser's print header over content that starts at the margin).
 * Headings that open pages (a book whose chapters each start a page, a Word document whose
 * sections do) also sit apart at one place on many pages: a line set larger than the body
 * text is taken by its place only when its text recurs too, in its own size (a running
 * header that repeats a heading's words, as Word's and Writer's chapter fields do, is set
 * smaller than the heading).
 */
import type { Fragment } from './text-types.ts';
import { byBaseline, mostUsedSize } from './fragments.ts';
import { fontNameOf, isBoldFont } from './page-fonts.ts';

export interface FurniturePage {
  /** Height of the reading frame (points). */
  height: number;
  fragments: Fragment[];
}

/** Share of the page height, from the top and from the bottom, where furniture may sit. */
const BAND = 0.14;
/**
 * A page number alone on the page's last line may sit higher than the band (LaTeX's article
 * on A4 leaves a sixth of the page below it): there it counts when the place recurs.
 */
const PAGE_NUMBER_BAND = 0.2;
/** Empty space between furniture and the body, in font sizes of the furniture line. */
const MIN_GAP = 0.75;
/** Rows this many times the body size or larger are headings' size: no header is set so large. */
const HEADING_SIZE = 1.25;
/** Baselines this close (points) count as the same place on different pages. */
const SLOT = 4;

const PAGE_NUMBER = /^(?:page\s+)?(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:of|\/)\s*\d{1,4})?$|^[-–—]\s*\d{1,4}\s*[-–—]$/i;

/** An outline entry (bookmark): its title and the 1-based page it points to. */
export interface Bookmark {
  title: string;
  page: number | null;
}

/** A title as compared with a row's text: lower case, a leading section number off, words only. */
const bookmarkKey = (s: string): string =>
  s
    .toLowerCase()
    .replace(/^\s*(?:\d+|[a-z])(?:\.\d+)*\.?\s+/, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/**
 * Whether a row reads as the title of a bookmark that points to its page (0-based p). Subsections
 * that open pages (after a page break, or a float that filled the page before) sit apart at
 * one place on most pages, as headers that change with every page do; a header's text is no
 * bookmark of its page (it carries the page number, or names a chapter begun pages before),
 * except a header naming the section begun on its page, which is set smaller than the text
 * (beamer's headline): the caller asks only of rows at least the body's size.
 */
function bookmarkedRow(bookmarks: Bookmark[]): (r: Row, p: number) => boolean {
  const keys = new Set<string>();
  for (const b of bookmarks) if (b.page !== null && bookmarkKey(b.title)) keys.add(`${b.page}:${bookmarkKey(b.title)}`);
  return (r, p) => keys.size > 0 && keys.has(`${p + 1}:${bookmarkKey(r.fragments.map((f) => f.text).join(' '))}`);
}

interface Row {
  fragments: Fragment[];
  baseline: number;
  top: number;
  bottom: number;
  size: number;
  band: 'top' | 'bottom' | null;
  apart: boolean;
  /** Below the band's edge only as a page number on the last line (PAGE_NUMBER_BAND). */
  wide: boolean;
}

// Ink box, not the font box: fonts' ascent and descent overlap between close lines. (At module
// level: a named closure inside a function costs a defineProperty per creation under tsx.)
const inkTop = (x: Row) => Math.max(x.top, x.baseline - 0.75 * x.size);
const inkBottom = (x: Row) => Math.min(x.bottom, x.baseline + 0.2 * x.size);

function rowsOf(page: FurniturePage): Row[] {
  const sorted = [...page.fragments].sort(byBaseline);
  const rows: Row[] = [];
  for (const f of sorted) {
    const last = rows[rows.length - 1];
    if (last && Math.abs(f.baseline - last.baseline) <= 0.35 * Math.max(f.size, last.size)) {
      last.fragments.push(f);
      last.top = Math.min(last.top, f.top);
      last.bottom = Math.max(last.bottom, f.bottom);
      last.size = Math.max(last.size, f.size);
    } else rows.push({ fragments: [f], baseline: f.baseline, top: f.top, bottom: f.bottom, size: f.size, band: null, apart: false, wide: false });
  }
  const h = page.height;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    if (inkBottom(r) <= h * BAND) {
      r.band = 'top';
      const next = rows[i + 1];
      r.apart = !next || inkTop(next) - inkBottom(r) >= MIN_GAP * r.size;
    } else if (inkTop(r) >= h * (1 - BAND)) {
      r.band = 'bottom';
      const prev = rows[i - 1];
      r.apart = !prev || inkTop(r) - inkBottom(prev) >= MIN_GAP * r.size;
    } else if (i === rows.length - 1 && inkTop(r) >= h * (1 - PAGE_NUMBER_BAND) && r.fragments.length === 1 && PAGE_NUMBER.test(r.fragments[0].text.trim())) {
      r.band = 'bottom';
      r.wide = true;
      const prev = rows[i - 1];
      r.apart = !prev || inkTop(r) - inkBottom(prev) >= 1.5 * r.size;
    }
  }
  return rows;
}

/**
 * A row set bold and a little larger than the body (a word processor's Heading 2, 13pt over
 * 11pt text) is a heading opening its page, not a running header that changes with every page:
 * headers are not set so. (HEADING_SIZE rules out larger rows whatever their face.)
 */
const boldHeading = (r: Row, bodySize: number): boolean => r.size >= 1.1 * bodySize && r.fragments.every((f) => isBoldFont(fontNameOf(f.fontId)));

/**
 * The fragments of each page that are furniture. Rows of a band are taken from the edge
 * inwards (a header may be two lines: a title and a rule of section names), and stop at the
 * first row that is not furniture.
 */
export function findFurniture(pages: FurniturePage[], bookmarks: Bookmark[] = []): Set<Fragment> {
  const rowsByPage = pages.map(rowsOf);
  const bookmarked = bookmarkedRow(bookmarks);
  // The body text's size: the one most characters are set in.
  const bodySize = mostUsedSize(pages.flatMap((page) => page.fragments));
  // How many pages have a row set apart at each place (band + baseline bucket).
  const slotPages = new Map<string, Set<number>>();
  rowsByPage.forEach((rows, p) => {
    for (const r of rows) {
      if (!r.band || !r.apart) continue;
      // A baseline on a bucket's edge counts for both neighbours.
      for (const d of [-0.5, 0, 0.5]) {
        const key = `${r.band}:${Math.round(r.baseline / SLOT + d)}`;
        (slotPages.get(key) ?? slotPages.set(key, new Set()).get(key)!).add(p);
      }
    }
  });
  // The text of a row with its numbers blanked, in its size: "Chapter 4: Function reference 11"
  // repeats as such; a heading whose words the header repeats on later pages does not.
  const textKey = (r: Row) => `${r.band}:${Math.round(r.size)}:${r.fragments.map((f) => f.text).join(' ').toLowerCase().replace(/\d+|\b[ivxlc]+\b/g, '#').replace(/\s+/g, ' ')}`;
  const textPages = new Map<string, Set<number>>();
  // The same for every row of a band, set apart or not, with its place: where the body comes
  // close to it.
  const placedPages = new Map<string, Set<number>>();
  rowsByPage.forEach((rows, p) => {
    for (const r of rows) {
      if (!r.band) continue;
      if (r.apart) (textPages.get(textKey(r)) ?? textPages.set(textKey(r), new Set()).get(textKey(r))!).add(p);
      const key = `${textKey(r)}@${Math.round(r.baseline / SLOT)}`;
      (placedPages.get(key) ?? placedPages.set(key, new Set()).get(key)!).add(p);
    }
  });
  const minPages = Math.max(2, Math.ceil(pages.length * 0.25));
  const slotCount = (r: Row) => Math.max(...[-0.5, 0, 0.5].map((d) => slotPages.get(`${r.band}:${Math.round(r.baseline / SLOT + d)}`)?.size ?? 0));
  // The place recurs, and the text too (a chapter's name over its pages) or the place is
  // taken on most pages (headers that change with every page). A title on page 1 whose
  // place a heading on page 2 happens to share is neither; nor is a heading larger than the
  // body text that opens most pages (a book's chapter titles): headers are not set larger.
  // Nor is a bold row a little larger than the body (a word processor's Heading 2 on sections
  // that start pages), or a row at the body's size or more that reads as the title of a
  // bookmark pointing to its page (LaTeX subsections opening pages).
  const recurs = (r: Row, p: number) => {
    const n = slotCount(r);
    if (n < minPages) return false;
    if ((textPages.get(textKey(r))?.size ?? 0) >= 2) return true;
    return n >= Math.max(4, pages.length * 0.5) && r.size < HEADING_SIZE * bodySize && !boldHeading(r, bodySize) && !(r.size >= 0.95 * bodySize && bookmarked(r, p));
  };
  const isPageNumber = (r: Row) => r.fragments.length === 1 && PAGE_NUMBER.test(r.fragments[0].text.trim());
  // A row close to the body is furniture all the same where its text, numbers blanked, sits at
  // the same place on half the pages or more (three at least) and it is set smaller than the
  // body, or stands apart with that text at that place on a quarter of the pages or more: a
  // browser's print header ("11/28/26, 10:01 AM ... 8.5. Date/Time Types") over content that
  // starts at the margin, a word processor's footer under a table that runs down to it. The
  // first line of the body does not repeat itself at one place page after page.
  const repeats = (r: Row) => {
    const n = placedPages.get(`${textKey(r)}@${Math.round(r.baseline / SLOT)}`)?.size ?? 0;
    if (n >= Math.max(3, Math.ceil(pages.length * 0.5)) && r.size < 0.95 * bodySize) return true;
    return (textPages.get(textKey(r))?.size ?? 0) >= minPages && slotCount(r) >= minPages;
  };
  const out = new Set<Fragment>();
  rowsByPage.forEach((rows, p) => {
    const take = (r: Row) => r.band && ((r.apart && (recurs(r, p) || (!r.wide && isPageNumber(r)))) || (!r.wide && repeats(r)));
    // From the top edge down, then from the bottom edge up, at most three rows each.
    let i = 0;
    for (; i < Math.min(3, rows.length) && take(rows[i]) && rows[i].band === 'top'; i++) for (const f of rows[i].fragments) out.add(f);
    // (A page number right under a footer row that is taken goes with it, set apart or not:
    // "Page 28 /" over the total "71" that a word processor's field put on a line of its own.)
    const withFooter = (k: number) => k - 1 >= i && isPageNumber(rows[k]) && !rows[k].wide && rows[k - 1].band === 'bottom' && take(rows[k - 1]);
    let j = rows.length - 1;
    for (; j >= Math.max(i, rows.length - 3) && (take(rows[j]) || withFooter(j)) && rows[j].band === 'bottom'; j--) for (const f of rows[j].fragments) out.add(f);
    // The edge row that is not all furniture may still end in a page number ("Chapter 4: ... 23"
    // on a page whose header place is not yet known to recur).
    for (const r of [rows[i], rows[j]]) {
      if (!r?.band || !r.apart || r.fragments.length < 2) continue;
      for (const f of [r.fragments[0], r.fragments[r.fragments.length - 1]]) if (PAGE_NUMBER.test(f.text.trim())) out.add(f);
    }
  });
  return out;
}
