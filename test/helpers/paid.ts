/**
 * Buyer-side helpers for paid-call tests: receipt headers as agents build them, a
 * logger that records what the service logged (to count tool runs), and test PDFs.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { createLogger, type Logger } from '../../src/log.ts';

export const xPayment = (network: string, scheme: string, payload: Record<string, unknown>, encoding: 'base64url' | 'base64' = 'base64url') =>
  Buffer.from(JSON.stringify({ x402Version: 1, scheme, network, payload })).toString(encoding);

export const sessionToken = (network: string, auth: { authorization: Record<string, string>; signature: string }) =>
  Buffer.from(JSON.stringify({ network, ...auth.authorization, signature: auth.signature })).toString('base64url');

export const decodePaymentResponse = (value: string | null) => (value ? JSON.parse(Buffer.from(value, 'base64').toString('utf8')) : null);

export interface RecordingLogger {
  log: Logger;
  lines: Record<string, unknown>[];
  count(msg: string): number;
}

export function recordingLogger(): RecordingLogger {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger('info', {}, (line) => {
    lines.push(JSON.parse(line));
  });
  return { log, lines, count: (msg) => lines.filter((l) => l.msg === msg).length };
}

/** A PDF with `pages` pages, each carrying its own text (so every test request differs). */
export async function makePdf(pages: number, label: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) doc.addPage([300, 300]).drawText(`${label} page ${i + 1}`, { x: 20, y: 250, size: 12, font });
  return Buffer.from(await doc.save());
}

export async function callTool(baseUrl: string, path: string, pdf: Buffer, headers: Record<string, string> = {}) {
  const res = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/pdf', ...headers }, body: new Uint8Array(pdf) });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body };
}
