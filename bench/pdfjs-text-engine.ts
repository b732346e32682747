/**
 * The pdf-text engine before PDFium (pdf.js 5 `getTextContent`), kept only so the benchmark
 * can print before/after figures in the same run: its text items become the same TextRuns and
 * go through the same layout code (src/tools/pdf/page-layout.ts). Not used by the service.
 * pdfjs-dist stays installed for this and for the invoice test fixtures' fonts.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildFragments, makeFrame, multiplyMatrix, readingOrder, type TextRun } from '../src/tools/pdf/page-layout.ts';
import { fragmentsToText } from '../src/tools/pdf-text.tool.ts';

interface PdfjsTextItem {
  str: string;
  transform: number[];
  width: number;
  height: number;
  fontName: string;
}

const quarterOf = (dx: number, dy: number): 0 | 1 | 2 | 3 => (((Math.round(Math.atan2(dy, dx) / (Math.PI / 2)) % 4) + 4) % 4) as 0 | 1 | 2 | 3;

export interface EngineTimes {
  parseMs: number;
  textMs: number;
  layoutMs: number;
}

/** pdf-text of a whole document with pdf.js, in this thread; `times` collects the split. */
export async function pdfjsText(bytes: Uint8Array, times: EngineTimes): Promise<string> {
  let t = performance.now();
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const g = globalThis as { pdfjsWorker?: unknown };
  // @ts-expect-error -- the worker bundle ships without type declarations.
  g.pdfjsWorker ??= await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
  const standardFontDataUrl = pathToFileURL(path.join(path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')), 'standard_fonts') + path.sep).href;
  const doc = await pdfjs.getDocument({ data: new Uint8Array(bytes), verbosity: 0, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, standardFontDataUrl, maxImageSize: 1, enableXfa: false }).promise;
  times.parseMs += performance.now() - t;
  const pages: string[] = [];
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      t = performance.now();
      const page = await doc.getPage(n);
      const viewport = page.getViewport({ scale: 1 });
      const content = await page.getTextContent();
      const t1 = performance.now();
      times.textMs += t1 - t;
      const styles = content.styles as Record<string, { ascent?: number; descent?: number }>;
      const raw: { item: PdfjsTextItem; m: number[]; q: number }[] = [];
      const weight = [0, 0, 0, 0];
      for (const entry of content.items) {
        const item = entry as PdfjsTextItem;
        if (typeof item.str !== 'string' || item.str.trim() === '') continue;
        const m = multiplyMatrix(viewport.transform, item.transform);
        const q = quarterOf(m[0], m[1]);
        weight[q] += item.str.length;
        raw.push({ item, m, q });
      }
      const frame = makeFrame(viewport.width, viewport.height, weight.indexOf(Math.max(...weight)) as 0 | 1 | 2 | 3, viewport.transform);
      const runs: TextRun[] = raw.map(({ item, m }) => {
        const size = Math.hypot(m[2], m[3]) || item.height || 1;
        const scaleX = Math.hypot(m[0], m[1]);
        const style = styles[item.fontName] ?? {};
        const ascent = style.ascent && style.ascent > 0 ? style.ascent : 0.8;
        const descent = style.descent && style.descent < 0 ? style.descent : -0.2;
        const dir = scaleX ? [m[0] / scaleX, m[1] / scaleX] : [1, 0];
        const up = [-(m[2] / size), -(m[3] / size)];
        const [ox, oy, w] = [m[4], m[5], item.width];
        const corners = [
          [ox + up[0] * ascent * size, oy + up[1] * ascent * size],
          [ox + dir[0] * w + up[0] * ascent * size, oy + dir[1] * w + up[1] * ascent * size],
          [ox + up[0] * descent * size, oy + up[1] * descent * size],
          [ox + dir[0] * w + up[0] * descent * size, oy + dir[1] * w + up[1] * descent * size],
        ].map(([x, y]) => frame.toFrame(x, y));
        const us = corners.map((c) => c[0]);
        const vs = corners.map((c) => c[1]);
        const bottom = Math.max(...vs);
        return { text: item.str, x0: Math.min(...us), x1: Math.max(...us), top: Math.min(...vs), bottom, baseline: bottom + descent * size, size, fontId: item.fontName };
      });
      pages.push(fragmentsToText(readingOrder(buildFragments(runs))));
      page.cleanup();
      times.layoutMs += performance.now() - t1;
    }
  } finally {
    await doc.destroy();
  }
  return pages.join('\f');
}
