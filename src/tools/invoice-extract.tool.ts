/**
 * invoice-extract: fields of an invoice from a PDF text layer, or from OCR of a PNG/JPEG
 * image. Both paths end as the same positioned rows of cells, so one set of heuristics
 * (invoice/invoice-fields.ts) serves both.
 */
import { AppError } from '../http/app-error.ts';
import type { DocumentKind } from './inspect-document.ts';
import { extractInvoiceFields, makeRow, type InvoiceRow } from './invoice/invoice-fields.ts';
import { openPdf, pdfiumCrashAsAppError, type PdfDocument, type PdfPage } from './pdf/open-pdf.ts';
import { isPdfiumCrash } from './pdf/pdfium-module.ts';
import { fontNameOf, isBoldFont } from './pdf/page-fonts.ts';
import { buildFragments, readPageText, type Fragment, type TextRun } from './pdf/page-layout.ts';
import { renderPagePng } from './pdf/render-page.ts';
import type { RunToolDeps } from './tool-types.ts';
import type { InvoiceResult } from './tool-types.ts';

/** Invoices are short; past this many pages the rest is terms and conditions. */
const MAX_INVOICE_PAGES = 20;

/** Groups fragments into rows of cells, top to bottom. */
export function fragmentsToRows(fragments: Fragment[], boldOf: (f: Fragment) => boolean, rowTolerance = 0.35): InvoiceRow[] {
  const sorted = [...fragments].sort((a, b) => a.baseline - b.baseline || a.x0 - b.x0);
  const rows: Fragment[][] = [];
  for (const f of sorted) {
    const row = rows[rows.length - 1];
    if (row && Math.abs(row[0].baseline - f.baseline) <= rowTolerance * Math.max(row[0].size, f.size)) row.push(f);
    else rows.push([f]);
  }
  return rows.map((row) => {
    row.sort((a, b) => a.x0 - b.x0);
    return makeRow(
      row.map((f) => ({ text: f.text, x0: f.x0, x1: f.x1 })),
      row[0].baseline,
      Math.max(...row.map((f) => f.size)),
      row.every(boldOf),
    );
  });
}

/** Rows of the text layer of the first pages; none for a scan. */
function rowsFromPdf(doc: PdfDocument, deps: RunToolDeps): InvoiceRow[] {
  const rows: InvoiceRow[] = [];
  let offset = 0;
  const pages = Math.min(doc.numPages, MAX_INVOICE_PAGES);
  for (let n = 1; n <= pages; n++) {
    let page: PdfPage | null = null;
    try {
      page = doc.getPage(n);
      const { frame, fragments } = readPageText(page);
      // Pages stack vertically so rows keep document order.
      const shifted = fragments.map((f) => ({ ...f, baseline: f.baseline + offset, top: f.top + offset, bottom: f.bottom + offset }));
      rows.push(...fragmentsToRows(shifted, (f) => isBoldFont(fontNameOf(f.fontId))));
      offset += frame.height + 100;
    } catch (error) {
      // An unreadable page adds nothing; the others still count. A crash of PDFium ends it.
      if (isPdfiumCrash(error)) throw pdfiumCrashAsAppError(error);
    } finally {
      page?.close();
    }
    deps.onProgress?.(n, pages);
  }
  return rows;
}

/** Scanned PDFs (no text layer) are rendered at this resolution for OCR. */
const SCAN_DPI = 200;
/** OCR costs seconds per page: a scanned invoice is read up to this many pages. */
const MAX_SCANNED_PAGES = 3;

/** Renders the first pages of a PDF without a text layer to PNG, for OCR. */
function renderPages(doc: PdfDocument): Uint8Array[] {
  const images: Uint8Array[] = [];
  for (let n = 1; n <= Math.min(doc.numPages, MAX_SCANNED_PAGES); n++) {
    const page = doc.getPage(n);
    try {
      images.push(renderPagePng(page, SCAN_DPI));
    } finally {
      page.close();
    }
  }
  return images;
}

async function rowsFromImage(image: Uint8Array, deps: RunToolDeps, offset: number): Promise<{ rows: InvoiceRow[]; confidence: number; height: number }> {
  let page;
  try {
    page = await deps.ocr().recognize(image);
  } catch (error) {
    throw new AppError('invalid_document', 422, `the image could not be decoded: ${(error as Error)?.message ?? error}`);
  }
  // Words made only of strokes and dots are what OCR makes of rules and specks ("~~", "—", "_."): not text.
  const runs: TextRun[] = page.runs
    .filter((r) => !/^[~_\-—–=|.,:;'"`^*°¬]+$/.test(r.text))
    .map((r) => ({ ...r, baseline: r.baseline + offset, top: r.top + offset, bottom: r.bottom + offset }));
  // OCR baselines wobble more than a text layer's: a looser row tolerance.
  return { rows: fragmentsToRows(buildFragments(runs, 1.0), () => false, 0.55), confidence: page.confidence, height: page.height };
}

export async function invoiceExtract(bytes: Uint8Array, kind: DocumentKind, deps: RunToolDeps): Promise<InvoiceResult> {
  if (kind === 'pdf') {
    const doc = await openPdf(bytes);
    let images: Uint8Array[];
    try {
      const rows = rowsFromPdf(doc, deps);
      if (rows.length) return extractInvoiceFields(rows, { textConfidence: 1 });
      images = renderPages(doc);
    } catch (error) {
      throw pdfiumCrashAsAppError(error);
    } finally {
      doc.destroy();
    }
    const all: InvoiceRow[] = [];
    const confidences: number[] = [];
    let offset = 0;
    for (const [i, image] of images.entries()) {
      const { rows: pageRows, confidence, height } = await rowsFromImage(image, deps, offset);
      all.push(...pageRows);
      if (pageRows.length) confidences.push(confidence);
      offset += height + 1000;
      deps.onProgress?.(i + 1, images.length);
    }
    const mean = confidences.length ? confidences.reduce((a, b) => a + b, 0) / confidences.length : 0;
    return extractInvoiceFields(all, { textConfidence: mean });
  }
  const { rows, confidence } = await rowsFromImage(bytes, deps, 0);
  deps.onProgress?.(1, 1);
  return extractInvoiceFields(rows, { textConfidence: confidence });
}
