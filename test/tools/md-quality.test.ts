/**
 * pdf-md's quality, measured: the olmOCR-bench-style unit tests of test/fixtures/md-cases.ts
 * (absent, present, order, table, heading, not_heading, code) over the real PDFs of the
 * quality corpus and the structure set, run through the tool as a buyer would. The run fails
 * when any category passes fewer tests than recorded in md-floor.json, so no change can trade
 * one kind of quality for another unnoticed. bench/pdf-md.ts prints the same figures beside
 * other converters.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { mergeParts, runTool, runToolPart } from '../../src/tools/run-tool.ts';
import { assertMatchesContract } from '../helpers/contract.ts';
import { CATEGORIES, MD_CASES } from '../fixtures/md-cases.ts';
import { HOLDOUT_CASES } from '../fixtures/md-holdout.ts';
import { caseDocuments, parseMarkdown, runCase, scoreOutputs } from '../fixtures/md-checks.ts';

const floor = JSON.parse(readFileSync(new URL('../fixtures/md-floor.json', import.meta.url), 'utf8')) as { passed: Record<string, number>; holdout: Record<string, number> };
const noOcr = { ocr: () => assert.fail('no OCR for text-layer PDFs') };

describe('pdf-md quality: olmOCR-bench-style unit tests on real PDFs', () => {
  it('the checks themselves tell right from wrong', () => {
    const md = [
      '# Title',
      '<!-- page 2 -->',
      'A sentence that runs across a break.',
      '',
      '| Directory | Description |',
      '| --- | --- |',
      '| bin | Essential command binaries |',
      '',
      '```',
      'Version ::= INTEGER',
      '```',
    ].join('\n');
    const p = parseMarkdown(md);
    const doc = 'x';
    assert.ok(runCase(p, { doc, type: 'heading', text: 'Title', level: 1 }));
    assert.ok(runCase(parseMarkdown('## 1. Introduction'), { doc, type: 'heading', text: '1. Introduction' }), 'a numbered heading keeps its number');
    assert.ok(runCase(parseMarkdown('1. first item'), { doc, type: 'present', text: 'first item' }));
    assert.ok(!runCase(p, { doc, type: 'heading', text: 'Title', level: 2 }));
    assert.ok(runCase(p, { doc, type: 'present', text: 'A sentence that runs  across a break.' }));
    assert.ok(!runCase(p, { doc, type: 'present', text: 'page 2' }), 'comments are not text');
    assert.ok(runCase(p, { doc, type: 'absent', line: '2' }));
    assert.ok(runCase(p, { doc, type: 'table', cell: 'bin', right: 'Essential command binaries', up: 'Directory', columns: 2 }));
    assert.ok(!runCase(p, { doc, type: 'table', cell: 'bin', columns: 3 }));
    assert.ok(runCase(p, { doc, type: 'code', text: 'Version ::= INTEGER' }));
    assert.ok(!runCase(p, { doc, type: 'code', text: 'A sentence that runs across a break.' }));
    assert.ok(runCase(p, { doc, type: 'order', before: 'Title', after: 'Version' }));
    assert.ok(!runCase(p, { doc, type: 'order', before: 'Version', after: 'Title' }));
    assert.ok(!runCase(p, { doc, type: 'not_heading', text: 'Title' }));
    assert.ok(!runCase(p, { doc, type: 'not_heading', text: 'nowhere' }), 'a text that is not there passes nothing');
  });

  it('no category passes fewer tests than recorded', async () => {
    const outputs = new Map<string, string>();
    for (const d of caseDocuments()) {
      const result = await runTool('pdf-md', new Uint8Array(d.pdf), noOcr);
      await assertMatchesContract('pdfMd', 200, result);
      outputs.set(d.name, result.markdown);
    }
    const report = scoreOutputs(outputs);
    const summary = CATEGORIES.map((c) => `${c} ${report.byCategory[c].passed}/${report.byCategory[c].total}`).join(', ');
    console.log(`pdf-md quality: ${summary}; overall ${report.overall.passed}/${report.overall.total} of ${MD_CASES.length}`);
    for (const c of CATEGORIES) assert.ok(report.byCategory[c].passed >= floor.passed[c], `${c}: ${report.byCategory[c].passed} passed, floor ${floor.passed[c]} (${summary})`);
  });

  it('on the holdout documents (never tuned on), no category passes fewer tests than first measured', async () => {
    const outputs = new Map<string, string>();
    for (const d of caseDocuments(HOLDOUT_CASES)) {
      const result = await runTool('pdf-md', new Uint8Array(d.pdf), noOcr);
      await assertMatchesContract('pdfMd', 200, result);
      outputs.set(d.name, result.markdown);
    }
    const report = scoreOutputs(outputs, HOLDOUT_CASES);
    const summary = CATEGORIES.map((c) => `${c} ${report.byCategory[c].passed}/${report.byCategory[c].total}`).join(', ');
    console.log(`pdf-md holdout: ${summary}; overall ${report.overall.passed}/${report.overall.total}`);
    assert.ok(report.overall.total >= 15, 'a holdout worth the name');
    for (const c of CATEGORIES) assert.ok(report.byCategory[c].passed >= floor.holdout[c], `holdout ${c}: ${report.byCategory[c].passed} passed, floor ${floor.holdout[c]} (${summary})`);
  });
});

describe('pdf-json structure on a real manual', () => {
  it('marks libtasn1\'s page numbers as furniture, its sections as headings, its examples as code', async () => {
    const doc = caseDocuments().find((d) => d.name === 'libtasn1')!;
    const result = await runTool('pdf-json', new Uint8Array(doc.pdf), noOcr);
    await assertMatchesContract('pdfJson', 200, result);
    const blocks = result.pages.flatMap((p) => p.blocks);
    const kindOf = (text: string) => blocks.find((b) => b.text.replace(/\s+/g, ' ').includes(text));
    const exactly = (text: string) => blocks.find((b) => b.text === text);
    // Kinds are judged page by page (a split job must answer the same): a page number set
    // apart is furniture; a running header's text needs other pages, which only pdf-md sees.
    assert.equal(exactly('23')?.kind, 'header');
    assert.equal(exactly('2.2 Naming')?.kind, 'heading');
    assert.equal(kindOf('2.2 Naming . .')?.kind, 'list', 'the contents entry is a list item, not a heading');
    assert.equal(kindOf('Version ::= INTEGER')?.kind, 'code');
    assert.equal(kindOf('This document describes the Libtasn1 library')?.kind, 'paragraph');
    for (const p of result.pages) for (const b of p.blocks) assert.equal(b.page, p.page);
    // Levels only on headings, and the chapter outranks its sections.
    assert.ok(blocks.every((b) => (b.kind === 'heading') === (b.level !== null)));
    assert.ok(exactly('2 ASN.1 structure handling')!.level! < exactly('2.1 ASN.1 syntax')!.level!);
    // Numbered pages (3-36) carry their number as furniture.
    assert.ok(blocks.filter((b) => b.kind === 'footer' || b.kind === 'header').length >= 30);
  });
});

describe('pdf-json exposes the structure pdf-md renders: tables with rows and cells, the outline', () => {
  const json = async (name: string) => {
    const doc = caseDocuments().find((d) => d.name === name)!;
    const result = await runTool('pdf-json', new Uint8Array(doc.pdf), noOcr);
    await assertMatchesContract('pdfJson', 200, result);
    return { doc, result };
  };

  it('gives FHS\'s and XLFD\'s tables their rows and columns, and marks their text as table blocks', async () => {
    const { result } = await json('fhs-3.0');
    const page11 = result.pages[10];
    const dirs = page11.tables.find((t) => t.rows.some((r) => r[0] === 'bin'));
    assert.ok(dirs, 'the /-directory table of page 11');
    assert.deepEqual(dirs.rows[0], ['Directory', 'Description']);
    assert.deepEqual(dirs.rows.find((r) => r[0] === 'bin'), ['bin', 'Essential command binaries']);
    assert.ok(dirs.rows.every((r) => r.length === 2));
    assert.equal(dirs.cells, null, 'no cell spans');
    // The table's box holds its cells' blocks, and those blocks are of kind table.
    const inside = page11.blocks.filter((b) => b.x >= dirs.x - 1 && b.x + b.width <= dirs.x + dirs.width + 1 && b.y >= dirs.y - 1 && b.y + b.height <= dirs.y + dirs.height + 1);
    assert.ok(inside.some((b) => b.text.includes('Essential command binaries')));
    assert.ok(inside.every((b) => b.kind === 'table'), JSON.stringify(inside.filter((b) => b.kind !== 'table').map((b) => b.text)));

    const xlfd = (await json('xlfd')).result;
    const codes = xlfd.pages.flatMap((p) => p.tables).find((t) => t.rows[0]?.join('|') === 'Code|English Translation|Description');
    assert.ok(codes, 'the Code / English Translation / Description table');
    assert.ok(codes.rows.length >= 4 && codes.rows.every((r) => r.length === 3));
  });

  it('keeps the spanning cells of a ruled table (booktabs) in cells', async () => {
    const { result } = await json('booktabs');
    const spanning = result.pages.flatMap((p) => p.tables).filter((t) => t.cells);
    assert.ok(spanning.length >= 1);
    for (const t of spanning) {
      assert.ok(t.cells!.flat().some((c) => c.colspan > 1 || c.rowspan > 1), 'a table listed with cells has a spanning one');
      // Every cell's text is in rows at the cell's start.
      t.cells!.forEach((row, i) => row.forEach((c) => assert.equal(t.rows[i][c.col], c.text)));
    }
  });

  it('gives libtasn1\'s outline (bookmarks) with levels and pages, the same when the job is split', async () => {
    const { doc, result } = await json('libtasn1');
    assert.deepEqual(result.outline.find((e) => e.title === '2 ASN.1 structure handling'), { title: '2 ASN.1 structure handling', level: 1, page: 5 });
    assert.equal(result.outline.find((e) => e.title === 'ASN.1 syntax')?.level, 2);
    assert.ok(result.outline.every((e) => e.page === null || (e.page >= 1 && e.page <= result.pages.length)));
    // Two workers taking halves: the chunk of page 1 carries the outline, the merge is the whole answer.
    const parts = await Promise.all([0, 1].map((index) => runToolPart('pdf-json', new Uint8Array(doc.pdf), { index, count: 2, minPages: 1 }, noOcr)));
    assert.ok(parts.every((p) => p.length === 1));
    assert.deepEqual(parts[1][0].result.outline, []);
    assert.deepEqual(mergeParts('pdf-json', parts.reverse()), result);
    // A document without bookmarks has an empty outline.
    assert.deepEqual((await json('fhs-3.0')).result.outline, []);
  });
});
