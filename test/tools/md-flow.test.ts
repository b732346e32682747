/**
 * The pieces of pdf-md's flow and furniture handling on their own, with the cases the real
 * manuals showed (test/tools/md-quality.test.ts measures them on whole documents).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixSymbols, joinLines, Vocabulary } from '../../src/tools/pdf/flow-text.ts';
import { findAlignedTables } from '../../src/tools/pdf/aligned-tables.ts';
import { findTables, type Segment } from '../../src/tools/pdf/ruled-tables.ts';
import { buildFragments } from '../../src/tools/pdf/fragments.ts';
import type { TextRun } from '../../src/tools/pdf/text-types.ts';
import { findFurniture } from '../../src/tools/pdf/page-furniture.ts';
import { groupBlocks, type Fragment } from '../../src/tools/pdf/page-layout.ts';
import { blockToParts, healCellText, ruledProse, segments, titlesOverParagraphs, type PageItem } from '../../src/tools/pdf-md.tool.ts';
import { openPdf } from '../../src/tools/pdf/open-pdf.ts';
import { writePdf } from '../fixtures/raw-pdf.ts';

const vocabOf = (...lines: string[]) => {
  const v = new Vocabulary();
  for (const l of lines) v.addLine(l);
  return v;
};

describe('line joining', () => {
  it('joins a word the typesetter hyphenated at a line end', () => {
    assert.equal(joinLines(['Distinguished Encoding Rules (DER) manip-', 'ulation. Copyright'], vocabOf()), 'Distinguished Encoding Rules (DER) manipulation. Copyright');
  });
  it('keeps the hyphen of a compound the document writes with one', () => {
    const v = vocabOf('planar micro-cavity is the usual way');
    assert.equal(joinLines(['planar micro-', 'cavities can hold'], v), 'planar micro-cavities can hold');
    assert.equal(joinLines(['even state-of-', 'the-art planar'], vocabOf()), 'even state-of-the-art planar');
  });
  it('joins when the document writes the joined word, even after a compound prefix', () => {
    assert.equal(joinLines(['the re-', 'quest was sent'], vocabOf('a request is a message')), 'the request was sent');
    assert.equal(joinLines(['a self-', 'contained manual'], vocabOf()), 'a self-contained manual');
  });
  it('leaves a dash before a capital and a soft hyphen joins', () => {
    assert.equal(joinLines(['ASN.1 -', 'Version'], vocabOf()), 'ASN.1 - Version');
    assert.equal(joinLines(['hyphen\u00ad', 'ation'], vocabOf()), 'hyphenation');
  });
});

describe('line joining after prefixes and before capitals', () => {
  it('joins a word broken after a weak prefix unless the rest is a word of the document', () => {
    // "mitted" opens a line of the document (the tail of another break): it is no word of its own.
    assert.equal(joinLines(['once it has been sub-', 'mitted. This'], vocabOf('the form was com-', 'mitted to the archive')), 'once it has been submitted. This');
    assert.equal(joinLines(['a sub-', 'class of it'], vocabOf('each class has a name')), 'a sub-class of it');
  });
  it('joins before a capital only where the document writes the joined word, and never leaves a space', () => {
    assert.equal(joinLines(['defined as Font-', 'Properties; numeric'], vocabOf('all FontProperties are listed')), 'defined as FontProperties; numeric');
    assert.equal(joinLines(['the Anglo-', 'Saxon world'], vocabOf()), 'the Anglo-Saxon world');
  });
});

describe('line-end hyphens that are the word\'s own (word processors do not hyphenate unless asked)', () => {
  it('keeps the spelling the document uses more where it writes both', () => {
    const v = vocabOf('The via-path is used only', 'when no via-path is set', 'a list: via “viapath”');
    assert.equal(joinLines(['then via-', 'path is used'], v), 'then via-path is used');
    assert.equal(joinLines(['a re-', 'quest was sent'], vocabOf('a request is a message', 'one re-quest')), 'a re-quest was sent', 'even: the printed hyphen stays');
    assert.equal(joinLines(['a re-', 'quest was sent'], vocabOf('a request is a message', 'the request again', 'one re-quest')), 'a request was sent');
  });
  it('keeps the hyphen after a token that is no plain word', () => {
    assert.equal(joinLines(['In 3rd-', 'party frames'], vocabOf('outgoing 3rdparty frame')), 'In 3rd-party frames');
    assert.equal(joinLines(['receive-only serial/tcp-', 'device interfaces'], vocabOf()), 'receive-only serial/tcp-device interfaces');
    assert.equal(joinLines(['which should be 0-dimen-', 'sional), the'], vocabOf('a dimensional array')), 'which should be 0-dimensional), the', 'TeX breaks the word after an explicit hyphen');
    assert.equal(joinLines(['a temporarily inserted \\movie-', 'ref link'], vocabOf('the \\movieref command is')), 'a temporarily inserted \\movieref link');
    assert.equal(joinLines(['the (manip-', 'ulation) of'], vocabOf()), 'the (manipulation) of', 'an opening bracket is no part of the word');
  });
  it('keeps every line-end hyphen of a document that never breaks a word it writes whole', () => {
    // Prawn, Writer, Word by default: the breaks fall at hyphens the author typed.
    const lines = ['install the text-', 'hyphen gem', 'features high-', 'level APIs', 'the basic-', 'example file', 'run the example since it uses the source-', 'highlighter attribute'];
    assert.equal(joinLines(['it uses the source-', 'highlighter attribute'], vocabOf(...lines)), 'it uses the source-highlighter attribute');
    // One break of a word the document writes whole ("manipulation") shows it hyphenates.
    const tex = [...lines, 'the manip-', 'ulation of data', 'every manipulation counts'];
    assert.equal(joinLines(['it uses the source-', 'highlighter attribute'], vocabOf(...tex)), 'it uses the sourcehighlighter attribute');
  });
  it('keeps the hyphen when the next line goes on with a compound', () => {
    assert.equal(joinLines(['plus actual hop-', 'by-hop processing'], vocabOf()), 'plus actual hop-by-hop processing');
    assert.equal(joinLines(['DER manip-', 'ulation-based'], vocabOf('manipulation of it')), 'DER manipulation-based', 'unless the document writes the joined word');
  });
});

describe('words broken at a table cell\'s line end', () => {
  it('are joined as running text is, a suspended compound aside', () => {
    assert.equal(healCellText('For most debuggers (the excep- tions are valgrind', vocabOf('no exceptions here')), 'For most debuggers (the exceptions are valgrind');
    assert.equal(healCellText('information about the in- game items', vocabOf('the in-game items', 'and the in-game map')), 'information about the in-game items');
    assert.equal(healCellText('pre- and post-processing', vocabOf('the preprocessing step')), 'pre- and post-processing');
    assert.equal(healCellText('ASN.1 - Version', vocabOf()), 'ASN.1 - Version');
  });
});

describe('superscripts and subscripts', () => {
  const run = (text: string, x0: number, x1: number, baseline: number, size = 10): TextRun => ({ text, x0, x1, baseline, top: baseline - 0.8 * size, bottom: baseline + 0.2 * size, size, fontId: 'Times' });
  it('a footnote mark raised above its line stays in that line instead of cutting the paragraph', () => {
    const frags = buildFragments([
      run('by trapping it into a whispering gallery', 0, 200, 100),
      run('mode (WGM)', 0, 52, 112),
      run('4', 52.2, 55.5, 107.8, 7),
      run('of a polystyrene micro-sphere', 58, 200, 112),
    ]);
    assert.deepEqual(frags.map((f) => f.text), ['by trapping it into a whispering gallery', 'mode (WGM)4 of a polystyrene micro-sphere']);
    assert.equal(frags[1].baseline, 112, 'the mark does not move the line');
  });
  it('a mark that opens a footnote is a word of its own', () => {
    const frags = buildFragments([run('4', 0, 3.5, 196, 6), run('WGM occur at particular wavelengths', 4, 160, 200, 8)]);
    assert.deepEqual(frags.map((f) => f.text), ['4 WGM occur at particular wavelengths']);
  });
  it('a smaller run on the line\'s own baseline (a browser\'s <code>) is no mark: no space before the punctuation after it', () => {
    // Chromium sets <code> at 13px beside 16px text; the slashes and commas between are the text's.
    const frags = buildFragments([
      run('host', 0, 23.5, 100, 9.75),
      run('/', 23.5, 26.8, 100, 12),
      run('year', 26.8, 50.3, 100, 9.75),
      run('/', 50.3, 53.6, 100, 12),
      run('yday', 53.6, 77.1, 100, 9.75),
      run('full', 0, 23.5, 120, 9.75),
      run(', ', 23.5, 26.8, 120, 12),
      run('diff', 30.2, 53.6, 120, 9.75),
      run(', ', 53.6, 57, 120, 12),
      run('incr', 60.3, 83.8, 120, 9.75),
    ]);
    assert.deepEqual(frags.map((f) => f.text), ['host/year/yday', 'full, diff, incr']);
  });
  it('keeps the raised A of the LaTeX logo in its line when the lowered E touches it (Helvetica)', () => {
    // pdfTeX's \LaTeX in helvet at 9.46pt: the A (6.63pt) raised 2pt, the E lowered 2.5pt.
    const frags = buildFragments([
      run('and then translated from there into the other formats (at least', 70.9, 524.4, 189.45, 9.46),
      run('as HTML and L', 70.9, 135.6, 201.4, 9.46),
      run('A', 132.2, 136.6, 199.38, 6.63),
      run('T', 135.2, 140.9, 201.4, 9.46),
      run('E', 139.4, 145.7, 203.88, 9.46),
      run('X).', 144.5, 156.6, 201.4, 9.46),
      run('A table should hold at least one row', 85.8, 510.8, 213.36, 9.46),
    ]);
    assert.deepEqual(frags.map((f) => f.text), ['and then translated from there into the other formats (at least', 'as HTML and LATEX).', 'A table should hold at least one row']);
  });
  it('keeps the reversed E of XeTeX in its line when the raised A of LaTeX opens that line by baseline', () => {
    // XeTeX's logo: its reversed E lowered 5.2pt, further than the E of TeX; the A raised 3.6pt.
    const frags = buildFragments([
      run('The fontspec package', 259.4, 413.6, 178.7, 17.22),
      run('Font selection for X', 196.7, 337.6, 201.71, 17.22),
      run('E', 335.9, 345.5, 206.93, 17.22),
      run('L', 343.3, 353.0, 201.71, 17.22),
      run('A', 346.8, 355.3, 198.13, 11.96),
      run('T', 352.7, 362.9, 201.71, 17.22),
      run('E', 360.0, 369.7, 205.57, 17.22),
      run('X', 367.5, 378.0, 201.71, 17.22),
    ]);
    assert.deepEqual(frags.map((f) => f.text), ['The fontspec package', 'Font selection for XELATEX']);
  });
});

describe('symbols', () => {
  it('turns TeX copyright signs (c in a circle) into ©, and leaves other c alone', () => {
    assert.equal(fixSymbols('Copyright c 2001–2022 Free Software Foundation'), 'Copyright © 2001–2022 Free Software Foundation');
    assert.equal(fixSymbols('Copyright \u20ddc 2003-2020 FSF'), 'Copyright © 2003-2020 FSF');
    assert.equal(fixSymbols('option c 2 and see c above'), 'option c 2 and see c above');
  });
});

const frag = (text: string, baseline: number, size = 10, x0 = 72): Fragment => ({
  text, x0, x1: x0 + text.length * size * 0.5, baseline, top: baseline - size * 0.8, bottom: baseline + size * 0.2, size, fontId: 'Body', runs: [],
});

describe('paragraphs parted by a first-line indent only', () => {
  // A 10pt text block from x 100 to 400, lines 12pt apart, no space between paragraphs.
  const line = (text: string, i: number, x0: number, x1: number): Fragment => {
    const run: TextRun = { text, x0, x1, baseline: 100 + 12 * i, top: 92 + 12 * i, bottom: 102 + 12 * i, size: 10, fontId: 'CMR10' };
    return { ...run, runs: [run] };
  };
  const texts = (blocks: Fragment[][]) => blocks.map((b) => b.map((l) => l.text).join(' '));
  it('starts a paragraph at an indented line, also after a paragraph whose last line reaches the margin', () => {
    const blocks = groupBlocks([
      line('The first paragraph is not indented and', 0, 100, 400),
      line('ends short.', 1, 100, 160),
      line('The second one is indented and its last', 2, 115, 400),
      line('line runs to the right margin, full.', 3, 100, 400),
      line('The third is indented too and goes on', 4, 115, 400),
      line('to a short line.', 5, 100, 190),
    ]);
    assert.deepEqual(texts(blocks), [
      'The first paragraph is not indented and ends short.',
      'The second one is indented and its last line runs to the right margin, full.',
      'The third is indented too and goes on to a short line.',
    ]);
  });
  it('leaves a hanging indent (references) and a list item\'s second line in their block', () => {
    const refs = [
      line('[1] A. Author. A title that runs on to', 0, 100, 400),
      line('a second line, full to the margin.', 1, 115, 400),
      line('[2] B. Author. Another title that runs', 2, 100, 400),
      line('on to its own second line as well.', 3, 115, 400),
      line('[3] C. Author. The last one.', 4, 100, 300),
    ];
    assert.equal(groupBlocks(refs).length, 1);
    const list = [line('Some text before the list ends here.', 0, 100, 330), line('– an item whose text wraps to', 1, 100, 400), line('a second line under its start', 2, 115, 400), line('– another item.', 3, 100, 200)];
    assert.equal(groupBlocks(list).length, 1);
  });
});

describe('page furniture', () => {
  it('finds running headers whose text changes, and page numbers, by position across pages', () => {
    const pages = Array.from({ length: 6 }, (_, i) => {
      const header = frag(`Chapter ${1 + (i >> 1)}: Title ${i >> 1}`, 40);
      const number = frag(String(i + 1), 40, 10, 500);
      const body = Array.from({ length: 40 }, (_, k) => frag(`body line ${k} of page ${i}`, 80 + k * 14));
      const footer = frag(`${i + 1}`, 760, 10, 300);
      return { height: 792, fragments: [header, number, ...body, footer], header, number, footer, body };
    });
    const found = findFurniture(pages);
    for (const p of pages) {
      assert.ok(found.has(p.header) && found.has(p.number) && found.has(p.footer));
      for (const b of p.body) assert.ok(!found.has(b), `body line kept: ${b.text}`);
    }
  });
  it('keeps a first body line that sits at the top of every page at normal line spacing', () => {
    const pages = Array.from({ length: 4 }, (_, i) => ({ height: 792, fragments: Array.from({ length: 50 }, (_, k) => frag(`line ${k} page ${i}`, 40 + k * 14)) }));
    assert.equal(findFurniture(pages).size, 0);
  });
  it('keeps chapter titles that open most pages at one place (a book from Asciidoctor PDF)', () => {
    const pages = Array.from({ length: 8 }, (_, i) => {
      const title = frag(`Chapter title ${'abcdefgh'[i]}`, 60, 22);
      const body = Array.from({ length: 30 }, (_, k) => frag(`body line ${k} of page ${i}`, 100 + k * 14));
      const number = frag(String(i + 1), 780, 9, 300);
      return { height: 842, fragments: i === 3 ? [...body, number] : [title, ...body, number], title, number };
    });
    const found = findFurniture(pages);
    for (const p of pages) {
      assert.ok(!found.has(p.title), `heading kept: ${p.title.text}`);
      assert.ok(found.has(p.number));
    }
  });
  it('keeps a heading at the top of a page whose words the running header repeats, smaller, on later pages', () => {
    // Word's STYLEREF and Writer's chapter field: "Generic types" as the section's heading, then as the header.
    const sections = ['Generic types', 'Generic types', 'Error logging', 'Error logging', 'Tags', 'Tags', 'Formatters', 'Formatters'];
    const pages = sections.map((name, i) => {
      const header = frag(name, 40, 9);
      const heading = i % 2 === 0 ? frag(name, 80, 16) : null;
      const body = Array.from({ length: 30 }, (_, k) => frag(`body line ${k} of page ${i}`, (heading ? 110 : 80) + k * 14));
      return { height: 792, fragments: [header, ...(heading ? [heading] : []), ...body], header, heading };
    });
    const found = findFurniture(pages);
    for (const p of pages) {
      assert.ok(found.has(p.header), `header: ${p.header.text}`);
      if (p.heading) assert.ok(!found.has(p.heading), `heading kept: ${p.heading.text}`);
    }
  });
  it('keeps bold headings a little larger than the text that open every page at one place, under a running header', () => {
    // A word processor's Heading 2 (13pt bold over 11pt text), each section starting a page.
    const pages = Array.from({ length: 6 }, (_, i) => {
      const header = frag('Parish Hall Booking Guide', 40, 9);
      const heading = { ...frag(`Section ${'abcdef'[i]} heading`, 100, 13), fontId: 'LiberationSans-Bold' };
      const body = Array.from({ length: 30 }, (_, k) => frag(`body line ${k} of page ${i}`, 125 + k * 14, 11));
      return { height: 842, fragments: [header, heading, ...body], header, heading };
    });
    const found = findFurniture(pages);
    for (const p of pages) {
      assert.ok(found.has(p.header));
      assert.ok(!found.has(p.heading), `heading kept: ${p.heading.text}`);
    }
  });
  it('keeps subsections that open most pages, a step larger than the body, when bookmarks name them on their pages', () => {
    // pdfTeX's \subsection (12pt in a 10pt article) after \newpage, set apart from what follows.
    const titles = ['1.2 Wicks', '2.1 Glass', '2.3 Brass', '3.1 Oil', '3.4 Stores', '4.2 Relief'];
    const pages = titles.map((t, i) => {
      const heading = frag(t, 72, 12);
      const body = Array.from({ length: 40 }, (_, k) => frag(`body line ${k} of page ${i}`, 98 + k * 12));
      const number = frag(String(i + 1), 770, 10, 300);
      return { height: 842, fragments: [heading, ...body, number], heading, number };
    });
    const bookmarks = titles.map((t, i) => ({ title: t.replace(/^[\d.]+ /, ''), page: i + 1 }));
    assert.ok(pages.every((p) => findFurniture(pages).has(p.heading)), 'without bookmarks the place alone decides');
    const found = findFurniture(pages, bookmarks);
    for (const p of pages) {
      assert.ok(!found.has(p.heading), `heading kept: ${p.heading.text}`);
      assert.ok(found.has(p.number));
    }
  });
});

describe('tables without rules', () => {
  const cell = (text: string, x0: number, baseline: number, size = 10): Fragment => ({
    text, x0, x1: x0 + text.length * 5, baseline, top: baseline - 8, bottom: baseline + 2, size, fontId: 'Body', runs: [{ text, x0, x1: x0 + text.length * 5, baseline, top: baseline - 8, bottom: baseline + 2, size, fontId: 'Body' }],
  });
  it('reads columns from x-positions, joins a wrapped cell and keeps four columns', () => {
    const rows = [
      ['Language', 'Territory', 'Character Set', 'Directory'],
      ['English', '—', 'ASCII', '/usr/share/man/en'],
      ['English', 'United Kingdom', 'Unicode UTF-8', '/usr/share/man/'],
      ['', '', '', 'en_GB.10646'],
      ['French', 'Canada', 'ISO 8859-1', '/usr/share/man/fr_CA'],
    ];
    const xs = [122, 227, 332, 437];
    const fragments = rows.flatMap((r, i) => r.flatMap((t, k) => (t ? [cell(t, xs[k], 100 + i * 14)] : [])));
    const [table, ...more] = findAlignedTables(fragments, 10, () => false);
    assert.equal(more.length, 0);
    assert.deepEqual(table.rows, [rows[0], rows[1], ['English', 'United Kingdom', 'Unicode UTF-8', '/usr/share/man/ en_GB.10646'], rows[4]]);
  });
  it('parts the cells of a sheet whose text touches the next cell (each cell its own text object)', () => {
    // (LibreOffice Calc without grid lines: a column as wide as its widest entry, each cell drawn
    // at its column's left edge; dates 50 wide in a column 50.3 wide.)
    const run = (text: string, x0: number, baseline: number): TextRun => ({ text, x0, x1: x0 + text.length * 5, baseline, top: baseline - 8, bottom: baseline + 2, size: 10, fontId: 'Sans' });
    const rows = [
      ['name', 'opened', 'closed'],
      ['alder', '1961-03-14', '1970-01-08'],
      ['birch', '1962-02-24', ''],
      ['cedar', '1963-06-19', '1975-05-30'],
      ['damson', '1964-12-10', '1977-09-02'],
      ['elm', '1965-07-22', '1979-12-31'],
      ['fir', '1966-08-05', '1981-04-17'],
    ];
    const xs = [50, 110, 160.3];
    const runs = rows.flatMap((r, i) => r.flatMap((t, k) => (t ? [run(t, xs[k], 100 + i * 12.8)] : [])));
    const [table, ...more] = findAlignedTables(buildFragments(runs), 10, () => false);
    assert.equal(more.length, 0);
    assert.deepEqual(table.rows, rows);
  });
  it('leaves two columns of running text and a list with standing markers alone', () => {
    const prose = Array.from({ length: 6 }, (_, i) => [cell('a long line of running text in the left column here', 72, 100 + i * 12), cell('and its neighbour in the right column of the page', 320, 100 + i * 12)]).flat();
    assert.deepEqual(findAlignedTables(prose, 10, () => false), []);
    const list = ['Partition the site set.', 'Compute a perfect phylogeny.', 'Use dynamic programming.'].flatMap((t, i) => [cell(`${i + 1}`, 80, 100 + i * 14), cell(t, 110, 100 + i * 14)]);
    assert.deepEqual(findAlignedTables(list, 10, () => false), []);
  });
});

describe('tables with rules', () => {
  const cell = (text: string, x0: number, baseline: number, size = 10): Fragment => ({
    text, x0, x1: x0 + text.length * 5, baseline, top: baseline - 8, bottom: baseline + 2, size, fontId: 'Body', runs: [{ text, x0, x1: x0 + text.length * 5, baseline, top: baseline - 8, bottom: baseline + 2, size, fontId: 'Body' }],
  });
  it('reads a grid ruled a cell at a time with no rule at its sides as one table, a header cell on two lines as one cell', () => {
    // (DocBook's LaTeX tables: \cline under each column between rows, "|" between the columns only.)
    const xs = [77.5, 152, 266, 381, 517.5];
    const ys = [128.7, 153, 165, 177];
    const segments: Segment[] = [];
    ys.forEach((y, i) => {
      if (i === 0 || i === ys.length - 1) segments.push({ x0: xs[0], y0: y, x1: xs[4], y1: y });
      else for (let k = 0; k < 4; k++) segments.push({ x0: xs[k], y0: y, x1: xs[k + 1], y1: y });
      if (i < ys.length - 1) for (const x of xs.slice(1, 4)) segments.push({ x0: x, y0: y, x1: x, y1: ys[i + 1] });
    });
    const fragments = [
      cell('hours the flag', 272, 138), cell('signal', 83, 143.5), cell('flag shown', 158, 143.5), cell('meaning', 387, 143.5), cell('is flown', 272, 149),
      cell('open', 83, 162), cell('green', 158, 162), cell('8-20', 272, 162), cell('plots may be worked', 387, 162),
      cell('frost', 83, 174), cell('blue', 158, 174), cell('0-24', 272, 174), cell('cover the seedlings', 387, 174),
    ];
    const tables = findTables(segments, fragments);
    assert.equal(tables.length, 1);
    assert.deepEqual(tables[0].rows, [
      ['signal', 'flag shown', 'hours the flag is flown', 'meaning'],
      ['open', 'green', '8-20', 'plots may be worked'],
      ['frost', 'blue', '0-24', 'cover the seedlings'],
    ]);
  });
  it('reads lines between two rules as rows where a cell\'s first word would have fitted on the line above, whatever case it starts with', () => {
    // (R's xtable: \hline round the header and at the end only; "|l|R{2.5cm}|L{4cm}|".)
    const xs = [150, 200, 272, 400];
    const segments: Segment[] = [];
    for (const y of [100, 114, 152]) segments.push({ x0: xs[0], y0: y, x1: xs[3], y1: y });
    for (const x of xs) segments.push({ x0: x, y0: 100, x1: x, y1: 152 });
    const rows = [['month', 'honey', 'remark'], ['may', '4.5', 'rape in flower'], ['june', '9.0', 'lime trees'], ['july', '2.2', 'dearth']];
    const fragments: Fragment[] = [];
    rows.forEach((row, i) => {
      const baseline = 110 + i * 12 + (i ? 2 : 0);
      fragments.push(cell(row[0], 156, baseline), cell(row[1], 266 - row[1].length * 5, baseline), cell(row[2], 278, baseline));
    });
    const [table, ...more] = findTables(segments, fragments);
    assert.equal(more.length, 0);
    assert.deepEqual(table.rows, rows);
  });
  it('leaves listings in framed boxes, a paragraph between them, to the text (no table of their words)', () => {
    // (Each box: a rule over and under it, side rules a line at a time, as listings' frame=single draws them.)
    const mono = (text: string, x0: number, baseline: number): Fragment => ({ ...cell(text, x0, baseline), fontId: 'NimbusMonL-Regu', runs: text.split(' ').map((w, k, all) => {
      const at = x0 + all.slice(0, k).join(' ').length * 6 + (k ? 6 : 0);
      return { text: w, x0: at, x1: at + w.length * 6, baseline, top: baseline - 8, bottom: baseline + 2, size: 10, fontId: 'NimbusMonL-Regu' };
    }) });
    const box = (top: number, bottom: number): Segment[] => [
      { x0: 56, y0: top, x1: 538, y1: top }, { x0: 56, y0: bottom, x1: 538, y1: bottom },
      { x0: 57, y0: top + 1, x1: 57, y1: bottom - 1 }, { x0: 537, y0: top + 1, x1: 537, y1: bottom - 1 },
    ];
    const fragments = [mono('$ kilnlog stop --flush', 58, 120), cell('When the firing has ended, power the controller down.', 56, 145), mono('$ kilnctl off -w 30', 58, 163)];
    const isCode = (f: Fragment) => f.fontId.includes('Mon');
    assert.deepEqual(findTables([...box(111, 124), ...box(154, 167)], fragments, isCode), []);
  });
});

describe('rules drawn as one-pixel stencil masks (dvips rules as Ghostscript writes them)', () => {
  it('are read as filled boxes, as rules drawn as paths are', async () => {
    // A bar 120pt by 0.48pt and one 0.48pt by 12pt: inline 1x1 image masks scaled by the CTM.
    const mask = (a: number, d: number, e: number, f: number) => `q ${a} 0 0 ${d} ${e} ${f} cm\nBI\n/IM true\n/W 1\n/H 1\n/BPC 1\nID \x00\nEI Q\n`;
    const content = Buffer.from(mask(120, -0.48, 100, 700) + mask(0.48, -12, 100, 699.5) + 'BT /F1 10 Tf 104 690 Td (Mark) Tj ET\n', 'latin1');
    const pdf = writePdf([
      { dict: '<< /Type /Catalog /Pages 2 0 R >>' },
      { dict: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
      { dict: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>' },
      { dict: '<< >>', stream: content },
      { dict: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>' },
    ]);
    const doc = await openPdf(new Uint8Array(pdf));
    try {
      const fills = doc.getPage(1).fastText()?.rules?.fills ?? [];
      const boxes: number[][] = [];
      for (let i = 0; i + 3 < fills.length; i += 4) boxes.push(fills.slice(i, i + 4).map((v) => Math.round(v * 100) / 100));
      assert.deepEqual(boxes, [[100, 699.52, 220, 700], [100, 687.5, 100.48, 699.5]]);
    } finally {
      doc.destroy();
    }
  });
});

describe('a monospaced name at the end of a prose paragraph', () => {
  /** One line of the block: a fragment of one run in `font`, at the left edge unless x0 says otherwise. */
  const line = (text: string, baseline: number, font: string, x0 = 72): Fragment => {
    const r = { text, x0, x1: x0 + text.length * 5, baseline, top: baseline - 8, bottom: baseline + 2, size: 10, fontId: font };
    return { ...r, runs: [r] };
  };
  const block = (...lines: Fragment[]) => ({ lines, x0: 72, x1: 400, top: lines[0].top, bottom: lines[lines.length - 1].bottom, size: 10, fontId: lines[0].fontId });

  it('stays in the paragraph when it ends it as prose does (fhs: "... must be located in / /dev.")', () => {
    const b = block(line('For example, device lock files must be placed in /var/lock and devices must be located in', 100, 'Times-Roman'), line('/dev.', 112, 'Courier'));
    assert.equal(segments(b).length, 1);
  });
  it('is still a listing when it ends without punctuation, is indented, follows a sentence end or runs to several lines', () => {
    const prose = line('normally we do nothing special inside the float, but that can be changed with the doinside option', 100, 'Times-Roman');
    assert.equal(segments(block(prose, line('45 \\def\\@CTdoinside{\\relax}', 112, 'Courier'))).length, 2, 'no punctuation: a code line');
    assert.equal(segments(block(prose, line('do.call.', 112, 'Courier', 100))).length, 2, 'indented');
    assert.equal(segments(block(line('The call is made as follows:', 100, 'Times-Roman'), line('do.call(f, args).', 112, 'Courier'))).length, 2, 'after a sentence end');
    assert.equal(segments(block(prose, line('x <- 1;', 112, 'Courier'), line('y <- 2;', 124, 'Courier'))).length, 2, 'two lines');
  });
});

describe('paragraph blocks', () => {
  const line = (text: string, baseline: number, fontId: string, x0 = 72): Fragment => ({
    text, x0, x1: x0 + text.length * 5, baseline, top: baseline - 8, bottom: baseline + 2, size: 10, fontId, runs: [],
  });
  it('parts a bold heading at the body size from the paragraph under it set off by the paragraph spacing (groff ms .NH over .LP)', () => {
    const blocks = groupBlocks([
      line('2.1.3.1. Stowing the Sails', 100, 'Times-Bold'),
      line('The sails are folded along the boom and tied at every second hoop, so that', 115.6, 'Times-Roman'),
      line('the wind cannot open them in the night.', 127.6, 'Times-Roman'),
    ]);
    assert.deepEqual(blocks.map((b) => b.length), [1, 2]);
    // Indented under it (.PP), the same.
    assert.deepEqual(groupBlocks([line('2.2. Ropes', 100, 'Times-Bold'), line('Ropes are coiled', 115.6, 'Times-Roman', 90)]).map((b) => b.length), [1, 1]);
  });
  it('parts a bold line set out left of the text edge from the paragraph under it (a man page\'s .SS), not a tag at the edge', () => {
    const blocks = groupBlocks([
      line('The gulls nest on the east cliff and are counted in May by two', 76, 'Times-Roman', 108),
      line('wardens.', 88, 'Times-Roman', 108),
      line('Counting the terns', 104.8, 'Times-Bold', 87),
      line('The terns are counted from the boat, a tally for each ledge,', 116.8, 'Times-Roman', 108),
      line('and the tallies added on shore.', 128.8, 'Times-Roman', 108),
      line('Ledge or shelf', 145.6, 'Times-Bold', 108),
      line('A shelf of the cliff with a painted number.', 157.6, 'Times-Roman', 144),
    ]);
    assert.deepEqual(blocks.map((b) => b.map((l) => l.text.split(' ')[0])), [['The', 'wardens.'], ['Counting'], ['The', 'and'], ['Ledge', 'A']]);
  });
  it('keeps a bold line over a line in another weight at the paragraph\'s own line spacing', () => {
    const blocks = groupBlocks([line('Warning: the boom swings across', 100, 'Times-Bold'), line('when the boat turns through the wind.', 112, 'Times-Roman')]);
    assert.deepEqual(blocks.map((b) => b.length), [2]);
  });
});

describe('rules round prose and listings', () => {
  const f = (text: string, x0: number, baseline: number, fontId: string): Fragment => {
    const x1 = x0 + text.length * 6;
    return { text, x0, x1, baseline, top: baseline - 8, bottom: baseline + 2, size: 10, fontId, runs: [{ text, x0, x1, top: baseline - 8, bottom: baseline + 2, baseline, size: 10, fontId }] } as Fragment;
  };
  const box = { x0: 30, x1: 390, top: 80, bottom: 200, rows: [['']] };
  it('is no table where only listing lines have pieces side by side', () => {
    const page = [f('Macro TIDE_MAX', 33, 100, 'Helvetica-Bold'), f('#define', 40, 120, 'Courier'), f('TIDE_MAX;', 94, 120, 'Courier'), f('The highest tide the gauge reads.', 33, 140, 'Helvetica')];
    assert.equal(ruledProse(box, page), true);
  });
  it('is a table where a row of text has cells side by side', () => {
    const page = [f('#define TIDE_MAX;', 40, 120, 'Courier'), f('gauge', 33, 140, 'Helvetica'), f('metres', 200, 140, 'Helvetica')];
    assert.equal(ruledProse(box, page), false);
    assert.equal(ruledProse(box, [f('gauge', 33, 140, 'Helvetica'), f('pier', 33, 160, 'Helvetica')]), false, 'a one-column table of text');
  });
});

describe('numbered lines', () => {
  const line = (text: string, baseline: number, x1: number): Fragment => ({ text, x0: 108, x1, baseline, top: baseline - 8, bottom: baseline + 2, size: 10, fontId: 'Times-Roman', runs: [] });
  const parts = (lines: Fragment[]) => blockToParts({ lines, x0: 108, x1: 540, top: 0, bottom: 200, size: 10, fontId: 'Times-Roman' }, null, false, new Vocabulary()).map((p) => p.md);
  it('keeps a line that starts with a number in its paragraph when the line before runs on', () => {
    assert.deepEqual(parts([line('The buoys are painted every spring (all but numbers 12 and', 100, 540), line('40) and checked in autumn.', 112, 300)]), ['The buoys are painted every spring (all but numbers 12 and 40) and checked in autumn.']);
  });
  it('still starts a list after a sentence end or a short line', () => {
    assert.deepEqual(parts([line('The buoys are checked as follows:', 100, 540), line('1. Lift the chain.', 112, 300)]), ['The buoys are checked as follows:', '1. Lift the chain.']);
    assert.deepEqual(parts([line('Steps', 100, 200), line('1. Lift the chain.', 112, 300)]), ['Steps', '1. Lift the chain.']);
  });
});

describe('unnumbered titles', () => {
  const text = (lines: string[], y: number, bold: boolean, x0 = 72): PageItem => {
    const fragments = lines.map((t, k): Fragment => ({ text: t, x0, x1: x0 + t.length * 5, baseline: y + k * 12, top: y + k * 12 - 8, bottom: y + k * 12 + 2, size: 10, fontId: bold ? 'Helvetica-Bold' : 'Helvetica', runs: [] }));
    return { kind: 'text', bold, block: { lines: fragments, x0, x1: Math.max(...fragments.map((f) => f.x1)), top: y - 8, bottom: y + lines.length * 12, size: 10, fontId: fragments[0].fontId } };
  };
  it('takes a bold line at the body size over a paragraph of prose for a title', () => {
    const items = [
      text(['Adding a new pier to the chart'], 100, true),
      text(['Copy the file of a pier nearby, change its name and position,', 'and replace its soundings with the new survey.'], 120, false),
      text(['Chapter 8. Moorings'], 200, true),
      text(['Home'], 220, false),
      text(['A bold sentence that ends as sentences do.'], 260, true),
      text(['Another paragraph follows it here, in the text face, over two', 'lines.'], 280, false),
    ];
    const found = titlesOverParagraphs(items, 10);
    assert.deepEqual([...found].map((b) => b.lines[0].text), ['Adding a new pier to the chart']);
  });
  it('takes a short bold line set out left of the page\'s text edge, over a paragraph at that edge, for a title', () => {
    const items = [
      text(['Nests are counted in May from the cliff path, never from below,', 'and each count is written in the log.'], 100, false, 108),
      text(['Terns'], 130, true, 87),
      text(['The terns are counted from the boat, a tally for each ledge,', 'and the tallies added on shore.'], 142, false, 108),
      text(['Ledge'], 180, true, 108),
      text(['A shelf of the cliff with a painted number.'], 192, false, 144),
    ];
    assert.deepEqual([...titlesOverParagraphs(items, 10)].map((b) => b.lines[0].text), ['Terns']);
  });
});
