/**
 * OCR with tesseract.js, loading the English model from @tesseract.js-data/eng on disk:
 * never a download at run time, and never a cache file written into the working directory.
 * One engine per pool worker, created on first use and reused, since loading the model
 * costs about a second.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import Tesseract from 'tesseract.js';

const { createWorker, OEM, PSM } = Tesseract;
type TesseractWorker = Tesseract.Worker;
import type { TextRun } from '../pdf/text-types.ts';

export interface OcrWord {
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  confidence: number;
}

export interface OcrPage {
  width: number;
  height: number;
  /** Words as text runs in pixel coordinates, so the PDF layout code can group them. */
  runs: TextRun[];
  /** Mean word confidence, 0..1. */
  confidence: number;
  text: string;
}

export interface OcrEngine {
  recognize(image: Uint8Array): Promise<OcrPage>;
  close(): Promise<void>;
}

/** Directory holding eng.traineddata.gz (the "best_int" LSTM model, tesseract.js's default). */
export const engLangPath = (): string => {
  const pkg = createRequire(import.meta.url).resolve('@tesseract.js-data/eng/package.json');
  return path.join(path.dirname(pkg), '4.0.0_best_int');
};

interface TesseractLine {
  words: { text: string; confidence: number; bbox: { x0: number; y0: number; x1: number; y1: number } }[];
  baseline: { y0: number; y1: number };
  bbox: { x0: number; y0: number; x1: number; y1: number };
  rowAttributes?: { row_height?: number };
}

export function createOcrEngine(): OcrEngine {
  let worker: Promise<TesseractWorker> | null = null;
  const get = () => {
    worker ??= (async () => {
      const w = await createWorker('eng', OEM.LSTM_ONLY, {
        langPath: engLangPath(),
        gzip: true,
        cacheMethod: 'none',
        // Errors surface through the rejected recognize() promise; the default handler would also print them.
        errorHandler: () => undefined,
      });
      // Automatic segmentation keeps lone digits (quantities) that sparse-text mode drops.
      await w.setParameters({ tessedit_pageseg_mode: PSM.AUTO, preserve_interword_spaces: '1', user_defined_dpi: '200' });
      return w;
    })();
    return worker;
  };
  return {
    async recognize(image) {
      const w = await get();
      const { data } = await w.recognize(Buffer.from(image.buffer, image.byteOffset, image.byteLength), {}, { text: true, blocks: true });
      const runs: TextRun[] = [];
      const confidences: number[] = [];
      let width = 0;
      let height = 0;
      for (const block of data.blocks ?? []) {
        for (const para of block.paragraphs) {
          for (const line of para.lines as unknown as TesseractLine[]) {
            const lineHeight = Math.max(1, line.rowAttributes?.row_height ?? line.bbox.y1 - line.bbox.y0);
            for (const word of line.words) {
              const text = word.text.trim();
              if (!text) continue;
              confidences.push(word.confidence);
              width = Math.max(width, word.bbox.x1);
              height = Math.max(height, word.bbox.y1);
              const baseline = Math.max(word.bbox.y1, (line.baseline.y0 + line.baseline.y1) / 2);
              runs.push({ text, x0: word.bbox.x0, x1: word.bbox.x1, top: word.bbox.y0, bottom: word.bbox.y1, baseline, size: lineHeight * 0.75, fontId: `ocr:${Math.round(word.confidence)}` });
            }
          }
        }
      }
      const confidence = confidences.length ? confidences.reduce((a, b) => a + b, 0) / confidences.length / 100 : 0;
      return { width, height, runs, confidence, text: data.text };
    },
    async close() {
      if (!worker) return;
      const w = await worker.catch(() => null);
      worker = null;
      await w?.terminate();
    },
  };
}
