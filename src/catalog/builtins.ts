/**
 * The four built-in paid endpoints. Prices are USDC atomic units (6 decimals): per page for
 * the PDF tools, per request for invoice-extract.
 */
import type { OperationId } from '../generated/operation-ids.ts';
import type { ToolName } from '../tools/tool-types.ts';

export interface BuiltinEndpoint {
  tool: ToolName;
  operationId: OperationId;
  path: string;
  price: bigint;
  unit: 'page' | 'request';
  description: string;
  mimeType: string;
}

export const BUILTINS: readonly BuiltinEndpoint[] = [
  {
    tool: 'pdf-md',
    operationId: 'pdfMd',
    path: '/v1/pdf-md',
    price: 10_000n,
    unit: 'page',
    description: 'PDF to Markdown: headings from the font-size hierarchy, paragraphs, lists and ruled tables.',
    mimeType: 'application/json',
  },
  {
    tool: 'pdf-text',
    operationId: 'pdfText',
    path: '/v1/pdf-text',
    price: 5_000n,
    unit: 'page',
    description: 'PDF to plain text in reading order, with the page count.',
    mimeType: 'application/json',
  },
  {
    tool: 'pdf-json',
    operationId: 'pdfJson',
    path: '/v1/pdf-json',
    price: 15_000n,
    unit: 'page',
    description: 'PDF to structured JSON: per page, positioned text blocks with font size and name, in reading order.',
    mimeType: 'application/json',
  },
  {
    tool: 'invoice-extract',
    operationId: 'invoiceExtract',
    path: '/v1/invoice-extract',
    price: 25_000n,
    unit: 'request',
    description: 'Invoice fields (vendor, number, date, currency, total, VAT, line items) from a PDF or a PNG/JPEG scan.',
    mimeType: 'application/json',
  },
];
