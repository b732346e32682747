/**
 * The PDF outline (bookmarks) as the fast reader reads it from the objects
 * (src/tools/pdf/fast-text/outline.ts) against PDFium's bookmark functions, its reference:
 * the same titles, depths and pages on every real document of the suites, and on hand-made
 * outlines that are broken on purpose (a sibling loop, a child that points back to its
 * parent, a destination by name, a page that does not exist); where it cannot match PDFium it
 * must hand the outline back (null) rather than give another one.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { openFastText } from '../../src/tools/pdf/fast-text/fast-text.ts';
import { openPdf } from '../../src/tools/pdf/open-pdf.ts';
import { pdfString, writePdf, type RawObject } from '../fixtures/raw-pdf.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url);

/** Both readings of one document's outline, and whether the fast reader answered at all. */
async function outlines(bytes: Uint8Array) {
  const fast = await openPdf(bytes);
  const pdfium = await openPdf(bytes, { fastText: false });
  try {
    const direct = openFastText(bytes, fast.numPages)?.outline(10_000, 16) ?? null;
    return { fast: fast.outline(), pdfium: pdfium.outline(), fastAnswered: direct !== null };
  } finally {
    fast.destroy();
    pdfium.destroy();
  }
}

describe('the fast outline reader against PDFium', () => {
  it('gives PDFium\'s outline on every document of the corpus, the quality suite and the holdout', async () => {
    let withOutline = 0;
    const handedOver: string[] = [];
    for (const dir of ['corpus', 'quality', 'holdout']) {
      for (const f of readdirSync(new URL(`${dir}/`, FIXTURES)).filter((x) => x.endsWith('.pdf')).sort()) {
        const { fast, pdfium, fastAnswered } = await outlines(readFileSync(new URL(`${dir}/${f}`, FIXTURES)));
        assert.deepEqual(fast, pdfium, `${dir}/${f}`);
        if (pdfium.length) withOutline++;
        if (pdfium.length && !fastAnswered) handedOver.push(`${dir}/${f}`);
      }
    }
    // The fast path must be the one taken, or this test compares PDFium with itself.
    assert.ok(withOutline >= 8, `${withOutline} documents with an outline`);
    // microtype's and hyperref's manuals have a bookmark with a GoToR action (a destination in
    // another file), which the fast reader leaves to PDFium; every other real outline is read
    // without it.
    assert.deepEqual(handedOver, ['quality/microtype.pdf', 'holdout/hyperref-doc.pdf']);
  });

  /** One page and the given outline objects (numbered from 4: 1 catalog, 2 pages, 3 page). */
  const withOutline = (items: RawObject[], catalogExtra = '') =>
    writePdf([
      { dict: `<< /Type /Catalog /Pages 2 0 R /Outlines 4 0 R${catalogExtra} >>` },
      { dict: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
      { dict: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>' },
      ...items,
    ]);
  const item = (title: string, rest: string) => ({ dict: `<< /Title (${pdfString(title)}) ${rest} >>` });

  it('matches PDFium (or hands over) on broken and unusual outlines, and never hangs', async () => {
    const cases: Record<string, Buffer> = {
      'a sibling loop': withOutline([
        { dict: '<< /Type /Outlines /First 5 0 R /Last 6 0 R /Count 2 >>' },
        item('One', '/Parent 4 0 R /Next 6 0 R /Dest [3 0 R /Fit]'),
        item('Two', '/Parent 4 0 R /Next 5 0 R /Dest [3 0 R /Fit]'),
      ]),
      'a child that points back to its parent': withOutline([
        { dict: '<< /Type /Outlines /First 5 0 R /Last 5 0 R /Count 1 >>' },
        item('Parent', '/Parent 4 0 R /First 6 0 R /Last 6 0 R /Dest [3 0 R /Fit]'),
        item('Child', '/Parent 5 0 R /First 5 0 R /Dest [3 0 R /Fit]'),
      ]),
      'a destination to a page that does not exist, and none at all': withOutline([
        { dict: '<< /Type /Outlines /First 5 0 R /Last 6 0 R /Count 2 >>' },
        item('Nowhere', '/Parent 4 0 R /Next 6 0 R /Dest [99 0 R /Fit]'),
        item('No destination', '/Parent 4 0 R'),
      ]),
      'a named destination and a GoTo action': withOutline(
        [
          { dict: '<< /Type /Outlines /First 5 0 R /Last 6 0 R /Count 2 >>' },
          item('By name', '/Parent 4 0 R /Next 6 0 R /Dest (chap1)'),
          item('By action', '/Parent 4 0 R /A << /S /GoTo /D [3 0 R /XYZ 0 0 0] >>'),
          { dict: '<< /Names [(chap1) [3 0 R /Fit]] >>' },
        ],
        ' /Names << /Dests 7 0 R >>',
      ),
      'a name tree that loops': withOutline(
        [
          { dict: '<< /Type /Outlines /First 5 0 R /Last 5 0 R /Count 1 >>' },
          item('By name', '/Parent 4 0 R /Dest (missing)'),
          { dict: '<< /Kids [6 0 R 6 0 R] >>' },
        ],
        ' /Names << /Dests 6 0 R >>',
      ),
    };
    for (const [name, bytes] of Object.entries(cases)) {
      const { fast, pdfium, fastAnswered } = await outlines(bytes);
      assert.deepEqual(fast, pdfium, name);
      // Read by the fast reader itself, except the looping name tree, which it gives up on
      // after its visit budget and leaves to PDFium.
      assert.equal(fastAnswered, name !== 'a name tree that loops', `${name}: read by the fast reader`);
    }
  });
});
