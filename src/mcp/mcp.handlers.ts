/**
 * POST /mcp: the catalog as a paid MCP server (Streamable HTTP, stateless). Every request gets
 * a fresh SDK Server and transport (the SDK's stateless pattern): nothing lives between
 * requests, so any instance answers any call, as with the HTTP operations. JSON answers, not
 * SSE: a tool call answers once (the run is bounded by the tool and upstream time limits).
 *
 * tools/list: mcp-tools.ts. tools/call sells through the same code as HTTP (catalog/sell-builtin.ts,
 * sellers/sell-endpoint.ts -> payments.sell): the payment is the v2 PaymentPayload in
 * `params._meta["x402/payment"]`, handed to payments as the PAYMENT-SIGNATURE proof it is (the
 * same object, base64 JSON), so verification, exactly-once, replays, the ledger, take rates and
 * the undelivered rule are the HTTP ones. The fingerprint names the tool and its arguments
 * (keys sorted): a payment buys one tool call with those arguments.
 */
import { Readable } from 'node:stream';
import type { CallToolRequest, CallToolResult, ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import type { BazaarExtension } from '../catalog/bazaar.ts';
import type { BuiltinEndpoint } from '../catalog/builtins.ts';
import { sellBuiltin, type BuiltinDeps } from '../catalog/sell-builtin.ts';
import { sqlOf } from '../db/orm.ts';
import type { OperationId } from '../generated/operation-ids.ts';
import { AppError } from '../http/app-error.ts';
import { readChunks, tooLarge } from '../http/read-body.ts';
import { saleRequestOf } from '../catalog/sale-request.ts';
import type { Handler, HandlerResult, RequestContext } from '../http/server.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { requestFingerprint } from '../payments/fingerprint.ts';
import { canonicalJson } from '../lib/canonical-json.ts';
import type { PaymentProof, SoldAnswer } from '../payments/sellable.ts';
import { spoolBody } from '../proxy/spool-body.ts';
import { requireSellableEndpoint, sellEndpoint, type SellEndpointDeps } from '../sellers/sell-endpoint.ts';
import { toolPage } from '../sellers/endpoint-store.ts';
import type { ReliabilityCache } from '../sellers/reliability.ts';
import { BUILTIN_TOOLS, decodeCursor, encodeCursor, sellerTool, toolTarget } from './mcp-tools.ts';
import { errorToolAnswer, soldToolAnswer, type ToolAnswer } from './tool-result.ts';

export interface McpDeps {
  serviceName: string;
  version: string;
  publicBaseUrl: () => string;
  builtin: BuiltinDeps;
  /** The built-ins' bazaar extensions by path (sent with their quotes, as over HTTP). */
  bazaar: ReadonlyMap<string, BazaarExtension>;
  seller: SellEndpointDeps;
  /** Largest seller request body (the JSON of the arguments), as over HTTP. */
  maxSellerBodyBytes: number;
  /** Tools per tools/list page. */
  toolsPageSize: number;
  /** Largest answer returned inside a tool result (it is held whole to become JSON-RPC). */
  maxAnswerBytes: number;
  metrics?: Pick<Metrics, 'mcpCalls'>;
  /** Seller endpoints' reliability figures (the cache discovery reads), shown in each seller tool's `_meta`. */
  reliability: ReliabilityCache;
}

const fingerprintOf = (tool: string, args: Record<string, unknown>) => requestFingerprint('POST', `/mcp/tools/${tool}`, 'application/json', Buffer.from(canonicalJson(args)));

const invalidArguments = (message: string) => new AppError('invalid_input', 400, message, { hint: 'tools/list gives each tool\'s inputSchema.' });

/** The document of a built-in call, in a buffer of its own (the pool transfers it to a worker). */
function documentOf(args: Record<string, unknown>, maxBytes: number): Buffer {
  const doc = args.document;
  if (typeof doc !== 'string' || doc.length === 0) throw invalidArguments('`document` (the file, base64) is required.');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(doc)) throw invalidArguments('`document` must be base64.');
  if (Math.floor((doc.length * 3) / 4) > maxBytes + 2) throw tooLarge(maxBytes);
  const decoded = Buffer.from(doc, 'base64');
  if (decoded.length > maxBytes) throw tooLarge(maxBytes);
  const own = Buffer.allocUnsafeSlow(decoded.length);
  decoded.copy(own);
  return own;
}

/** A sold answer's body, whole: a streamed (proxied) answer is read up to the limit. */
async function bodyOf(answer: SoldAnswer, maxBytes: number): Promise<Buffer> {
  if (Buffer.isBuffer(answer.body)) return answer.body;
  const chunks: Buffer[] = [];
  let size = 0;
  const stream = answer.body;
  await readChunks(stream, (chunk) => {
    size += chunk.length;
    if (size > maxBytes) throw new AppError('answer_too_large', 502, `The answer is larger than ${maxBytes} bytes, more than an MCP tool result carries.`, { hint: 'Call the endpoint over HTTP to stream large answers.', headers: answer.headers });
    chunks.push(chunk);
  }).catch((err: unknown) => {
    // Nobody reads the rest: let the upstream go (the stored copy then records a cut answer, as for a buyer who left).
    stream.destroy();
    throw err;
  });
  return Buffer.concat(chunks);
}

async function sellTool(deps: McpDeps, ctx: RequestContext, params: CallToolRequest['params']): Promise<ToolAnswer> {
  const target = toolTarget(params.name);
  if (!target) throw new AppError('tool_not_found', 404, `No tool named ${params.name}.`, { hint: 'tools/list lists the catalog.' });
  const args = (params.arguments ?? {}) as Record<string, unknown>;
  const payment = params._meta?.['x402/payment'];
  // The v2 PaymentPayload is what a PAYMENT-SIGNATURE header carries, base64 JSON: one decoder for both.
  const proof: PaymentProof | undefined = payment === undefined ? undefined : { kind: 'payment-signature', value: Buffer.from(JSON.stringify(payment)).toString('base64') };
  const fingerprint = fingerprintOf(params.name, args);
  const request = { ...saleRequestOf(ctx, fingerprint), proof };
  const resource = `${deps.publicBaseUrl()}/mcp#${params.name}`;

  if (target.kind === 'builtin') {
    const bytes = documentOf(args, deps.builtin.limits.maxBodyBytes);
    const b: BuiltinEndpoint = target.builtin;
    const sold = await sellBuiltin(deps.builtin, b, deps.bazaar.get(b.path), { bytes, fingerprint, requestId: ctx.requestId, log: ctx.log }, request);
    return soldToolAnswer({ ...sold, body: await bodyOf(sold, deps.maxAnswerBytes) }, resource);
  }
  const endpoint = await requireSellableEndpoint(deps.seller, target.slug, target.pathSuffix);
  const body = await spoolBody(Readable.from([Buffer.from(JSON.stringify(args))]), deps.maxSellerBodyBytes);
  try {
    const sold = await sellEndpoint(
      deps.seller,
      endpoint,
      { slug: target.slug, pathSuffix: target.pathSuffix, body, headers: { 'content-type': 'application/json' }, search: '', clientIp: ctx.clientIp, log: ctx.log },
      request,
    );
    return soldToolAnswer({ ...sold, body: await bodyOf(sold, deps.maxAnswerBytes) }, resource);
  } finally {
    await body.discard();
  }
}

async function callTool(deps: McpDeps, ctx: RequestContext, params: CallToolRequest['params'], onRefused: () => void): Promise<CallToolResult> {
  let answer: ToolAnswer;
  try {
    answer = await sellTool(deps, ctx, params);
  } catch (err) {
    const expected = errorToolAnswer(err);
    if (!expected) {
      // Never a stack to the client: the request id finds it in the log.
      ctx.log.error('mcp tool call failed', { err, tool: params.name });
      deps.metrics?.mcpCalls.inc({ tool: toolLabel(params.name), outcome: 'error' });
      const body = { error: 'internal_error', message: 'The call failed inside the service.', request_id: ctx.requestId };
      return { isError: true, structuredContent: body, content: [{ type: 'text', text: JSON.stringify(body) }] };
    }
    answer = expected;
  }
  if (answer.outcome === 'refused') onRefused();
  deps.metrics?.mcpCalls.inc({ tool: toolLabel(params.name), outcome: answer.outcome });
  ctx.log.info('mcp tool call', { tool: params.name, outcome: answer.outcome });
  return answer.result;
}

/** Unknown names are one label: a client cannot grow the metric without bound. */
const toolLabel = (name: string) => (toolTarget(name) ? name : 'unknown');

async function listTools(deps: McpDeps, cursor: string | undefined): Promise<ListToolsResult> {
  const after = cursor === undefined ? null : decodeCursor(cursor);
  if (cursor !== undefined && !after) throw new AppError('invalid_input', 400, 'The cursor is not one tools/list gave.');
  const size = deps.toolsPageSize;
  // Built-ins after the cursor (all of them on the first page), then seller endpoints after it.
  const builtinsFrom = !after ? 0 : after.kind === 'builtin' ? BUILTIN_TOOLS.findIndex((t) => t.name === after.builtin.tool) + 1 : BUILTIN_TOOLS.length;
  const builtins = BUILTIN_TOOLS.slice(builtinsFrom, builtinsFrom + size);
  const room = size - builtins.length;
  // One more than fits: whether a next page exists, without a count.
  const [rows, figures] = await Promise.all([
    toolPage(sqlOf(deps.seller.orm), after?.kind === 'seller' ? [after.slug, after.pathSuffix] : null, room + 1),
    deps.reliability.byEndpoint(),
  ]);
  const tools = [...builtins, ...rows.slice(0, room).map((r) => sellerTool(r, figures.get(Number(r.id)) ?? null))];
  const more = rows.length > room || builtinsFrom + builtins.length < BUILTIN_TOOLS.length;
  return { tools, ...(more && tools.length ? { nextCursor: encodeCursor(tools.at(-1)!.name) } : {}) };
}

/** The request as the SDK's web-standard transport reads it (the body is already parsed by the server). */
function webRequestOf(ctx: RequestContext): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (value === undefined || name === 'host' || name === 'connection' || name === 'content-length' || name === 'transfer-encoding') continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(`${ctx.url.origin}${ctx.url.pathname}`, { method: ctx.req.method ?? 'POST', headers });
}

/**
 * The MCP SDK, loaded by the first MCP request rather than at start-up: its module builds its
 * zod schemas when imported, 0.3-0.4 s of CPU that every start and restart would otherwise pay.
 */
let sdk: Promise<typeof import('@modelcontextprotocol/sdk/server/index.js') & typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js') & typeof import('@modelcontextprotocol/sdk/types.js')> | undefined;
const loadSdk = () =>
  (sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([server, transport, types]) => ({ ...server, ...transport, ...types })));

export function mcpHandler(deps: McpDeps): Handler {
  return async (ctx): Promise<HandlerResult> => {
    const { Server, WebStandardStreamableHTTPServerTransport, ListToolsRequestSchema, CallToolRequestSchema } = await loadSdk();
    const server = new Server({ name: deps.serviceName, version: deps.version }, { capabilities: { tools: { listChanged: false } } });
    server.setRequestHandler(ListToolsRequestSchema, (req) => listTools(deps, req.params?.cursor));
    // A refused payment answers inside a 200: the rate limit is told so (with-rate-limit.ts).
    let refusedProof = false;
    server.setRequestHandler(CallToolRequestSchema, (req) => callTool(deps, ctx, req.params, () => (refusedProof = true)));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(webRequestOf(ctx), { parsedBody: ctx.body });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => (headers[name] = value));
      return { status: response.status, headers, body: Buffer.from(await response.arrayBuffer()), ...(refusedProof ? { refusedProof } : {}) };
    } finally {
      await server.close();
    }
  };
}

/** This feature's handler map (app.ts merges it with the others). */
export const createMcpHandlers = (deps: McpDeps): Partial<Record<OperationId, Handler>> => ({ mcp: mcpHandler(deps) });
