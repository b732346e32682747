/**
 * Optional content a viewer hides is not text (src/tools/pdf/fast-text/optional-content.ts):
 * hand-made one-page PDFs whose default configuration hides some groups, used the ways real
 * documents use them (a marked-content sequence naming a group in /Properties, a form XObject
 * with /OC, a membership dictionary with each visibility policy, /BaseState /OFF with an /ON
 * list). pdf-text keeps what is visible and leaves out what is hidden; a visibility expression
 * (/VE) is left to PDFium (the page is declined, not guessed).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openFastText } from '../../src/tools/pdf/fast-text/fast-text.ts';
import { openPdf } from '../../src/tools/pdf/open-pdf.ts';
import { pdfText } from '../../src/tools/pdf-text.tool.ts';
import { writePdf } from '../fixtures/raw-pdf.ts';

/**
 * One page: objects 1 catalog, 2 pages, 3 page, 4 font, 5 content, 6 group A, 7 group B, 8 a
 * form XObject marked with `formOc`, then `extra` (from 9). The content shows "Always" outside
 * any group and then each of `shows` inside its own /OC sequence.
 */
function ocPdf(opts: { config: string; shows: [string, string][]; properties: string; formOc?: string; extra?: string[] }): Buffer {
  const line = (text: string, y: number) => `BT /F1 12 Tf 72 ${y} Td (${text}) Tj ET`;
  const content = [line('Always', 700), ...opts.shows.map(([prop, text], i) => `/OC /${prop} BDC ${line(text, 680 - 20 * i)} EMC`), '/Fm1 Do'].join('\n');
  const form = 'BT /F1 12 Tf 72 400 Td (InTheForm) Tj ET';
  return writePdf([
    { dict: `<< /Type /Catalog /Pages 2 0 R /OCProperties << /OCGs [6 0 R 7 0 R] /D ${opts.config} >> >>` },
    { dict: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    { dict: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> /XObject << /Fm1 8 0 R >> /Properties << ${opts.properties} >> >> /Contents 5 0 R >>` },
    { dict: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>' },
    { dict: '<< >>', stream: Buffer.from(content, 'latin1') },
    { dict: '<< /Type /OCG /Name (A) >>' },
    { dict: '<< /Type /OCG /Name (B) >>' },
    { dict: `<< /Type /XObject /Subtype /Form /BBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >>${opts.formOc ? ` /OC ${opts.formOc}` : ''} >>`, stream: Buffer.from(form, 'latin1') },
    ...(opts.extra ?? []).map((dict) => ({ dict })),
  ]);
}

async function textOf(bytes: Uint8Array): Promise<{ words: string[]; fast: boolean }> {
  const doc = await openPdf(bytes);
  try {
    const fast = openFastText(bytes, doc.numPages)?.pageText(1) != null;
    return { words: (await pdfText(doc)).text.split(/\s+/).filter(Boolean), fast };
  } finally {
    doc.destroy();
  }
}

describe('optional content', () => {
  it('leaves out what the default configuration hides (/OFF), in a sequence and in a form, keeps the rest', async () => {
    const { words, fast } = await textOf(ocPdf({ config: '<< /OFF [7 0 R] >>', shows: [['a', 'ShownA'], ['b', 'HiddenB']], properties: '/a 6 0 R /b 7 0 R', formOc: '7 0 R' }));
    assert.ok(fast, 'read by the fast reader');
    assert.deepEqual(words, ['Always', 'ShownA']);
  });

  it('with /BaseState /OFF, only the groups in /ON are shown', async () => {
    const { words } = await textOf(ocPdf({ config: '<< /BaseState /OFF /ON [6 0 R] >>', shows: [['a', 'ShownA'], ['b', 'HiddenB']], properties: '/a 6 0 R /b 7 0 R', formOc: '6 0 R' }));
    assert.deepEqual(words, ['Always', 'ShownA', 'InTheForm']);
  });

  it('follows a membership dictionary\'s policy (A on, B off)', async () => {
    const policies = ['AnyOn', 'AllOn', 'AnyOff', 'AllOff'];
    const extra = policies.map((p) => `<< /Type /OCMD /OCGs [6 0 R 7 0 R] /P /${p} >>`);
    const shows = policies.map((p, i) => [`m${i}`, p] as [string, string]);
    const properties = policies.map((_, i) => `/m${i} ${9 + i} 0 R`).join(' ');
    const { words } = await textOf(ocPdf({ config: '<< /OFF [7 0 R] >>', shows, properties, extra }));
    // AnyOn: A is on, shown; AllOn: B is off, hidden; AnyOff: B is off, shown; AllOff: A is on, hidden.
    assert.deepEqual(words, ['Always', 'AnyOn', 'AnyOff', 'InTheForm']);
  });

  it('shows everything when nothing is off', async () => {
    assert.deepEqual((await textOf(ocPdf({ config: '<< >>', shows: [['a', 'ShownA'], ['b', 'ShownB']], properties: '/a 6 0 R /b 7 0 R' }))).words, ['Always', 'ShownA', 'ShownB', 'InTheForm']);
  });

  it('leaves a visibility expression (/VE) to PDFium: the page is declined, not guessed', async () => {
    const bytes = ocPdf({ config: '<< /OFF [7 0 R] >>', shows: [['v', 'ByExpression']], properties: '/v 9 0 R', extra: ['<< /Type /OCMD /VE [/And 6 0 R 7 0 R] >>'] });
    const { fast } = await textOf(bytes);
    assert.equal(fast, false);
  });
});
