/**
 * Names and result shapes of the built-in document tools. The HTTP layer and openapi.yaml
 * mirror these shapes (see docs/tools.md); keep them JSON-serialisable because results
 * cross a worker_threads boundary and are stored for idempotent replays.
 */
import type { OcrEngine } from './invoice/ocr-engine.ts';

export const TOOL_NAMES = ['pdf-md', 'pdf-text', 'pdf-json', 'invoice-extract'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** What a tool run needs besides the bytes (here, not in run-tool.ts, so tools need not import the runner). */
export interface RunToolDeps {
  /** OCR for invoice images; created once per worker because loading it takes a second. */
  ocr: () => OcrEngine;
  onProgress?: ProgressFn;
  /** The buyer's options for this run (query parameters of the operation). */
  options?: ToolOptions;
}

/** How pdf-md marks where each page begins: `comment` is `<!-- page 7 -->`; `none` leaves no mark. */
export const PAGE_ANCHOR_FORMS = ['comment', 'none'] as const;
export type PageAnchorForm = (typeof PAGE_ANCHOR_FORMS)[number];

/** Options a buyer may set on a tool run; every field is optional and has the documented default. */
export interface ToolOptions {
  /** pdf-md: the form of the page anchors (default `comment`). */
  pageAnchors?: PageAnchorForm;
}

export interface PdfTextResult {
  /** Text in reading order; pages are separated by a form feed (\f), as pdftotext does. */
  text: string;
  /** Number of pages in the document. */
  pages: number;
}

export interface PdfMdResult {
  markdown: string;
  /** Number of pages. */
  pages: number;
  /** Deprecated: the same value as `pages`, kept for clients that read it. */
  page_count: number;
}

export interface PdfJsonBlock {
  text: string;
  /** Top-left corner in PDF points, origin at the top-left of the page as displayed (after /Rotate). */
  x: number;
  y: number;
  width: number;
  height: number;
  font_size: number;
  font_name: string | null;
  /** What the block is; header/footer are page furniture (running headers, page numbers). */
  kind: 'heading' | 'paragraph' | 'list' | 'code' | 'table' | 'header' | 'footer';
  /** Heading level from 1 (largest) for headings, null otherwise. */
  level: number | null;
  /** Page number, from 1 (the page the block is on). */
  page: number;
}

/** A cell of a table whose rules join cells (a spanning cell). */
export interface PdfJsonCell {
  text: string;
  /** 0-based column where the cell starts. */
  col: number;
  colspan: number;
  rowspan: number;
}

/** A table found on the page (ruled, or aligned by whitespace), with its box as the blocks'. */
export interface PdfJsonTable {
  x: number;
  y: number;
  width: number;
  height: number;
  /** Cell texts row by row; a spanning cell's text in its first position, '' in the others. */
  rows: string[][];
  /** The cells as drawn, row by row, when some span rows or columns; null when none does. */
  cells: PdfJsonCell[][] | null;
}

export interface PdfJsonPage {
  page: number;
  width: number;
  height: number;
  blocks: PdfJsonBlock[];
  /** The page's tables in reading order; their text is also in the blocks (kind `table`). */
  tables: PdfJsonTable[];
}

/** A bookmark of the document's outline. */
export interface PdfJsonOutlineEntry {
  title: string;
  /** 1 for a top-level bookmark, 2 for its children... */
  level: number;
  /** The page it points to, from 1; null when it points nowhere in the document. */
  page: number | null;
}

export interface PdfJsonResult {
  pages: PdfJsonPage[];
  /** The document's outline (bookmarks), depth first; empty when it has none. */
  outline: PdfJsonOutlineEntry[];
}

export interface InvoiceItem {
  description: string | null;
  quantity: string | null;
  unit_price: string | null;
  amount: string | null;
}

export interface InvoiceResult {
  vendor: string | null;
  invoice_number: string | null;
  /** ISO 8601 calendar date, YYYY-MM-DD. */
  date: string | null;
  /** ISO 4217 code. */
  currency: string | null;
  /** Invoice total as a decimal string ("1234.50"). */
  amount: string | null;
  vat: { rate: string | null; amount: string | null } | null;
  items: InvoiceItem[];
  confidence: {
    vendor: number;
    invoice_number: number;
    date: number;
    currency: number;
    amount: number;
    vat: number;
    items: number;
  };
}

export interface ToolResultMap {
  'pdf-text': PdfTextResult;
  'pdf-md': PdfMdResult;
  'pdf-json': PdfJsonResult;
  'invoice-extract': InvoiceResult;
}

export type ToolResult = ToolResultMap[ToolName];

/** Called by a tool as pages complete, so long jobs show progress in the logs. */
export type ProgressFn = (pagesDone: number, pagesTotal: number) => void;

// The contract is the source of truth for what buyers receive: these assignments make
// `npm run typecheck` fail when a tool result drifts from its openapi.yaml schema.
type ContractSchemas = import('../generated/openapi.ts').components['schemas'];
export const conformsToContract = {
  pdfText: (r: PdfTextResult): ContractSchemas['PdfTextResult'] => r,
  pdfMd: (r: PdfMdResult): ContractSchemas['PdfMdResult'] => r,
  pdfJson: (r: PdfJsonResult): ContractSchemas['PdfJsonResult'] => r,
  invoice: (r: InvoiceResult): ContractSchemas['InvoiceResult'] => r,
};
