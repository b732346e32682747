/**
 * Quality on real documents (test/fixtures/corpus/: Debian documentation, forms, a test page),
 * not on PDFs this project generated: pdf-text must agree with poppler's pdftotext on the
 * words, in order (longest common subsequence of words over the reference's words, page by
 * page), and must not fall below what the pdf.js engine scored before PDFium (floor.json).
 * pdf-md and pdf-json must give contract-valid answers on every file. The references are
 * committed: no poppler at run time.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { isAppError } from '../../src/http/app-error.ts';
import { inspectDocument } from '../../src/tools/inspect-document.ts';
import { runTool } from '../../src/tools/run-tool.ts';
import { assertMatchesContract } from '../helpers/contract.ts';
import { CORPUS_DIR, corpusDocuments, wordAgreement } from '../fixtures/corpus-fixtures.ts';

const floor = JSON.parse(readFileSync(`${CORPUS_DIR}floor.json`, 'utf8')) as { agreement: Record<string, number> };

/** What every text-layer file must reach (the bar). */
const MIN_AGREEMENT = 0.98;

/**
 * Files where pdftotext's words are not a fair bar, with the reason; they are held to their
 * floor only. crc-doc sets C code listings letter by letter ("v a l u e") and formulas with
 * sub- and superscripts, which each engine cuts into words differently.
 */
const BELOW_BAR: Record<string, string> = { 'crc-doc.1.0': 'letter-spaced code listings and formulas' };

/**
 * Room under the floor, with the reason. shared-mime-info-spec prints a hex dump in three
 * monospaced column groups: pdf.js (and pdftotext) read it column by column, PDFium's boxes
 * put each dump line on one row, as the dump means it: 8 of 5,236 words out of pdftotext's order.
 */
const FLOOR_SLACK: Record<string, number> = { 'shared-mime-info-spec': 0.002 };

// Documents never fail a tool: no timeouts of a test here, just the work.
const noOcr = { ocr: () => assert.fail('no OCR for text-layer PDFs') };

describe('quality corpus: real PDFs against pdftotext', () => {
  const docs = corpusDocuments();

  it('holds at least 8 documents, each with its reference and a floor score', () => {
    assert.ok(docs.length >= 8, `${docs.length} documents`);
    for (const d of docs) assert.equal(typeof floor.agreement[d.name], 'number', `floor.json has ${d.name}`);
  });

  for (const doc of docs) {
    it(`${doc.name}: pdf-text agrees with pdftotext word for word, in order`, async () => {
      const result = await runTool('pdf-text', new Uint8Array(doc.pdf), noOcr);
      await assertMatchesContract('pdfText', 200, result);
      assert.equal(result.text.split('\f').length, result.pages, 'one \\f between pages');
      const { agreement, matched, referenceWords } = wordAgreement(result.text, doc.reference);
      const score = `${doc.name}: ${agreement.toFixed(4)} (${matched} of ${referenceWords} words)`;
      assert.ok(agreement >= floor.agreement[doc.name] - (FLOOR_SLACK[doc.name] ?? 0), `${score} is below the pdf.js floor ${floor.agreement[doc.name]}`);
      if (!BELOW_BAR[doc.name]) assert.ok(agreement >= MIN_AGREEMENT, `${score} is below ${MIN_AGREEMENT}`);
    });

    it(`${doc.name}: pdf-md and pdf-json answer within the contract`, async () => {
      const md = await runTool('pdf-md', new Uint8Array(doc.pdf), noOcr);
      await assertMatchesContract('pdfMd', 200, md);
      const json = await runTool('pdf-json', new Uint8Array(doc.pdf), noOcr);
      await assertMatchesContract('pdfJson', 200, json);
      assert.equal(json.pages.length, md.pages);
      // Every word of pdf-json's blocks is a word of pdf-text: the same characters underneath.
      const text = await runTool('pdf-text', new Uint8Array(doc.pdf), noOcr);
      const blockWords = json.pages.flatMap((p) => p.blocks.map((b) => b.text)).join(' ').split(/\s+/).filter(Boolean).length;
      assert.equal(blockWords, text.text.split(/\s+/).filter(Boolean).length);
    });
  }
});

describe('mutated real PDFs', () => {
  it('every answer is a result or a 422 invalid_document, never a crash or a hang', async () => {
    // Seeded, so a failure reproduces: 60 copies of a real PDF with 1-50 random bytes changed,
    // through the pre-quote checks and then the tool, as a paid call would go.
    const base = corpusDocuments().find((d) => d.name === 'shared-mime-info-spec')!.pdf;
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const tools = ['pdf-text', 'pdf-md', 'pdf-json'] as const;
    const outcomes = { ok: 0, rejected: 0 };
    for (let i = 0; i < 60; i++) {
      const bytes = Buffer.from(base);
      const changes = 1 + Math.floor(random() * 50);
      for (let k = 0; k < changes; k++) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
      try {
        await inspectDocument(tools[i % 3], bytes, { maxPages: 2000 });
        await runTool(tools[i % 3], bytes, noOcr);
        outcomes.ok++;
      } catch (error) {
        assert.ok(isAppError(error) && error.code === 'invalid_document' && error.status === 422, `mutation ${i}: ${error}`);
        outcomes.rejected++;
      }
    }
    assert.ok(outcomes.ok > 0, 'most mutations still read');
  });
});
