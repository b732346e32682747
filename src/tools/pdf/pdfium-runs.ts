/**
 * PDFium's text page as runs. PDFium gives each character its unicode value, its text object
 * and its box; runs are consecutive characters of one text object, cut at PDFium's line
 * breaks and at wide jumps.
 *
 * Cost matters here (a call per character per property): per character only unicode, text
 * object and loose box are read; matrix, origin, size and font once per run.
 */
import type { PdfPage } from './open-pdf.ts';
import { baseFontName } from './page-fonts.ts';
import { isSpace, outsideView, RunBuilder } from './run-builder.ts';
import type { RawPageText } from './text-types.ts';

export function readPdfiumRuns(page: PdfPage): RawPageText {
  const { pdfium, viewBox, rotate } = page;
  const { x } = pdfium;
  const tp = page.textPage();
  const count = tp ? x.FPDFText_CountChars(tp) : 0;
  const builder = new RunBuilder();
  if (count <= 0) return { runs: [], viewBox, rotate };
  // Scratch memory: a loose box (4 floats), a matrix (6 floats), an origin (2 doubles), a font name.
  const scratch = x.malloc(384);
  const loose = scratch + 32;
  const matrix = scratch + 48;
  const origin = scratch + 72;
  const nameBuffer = { ptr: scratch + 128, size: 256 };
  const fontNames = new Map<number, string>();
  try {
    for (let k = 0; k < count; k++) {
      // One call per character: FPDFText_GetText would be one call per page, but it returns
      // PDFium's text buffer, whose indices drift from the character indices.
      const u = x.FPDFText_GetUnicode(tp, k);
      if (u === 0x0d || u === 0x0a) {
        // PDFium's line breaks (generated between lines it found): a run never spans them.
        builder.lineBreak();
        continue;
      }
      // Spaces, the document's or the ones PDFium generated for wide gaps, are only noted.
      if (isSpace(u)) {
        builder.space();
        continue;
      }
      // PDFium reports a hyphen that ends a line as U+0002.
      const code = u === 0x02 ? 0x2d : u;
      if (code < 0x20 || code === 0xfffe || code === 0xffff) continue;
      const object = x.FPDFText_GetTextObject(tp, k);
      if (!x.FPDFText_GetLooseCharBox(tp, k, loose)) continue;
      const f32box = pdfium.f32();
      // FS_RECTF: left, top, right, bottom.
      const l = f32box[loose >> 2];
      const t = f32box[(loose >> 2) + 1];
      const r = f32box[(loose >> 2) + 2];
      const b = f32box[(loose >> 2) + 3];
      // Text wholly outside the page's visible box is not on the page as shown; pdftotext
      // and pdf.js leave it out too.
      if (outsideView(viewBox, l, t, r, b)) continue;
      if (builder.extend(object, code, l, t, r, b)) continue;
      // A new run: its matrix, size, origin and font, once.
      x.FPDFText_GetMatrix(tp, k, matrix);
      x.FPDFText_GetCharOrigin(tp, k, origin, origin + 8);
      const fontSize = x.FPDFText_GetFontSize(tp, k);
      const f32 = pdfium.f32();
      const o64 = pdfium.f64();
      const [ma, mb, mc, md] = [f32[matrix >> 2], f32[(matrix >> 2) + 1], f32[(matrix >> 2) + 2], f32[(matrix >> 2) + 3]];
      const scaleX = Math.hypot(ma, mb);
      const dx = scaleX ? ma / scaleX : 1;
      const dy = scaleX ? mb / scaleX : 0;
      const size = fontSize * Math.hypot(mc, md) || Math.abs(t - b) || 1;
      const font = x.FPDFTextObj_GetFont(object);
      let fontId = fontNames.get(font);
      if (fontId === undefined) fontNames.set(font, (fontId = baseFontName(pdfium, font, nameBuffer)));
      builder.start(object, code, l, t, r, b, dx, dy, size, o64[origin >> 3], o64[(origin >> 3) + 1], fontId);
    }
  } finally {
    x.free(scratch);
  }
  return { runs: builder.finish(), viewBox, rotate };
}
