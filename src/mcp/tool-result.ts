/**
 * A sale's answer as an MCP tool result, per the x402 MCP transport (tool-result binding,
 * specs/transports-v2/mcp.md):
 *   quote (402)           -> isError, the v2 PaymentRequired in structuredContent and as content[0] text
 *   refused payment       -> the same, its `error` the refusal code (the reason follows as text)
 *   paid answer / replay  -> the answer as content (structuredContent when it is a JSON object),
 *                            `_meta["x402/payment-response"]` the settlement response
 *   paid run that failed  -> isError with the error body, and the settlement response (it was paid)
 * The PaymentRequired is the very one the HTTP 402 sends in its PAYMENT-REQUIRED header: it is
 * decoded from there, so both transports quote from one place.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../http/app-error.ts';

export type McpOutcome = 'payment_required' | 'paid' | 'replay' | 'refused' | 'failed' | 'error';

export interface ToolAnswer {
  result: CallToolResult;
  outcome: McpOutcome;
}

const decodeB64Json = (v: string): Record<string, unknown> => JSON.parse(Buffer.from(v, 'base64').toString('utf8'));

const paymentRequired = (header: string, outcome: McpOutcome, message?: string): ToolAnswer => {
  const required = decodeB64Json(header);
  const text = JSON.stringify(required);
  return { outcome, result: { isError: true, structuredContent: required, content: [{ type: 'text', text }, ...(message ? [{ type: 'text' as const, text: message }] : [])] } };
};

const paymentResponseMeta = (headers: Record<string, string> | undefined) => (headers?.['payment-response'] ? { 'x402/payment-response': decodeB64Json(headers['payment-response']) } : undefined);

const isJsonObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The content of an answer body: JSON or text as text (JSON objects also structured), anything else as a base64 blob. */
function contentOf(body: Buffer, contentType: string, resource: string): Pick<CallToolResult, 'content' | 'structuredContent'> {
  const type = contentType.split(';')[0].trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) {
    const text = body.toString('utf8');
    try {
      const parsed: unknown = JSON.parse(text);
      return { content: [{ type: 'text', text }], ...(isJsonObject(parsed) ? { structuredContent: parsed } : {}) };
    } catch {
      return { content: [{ type: 'text', text }] };
    }
  }
  if (type.startsWith('text/') || type === '') return { content: [{ type: 'text', text: body.toString('utf8') }] };
  return { content: [{ type: 'resource', resource: { uri: resource, mimeType: type, blob: body.toString('base64') } }] };
}

/** The answer of `payments.sell`, its body read whole. */
export function soldToolAnswer(answer: { status: number; headers: Record<string, string>; body: Buffer }, resource: string): ToolAnswer {
  const { status, headers } = answer;
  if (status === 402 && headers['payment-required']) return paymentRequired(headers['payment-required'], headers['x-idempotent-replay'] ? 'refused' : 'payment_required');
  const meta = paymentResponseMeta(headers);
  const content = contentOf(answer.body, headers['content-type'] ?? '', resource);
  const replayed = headers['x-idempotent-replay'] === 'true';
  const outcome: McpOutcome = status >= 400 ? 'failed' : replayed ? 'replay' : 'paid';
  return { outcome, result: { ...content, ...(status >= 400 ? { isError: true } : {}), ...(meta ? { _meta: meta } : {}) } };
}

/** What `payments.sell` (or the catalog lookup before it) threw; null: not an expected failure. */
export function errorToolAnswer(err: unknown): ToolAnswer | null {
  if (!(err instanceof AppError)) return null;
  const headers = err.extra.headers;
  // A refused payment: the quote again, naming why (the spec's "Payment Invalid").
  if (err.status === 402 && headers?.['payment-required']) return paymentRequired(headers['payment-required'], 'refused', `${err.code}: ${err.message}`);
  const body = { error: err.code, message: err.message, ...(err.extra.hint ? { hint: err.extra.hint } : {}), ...(err.extra.issues ? { issues: err.extra.issues } : {}) };
  const meta = paymentResponseMeta(headers);
  // Paid and then failed (a settlement response exists): the buyer learns what became of the payment.
  return { outcome: meta ? 'failed' : 'error', result: { isError: true, structuredContent: body, content: [{ type: 'text', text: JSON.stringify(body) }], ...(meta ? { _meta: meta } : {}) } };
}
