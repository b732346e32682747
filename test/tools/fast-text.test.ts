/**
 * The fast content-stream text reader (src/tools/pdf/fast-text/) against PDFium, its
 * reference: on the pages it reads, pdf-text must say what PDFium's text page says; on what it
 * does not understand it must decline the page (PDFium reads it) rather than guess; and hostile
 * input must end in a decline, never a hang, a crash or a wrong answer.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { PDFDocument } from 'pdf-lib';
import { openFastText } from '../../src/tools/pdf/fast-text/fast-text.ts';
import { parseToUnicode } from '../../src/tools/pdf/fast-text/fonts.ts';
import { openPdf } from '../../src/tools/pdf/open-pdf.ts';
import { readPageText } from '../../src/tools/pdf/page-layout.ts';
import { readRulings } from '../../src/tools/pdf/ruled-tables.ts';
import { pdfText } from '../../src/tools/pdf-text.tool.ts';
import { runTool } from '../../src/tools/run-tool.ts';
import { corpusDocuments, wordAgreement } from '../fixtures/corpus-fixtures.ts';
import { encryptedPdf, pdfString, textPdf, writePdf, type RawObject } from '../fixtures/raw-pdf.ts';

const noOcr = { ocr: () => assert.fail('no OCR for text-layer PDFs') };

/** pdf-text of the document by the tool's engine (fast reader first) and by PDFium alone. */
async function bothEngines(bytes: Uint8Array): Promise<{ fast: string; pdfium: string; fastPages: number; pages: number }> {
  const withFast = await openPdf(bytes);
  const pdfiumOnly = await openPdf(bytes, { fastText: false });
  try {
    const reader = openFastText(bytes, withFast.numPages);
    let fastPages = 0;
    for (let n = 1; n <= withFast.numPages; n++) if (reader?.pageText(n)) fastPages++;
    return { fast: (await pdfText(withFast)).text, pdfium: (await pdfText(pdfiumOnly)).text, fastPages, pages: withFast.numPages };
  } finally {
    withFast.destroy();
    pdfiumOnly.destroy();
  }
}

const HELVETICA = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';

/**
 * A one-page PDF: objects 1 catalog, 2 pages, 3 page, 4 content, then `extra` (5, 6, ...).
 * `resources` and `pageExtra` are dictionary text; the content is Flate-compressed when asked.
 */
function onePage(content: string, opts: { resources?: string; extra?: RawObject[]; pageExtra?: string; flate?: boolean } = {}): Buffer {
  const resources = opts.resources ?? '/Font << /F1 5 0 R >>';
  const extra = opts.extra ?? [{ dict: HELVETICA }];
  const body = Buffer.from(content, 'latin1');
  return writePdf([
    { dict: '<< /Type /Catalog /Pages 2 0 R >>' },
    { dict: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    { dict: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << ${resources} >> /Contents 4 0 R ${opts.pageExtra ?? ''} >>` },
    opts.flate ? { dict: '<< /Filter /FlateDecode >>', stream: deflateSync(body) } : { dict: '<< >>', stream: body },
    ...extra,
  ]);
}

/** Asserts the fast reader read the page and gave PDFium's text. */
async function assertSameAsPdfium(bytes: Uint8Array, expected?: RegExp): Promise<string> {
  const { fast, pdfium, fastPages, pages } = await bothEngines(bytes);
  assert.equal(fastPages, pages, 'the fast reader read every page');
  assert.equal(fast, pdfium);
  if (expected) assert.match(fast, expected);
  return fast;
}

/** Asserts the fast reader declined the page and the tool still answered with PDFium's text. */
async function assertDeclined(bytes: Uint8Array): Promise<string> {
  const { fast, pdfium, fastPages } = await bothEngines(bytes);
  assert.equal(fastPages, 0, 'the fast reader declined');
  assert.equal(fast, pdfium);
  return fast;
}

describe('fast text reader: same text as PDFium', () => {
  it('reads every page of the generated 200-page document, byte for byte as PDFium', async () => {
    const { bytes, lines } = textPdf({ pages: 200 });
    const text = await assertSameAsPdfium(bytes);
    assert.ok(text.includes(lines[137][5]), 'a line of page 138');
  });

  it('on real documents: agrees with PDFium and is no further from pdftotext on any file', async () => {
    for (const doc of corpusDocuments()) {
      const { fast, pdfium, fastPages, pages } = await bothEngines(new Uint8Array(doc.pdf));
      const fastScore = wordAgreement(fast, doc.reference).agreement;
      const pdfiumScore = wordAgreement(pdfium, doc.reference).agreement;
      assert.ok(fastScore >= pdfiumScore, `${doc.name}: ${fastScore.toFixed(4)} with the fast reader, ${pdfiumScore.toFixed(4)} with PDFium`);
      assert.ok(wordAgreement(fast, pdfium).agreement >= 0.99, `${doc.name}: the fast reader's words are PDFium's`);
      // crc-doc's TeX fonts have no ToUnicode: their codes are named by the embedded programs'
      // built-in encodings; its pages with math extension glyphs (CMEX10's "summationdisplay",
      // which PDFium does not name) still go to PDFium.
      if (doc.name === 'crc-doc.1.0') assert.ok(fastPages >= 12, `${doc.name}: ${fastPages} of ${pages} pages read fast`);
      else assert.ok(fastPages > pages / 2, `${doc.name}: ${fastPages} of ${pages} pages read fast`);
    }
  });

  it('places text as the text operators say: Td, TD, T*, quote operators, Tm, TL, Tc, Tw, Tz, Ts, TJ kerning', async () => {
    const content = [
      'BT /F1 12 Tf 72 760 Td (Plain line) Tj',
      '14 TL T* (Next by leading) Tj',
      "(Quoted line) '",
      '2 1 (Double quoted words) "',
      '0 0 Tc 0 Tw 0 -20 TD (After TD) Tj T* (TD set the leading) Tj',
      'ET',
      'BT /F1 12 Tf 1 0 0 1 72 600 Tm [(Ker) -20 (ned) -600 (apart)] TJ ET',
      'BT /F1 12 Tf 150 Tz 1 0 0 1 72 580 Tm (Wide letters) Tj 100 Tz ET',
      'BT /F1 12 Tf 3 Tc 1 0 0 1 72 560 Tm (Spaced out) Tj 0 Tc ET',
      'BT /F1 1 Tf 24 0 0 24 72 500 Tm (Scaled by Tm) Tj ET',
    ].join('\n');
    await assertSameAsPdfium(onePage(content), /Kerned apart/);
  });

  it('places raised text (Ts) above its line, where it is drawn', async () => {
    // PDFium puts it below its line; the fast reader follows the drawing. Both keep every word.
    const { fast, pdfium, fastPages } = await bothEngines(onePage('BT /F1 12 Tf 1 0 0 1 72 540 Tm (Base) Tj 5 Ts (raised) Tj 0 Ts (back) Tj ET'));
    assert.equal(fastPages, 1);
    assert.match(fast, /^raised\s+Base\s*back$/);
    assert.deepEqual(fast.split(/\s+/).sort(), pdfium.split(/\s+/).sort());
  });

  it('follows the graphics state: cm, q/Q around fonts, form XObjects with their own matrix and resources', async () => {
    const form = 'BT /F9 10 Tf 0 0 Td (Inside the form) Tj ET';
    const content = ['q 1 0 0 1 100 0 cm', 'BT /F1 12 Tf 0 700 Td (Shifted by cm) Tj ET', 'Q', 'q 2 0 0 2 0 0 cm /Fm1 Do Q', 'BT /F1 12 Tf 72 300 Td (After the form) Tj ET'].join('\n');
    const bytes = onePage(content, {
      resources: '/Font << /F1 5 0 R >> /XObject << /Fm1 6 0 R >>',
      extra: [{ dict: HELVETICA }, { dict: '<< /Type /XObject /Subtype /Form /BBox [0 0 300 100] /Matrix [1 0 0 1 36 200] /Resources << /Font << /F9 5 0 R >> >> >>', stream: Buffer.from(form) }],
    });
    await assertSameAsPdfium(bytes, /Inside the form/);
  });

  it('skips inline images whose data holds PDF syntax', async () => {
    const image = Buffer.concat([Buffer.from('BT /F1 12 Tf 72 700 Td (Before) Tj ET\nBI /W 4 /H 2 /BPC 8 /CS /G ID '), Buffer.from('(ET]>>'), Buffer.from([0, 255]), Buffer.from('\nEI\nBT /F1 12 Tf 72 650 Td (After the image) Tj ET')]);
    const text = await assertSameAsPdfium(onePage(image.toString('latin1')));
    assert.match(text, /Before[\s\S]*After the image/);
  });

  it('turns /Rotate pages and leaves out text outside the crop box', async () => {
    const content = 'BT /F1 12 Tf 72 700 Td (Visible text) Tj ET BT /F1 12 Tf 72 20 Td (Cropped away) Tj ET';
    const rotated = await assertSameAsPdfium(onePage(content, { pageExtra: '/Rotate 90 /CropBox [0 100 595 842]' }));
    assert.match(rotated, /Visible text/);
    assert.doesNotMatch(rotated, /Cropped away/);
  });

  it('reads cross-reference streams, object streams and Flate content (pdf-lib output)', async () => {
    const doc = await PDFDocument.load(textPdf({ pages: 3 }).bytes);
    const bytes = await doc.save({ useObjectStreams: true });
    assert.match(Buffer.from(bytes).toString('latin1'), /\/ObjStm/);
    await assertSameAsPdfium(bytes, /Chapter 3/);
  });

  it('reads the newest version of an object after an incremental update', async () => {
    const base = onePage('BT /F1 12 Tf 72 700 Td (Old text) Tj ET');
    const startxref = Number(/startxref\s+(\d+)/.exec(base.toString('latin1'))![1]);
    const body = 'BT /F1 12 Tf 72 700 Td (New text) Tj ET';
    const update = `4 0 obj\n<< /Length ${body.length} >>\nstream\n${body}\nendstream\nendobj\n`;
    const xrefAt = base.length + update.length;
    const tail = `xref\n4 1\n${String(base.length).padStart(10, '0')} 00000 n \ntrailer\n<< /Size 6 /Root 1 0 R /Prev ${startxref} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
    const text = await assertSameAsPdfium(Buffer.concat([base, Buffer.from(update + tail, 'latin1')]));
    assert.match(text, /New text/);
    assert.doesNotMatch(text, /Old text/);
  });
});

describe('fast text reader: painted lines for ruled tables', () => {
  it('collects the same rulings as PDFium\'s page objects, on every page of the real documents', async () => {
    let compared = 0;
    for (const d of corpusDocuments()) {
      const doc = await openPdf(new Uint8Array(d.pdf));
      try {
        for (let n = 1; n <= doc.numPages; n++) {
          const page = doc.getPage(n);
          const { frame, rules } = readPageText(page);
          if (rules) {
            // PDFium keeps coordinates as 32-bit floats: a tenth of a point apart is the same line.
            const fast = readRulings(page, frame, rules);
            const pdfium = readRulings(page, frame);
            assert.equal(fast.length, pdfium.length, `${d.name} page ${n}: as many rulings`);
            const unmatched = [...pdfium];
            for (const r of fast) {
              const k = unmatched.findIndex((q) => Math.abs(q.x0 - r.x0) + Math.abs(q.y0 - r.y0) + Math.abs(q.x1 - r.x1) + Math.abs(q.y1 - r.y1) < 0.4);
              assert.ok(k >= 0, `${d.name} page ${n}: ${JSON.stringify(r)} is one of PDFium's rulings`);
              unmatched.splice(k, 1);
            }
            compared += pdfium.length;
          }
          page.close();
        }
      } finally {
        doc.destroy();
      }
    }
    assert.ok(compared > 100, `${compared} rulings compared`);
  });
});

describe('fast text reader: fonts', () => {
  it('maps /Differences glyph names (uniXXXX, ligatures) and /Widths', async () => {
    const font = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /FirstChar 65 /LastChar 67 /Widths [700 556 600] /Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [65 /uni0416 /fi 67 /Euro] >> >>';
    const text = await assertSameAsPdfium(onePage('BT /F1 12 Tf 72 700 Td (ABC xyz) Tj ET', { extra: [{ dict: font }] }));
    assert.match(text, /Жfi€ xyz/);
  });

  it('reads composite Identity-H fonts through their ToUnicode map and /W widths', async () => {
    const cmap = [
      '/CIDInit /ProcSet findresource begin 12 dict begin begincmap',
      '1 begincodespacerange <0000> <FFFF> endcodespacerange',
      '2 beginbfchar <0001> <0048> <0002> <0069> endbfchar',
      '2 beginbfrange <0010> <0012> <0061> <0020> <0021> [<0020> <0416>] endbfrange',
      'endcmap end end',
    ].join('\n');
    const type0 = '<< /Type /Font /Subtype /Type0 /BaseFont /ABCDEF+Helvetica /Encoding /Identity-H /DescendantFonts [6 0 R] /ToUnicode 7 0 R >>';
    const cid = '<< /Type /Font /Subtype /CIDFontType2 /BaseFont /ABCDEF+Helvetica /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 500 /W [1 [722 222] 16 18 556] /FontDescriptor 8 0 R >>';
    const descriptor = '<< /Type /FontDescriptor /FontName /ABCDEF+Helvetica /Flags 32 /FontBBox [-166 -225 1000 931] /Ascent 718 /Descent -207 /ItalicAngle 0 /CapHeight 718 /StemV 88 >>';
    const bytes = onePage('BT /F1 14 Tf 72 700 Td <0001000200200010001100120021> Tj ET', {
      extra: [{ dict: type0 }, { dict: cid }, { dict: '<< >>', stream: Buffer.from(cmap) }, { dict: descriptor }],
    });
    const { fastPages, fast } = await bothEngines(bytes);
    assert.equal(fastPages, 1);
    assert.match(fast, /Hi abcЖ/);
  });

  it('parses ToUnicode bfchar and bfrange entries, ranges counting up and listed', () => {
    const map = parseToUnicode(Buffer.from('2 beginbfchar <41> <0042> <42> <00660069> endbfchar 2 beginbfrange <61> <63> <0041> <70> <71> [<0031> <D83DDE00>] endbfrange'));
    assert.equal(map.get(0x41), 'B');
    assert.equal(map.get(0x42), 'fi');
    assert.deepEqual([map.get(0x61), map.get(0x62), map.get(0x63)], ['A', 'B', 'C']);
    assert.equal(map.get(0x70), '1');
    assert.equal(map.get(0x71), '😀');
  });

  it('declines Type 3 fonts, and embedded symbolic fonts whose codes have no ToUnicode', async () => {
    const type3 = '<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1000 1000] /FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << /a 6 0 R >> /Encoding << /Differences [97 /a] >> /FirstChar 97 /LastChar 97 /Widths [1000] >>';
    await assertDeclined(onePage('BT /F1 12 Tf 72 700 Td (aaa) Tj ET', { extra: [{ dict: type3 }, { dict: '<< >>', stream: Buffer.from('1000 0 0 0 1000 1000 d1 0 0 1000 1000 re f') }] }));
    const symbolic = '<< /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+CMSY10 /FirstChar 0 /LastChar 255 /Widths [] /FontDescriptor 6 0 R >>';
    const descriptor = '<< /Type /FontDescriptor /FontName /ABCDEF+CMSY10 /Flags 4 /FontBBox [0 0 1000 1000] /Ascent 750 /Descent -250 /FontFile 7 0 R >>';
    const bytes = onePage('BT /F1 12 Tf 72 700 Td <0f> Tj ET', { extra: [{ dict: symbolic }, { dict: descriptor }, { dict: '<< /Length1 0 /Length2 0 /Length3 0 >>', stream: Buffer.alloc(0) }] });
    const reader = openFastText(bytes, 1);
    assert.equal(reader?.pageText(1), null, 'a code only the font program can explain');
  });

  it('names the codes of embedded TeX fonts from their programs\' built-in encodings (Type 1 and CFF), instead of sending the pages to PDFium', async () => {
    // booktabs: Type 1 programs (FontFile) with "dup 12 /fi put" encodings; gmpl: bare CFF
    // programs (FontFile3 /Type1C) whose ToUnicode maps list only a few codes.
    for (const [file, expected] of [
      ['booktabs.pdf', /Publication quality tables in LATEX[\s\S]*most notably longtable compatibility/],
      ['gmpl.pdf', /Modeling Language GNU MathProg[\s\S]*Linear programming problem/],
    ] as const) {
      const bytes = new Uint8Array(readFileSync(new URL(`../fixtures/quality/${file}`, import.meta.url)));
      const { fast, pdfium, fastPages, pages } = await bothEngines(bytes);
      // gmpl's title page draws a Type 3 logo: that one page still goes to PDFium.
      assert.ok(fastPages >= pages - 1, `${file}: ${fastPages} of ${pages} pages read fast`);
      assert.match(fast, expected);
      assert.ok(wordAgreement(fast, pdfium).agreement >= 0.99, `${file}: the fast reader's words are PDFium's`);
    }
    // A cleartext Type 1 program's own encoding names the code (no /Encoding, no ToUnicode).
    const program = Buffer.from('%!PS-AdobeFont-1.0: CMSY10\n/Encoding 256 array\n0 1 255 {1 index exch /.notdef put} for\ndup 15 /bullet put\ndup 65 /A put\nreadonly def\ncurrentdict end\ncurrentfile eexec\n', 'latin1');
    const symbolic = '<< /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+CMSY10 /FirstChar 15 /LastChar 65 /Widths [500 ' + '0 '.repeat(49) + '700] /FontDescriptor 6 0 R >>';
    const descriptor = '<< /Type /FontDescriptor /FontName /ABCDEF+CMSY10 /Flags 4 /FontBBox [0 0 1000 1000] /Ascent 750 /Descent -250 /FontFile 7 0 R >>';
    const bytes = onePage('BT /F1 12 Tf 72 700 Td <0f41> Tj ET', { extra: [{ dict: symbolic }, { dict: descriptor }, { dict: `<< /Length1 ${program.length} /Length2 0 /Length3 0 >>`, stream: program }] });
    const reader = openFastText(bytes, 1);
    assert.match(reader?.pageText(1)?.runs.map((r) => r.text).join('') ?? '', /^•\s*A$/);
  });

  it('a font it cannot read only matters when it shows text', async () => {
    const type3 = '<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1 1] /FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << >> /Encoding << /Differences [] >> /FirstChar 0 /LastChar 0 /Widths [0] >>';
    const bytes = onePage('BT /F2 12 Tf ET BT /F1 12 Tf 72 700 Td (Readable) Tj ET', { resources: '/Font << /F1 5 0 R /F2 6 0 R >>', extra: [{ dict: HELVETICA }, { dict: type3 }] });
    await assertSameAsPdfium(bytes, /Readable/);
  });
});

describe('fast text reader: hostile and damaged input', () => {
  it('declines encrypted documents (PDFium decrypts them)', async () => {
    assert.equal(openFastText(encryptedPdf(''), 1), null);
  });

  it('declines a document whose cross-reference is damaged; PDFium repairs it and the tool still answers', async () => {
    const bytes = onePage('BT /F1 12 Tf 72 700 Td (Repaired by PDFium) Tj ET');
    const broken = Buffer.from(bytes.toString('latin1').replace(/startxref\s+\d+/, 'startxref\n999999'), 'latin1');
    assert.equal(openFastText(broken, 1), null);
    const result = await runTool('pdf-text', new Uint8Array(broken), noOcr);
    assert.match(result.text, /Repaired by PDFium/);
  });

  it('declines a Flate bomb instead of inflating it', async () => {
    const bomb = deflateSync(Buffer.alloc(80 * 1024 * 1024, 0x20));
    const bytes = writePdf([
      { dict: '<< /Type /Catalog /Pages 2 0 R >>' },
      { dict: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
      { dict: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents [4 0 R 6 0 R] >>' },
      { dict: '<< /Filter /FlateDecode >>', stream: bomb },
      { dict: HELVETICA },
      { dict: '<< >>', stream: Buffer.from('BT /F1 12 Tf 72 700 Td (After the bomb) Tj ET') },
    ]);
    const reader = openFastText(bytes, 1);
    assert.ok(reader);
    assert.equal(reader.pageText(1), null);
  });

  it('declines a form that draws itself, and content that is not PDF syntax', async () => {
    const loop = onePage('/Fm1 Do BT /F1 12 Tf 72 700 Td (Loop) Tj ET', {
      resources: '/Font << /F1 5 0 R >> /XObject << /Fm1 6 0 R >>',
      extra: [{ dict: HELVETICA }, { dict: '<< /Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /XObject << /Fm1 6 0 R >> >> >>', stream: Buffer.from('/Fm1 Do') }],
    });
    assert.equal(openFastText(loop, 1)?.pageText(1), null);
    const garbage = onePage('BT /F1 12 Tf 72 700 Td (Text) Tj ] >> ET');
    assert.equal(openFastText(garbage, 1)?.pageText(1), null);
    for (const bytes of [loop, garbage]) await runTool('pdf-text', new Uint8Array(bytes), noOcr);
  });

  it('answers null, not a wrong page, when its page count differs from PDFium', () => {
    const bytes = onePage('BT /F1 12 Tf 72 700 Td (One page) Tj ET');
    assert.equal(openFastText(bytes, 2), null);
  });

  it('reads strings with every escape as PDFium does', async () => {
    const s = pdfString('a(b)c\\d');
    await assertSameAsPdfium(onePage(`BT /F1 12 Tf 72 700 Td (${s} \\101\\102 \\t \\(x\\) line\\\ncontinued) Tj <48 65 6c 6C 6f> Tj ET`), /AB/);
  });
});
