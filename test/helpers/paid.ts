/**
 * Buyer-side helpers for paid-call tests: receipt headers as agents build them, a
 * logger that records what the service logged (to count tool runs), and test PDFs.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import pg from 'pg';
import { createLogger, type Logger } from '../../src/log.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { startTestApp, testConfig, type TestApp } from './app.ts';
import { startTestDevnet, type TestDevnet } from './devnet.ts';
import { assertMatchesContract } from './contract.ts';
import type { ChainsConfig } from '../../src/config.ts';

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

const OPERATIONS: Record<string, string> = { '/v1/pdf-md': 'pdfMd', '/v1/pdf-text': 'pdfText', '/v1/pdf-json': 'pdfJson', '/v1/invoice-extract': 'invoiceExtract' };

/** Calls a built-in tool; every answer (200, 402 quote, errors) is checked against openapi.yaml. */
export async function callTool(baseUrl: string, path: string, pdf: Buffer, headers: Record<string, string> = {}) {
  const res = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/pdf', ...headers }, body: new Uint8Array(pdf) });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  if (OPERATIONS[path]) await assertMatchesContract(OPERATIONS[path], res.status, body);
  return { status: res.status, headers: res.headers, body };
}

export interface PaidTestEnv {
  devnet: TestDevnet;
  db: TestDatabase;
  t: TestApp;
  rec: RecordingLogger;
  /** A direct connection to the suite's database, to look at the ledger. */
  sql: pg.Client;
  close(): Promise<void>;
}

/**
 * A devnet, a fresh database and the app on them, with short payment polling for refusals.
 * `chains` may route the service's RPC through something else (a proxy) than the devnet itself.
 */
export async function startPaidTestEnv(name: string, env: Record<string, string> = {}, chains?: (devnet: TestDevnet) => Promise<ChainsConfig>): Promise<PaidTestEnv> {
  const devnet = await startTestDevnet();
  const db = await createTestDatabase(name);
  const rec = recordingLogger();
  const config = { ...testConfig({ DATABASE_URL: db.url, PAYMENT_POLL_TIMEOUT_MS: '1500', PAYMENT_POLL_INTERVAL_MS: '200', ...env }), chains: chains ? await chains(devnet) : devnet.chains };
  const t = await startTestApp(config, rec.log);
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  return {
    devnet,
    db,
    t,
    rec,
    sql,
    async close() {
      await sql.end();
      await t.close();
      await db.drop();
      await devnet.stop();
    },
  };
}
