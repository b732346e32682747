/**
 * `paycall mcp`: a stdio MCP server for desktop agents. It lists the service's catalog (tools/list
 * of POST /mcp, passed through whole: schemas, prices in `_meta.x402`, cursors) and, on
 * tools/call, asks the service; when the answer is the x402 PaymentRequired it pays from the
 * local wallet (the `exact` scheme of the chosen chain) and retries with `_meta["x402/payment"]`,
 * within the spend policy (spend-policy.ts). A refusal by the policy is a tool error naming the
 * limit and the price, and nothing is signed. stdout is the protocol: every log line goes to stderr.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { exactRequirementOf, isV2PaymentRequired, v2PaymentPayload, type V2Chain } from '../sdk/x402-v2-payer.ts';
import { formatUsdc, SpendLedger, type Refusal, type SpendPolicy } from './spend-policy.ts';

export interface BridgeOptions {
  baseUrl: string;
  chain: V2Chain;
  walletKey: string;
  /** Solana only: where the transfer's blockhash and token accounts are read. */
  rpcUrl?: string;
  policy: SpendPolicy;
  apiKey?: string;
  version: string;
  log: (line: string) => void;
}

const refused = (tool: string, r: Refusal, price?: bigint): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: `paycall mcp did not pay for ${tool}: ${r.message}. Nothing was paid.` }],
  structuredContent: { error: 'spend_policy', limit: r.limit, tool, ...(price === undefined ? {} : { price: price.toString() }) },
});

/** The client of the service's /mcp, connected on first use (the agent may start us before the service). */
function upstreamOf(opts: BridgeOptions) {
  let client: Promise<Client> | undefined;
  return () =>
    (client ??= (async () => {
      const c = new Client({ name: 'paycall-mcp-bridge', version: opts.version });
      const headers: Record<string, string> = opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {};
      await c.connect(new StreamableHTTPClientTransport(new URL('/mcp', opts.baseUrl), { requestInit: { headers } }));
      return c;
    })().catch((err: unknown) => {
      client = undefined;
      throw err;
    }));
}

export function createBridge(opts: BridgeOptions) {
  const upstream = upstreamOf(opts);
  const ledger = new SpendLedger(opts.policy);
  const server = new Server({ name: 'paycall', version: opts.version }, { capabilities: { tools: {} } });

  server.setRequestHandler(ListToolsRequestSchema, async (request) => (await upstream()).listTools(request.params));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: args, _meta } = request.params;
    const client = await upstream();
    // An agent that pays by itself is passed through: the policy governs our wallet only.
    if (_meta?.['x402/payment'] !== undefined) return (await client.callTool({ name, arguments: args, _meta })) as CallToolResult;
    const notAllowed = ledger.notAllowed(name);
    if (notAllowed) {
      opts.log(`refused ${name}: ${notAllowed.message}`);
      return refused(name, notAllowed);
    }
    const quote = (await client.callTool({ name, arguments: args })) as CallToolResult;
    // Free, or an error before any quote (unknown tool, bad arguments): the agent sees it as is.
    if (!quote.isError || !isV2PaymentRequired(quote.structuredContent)) return quote;
    const required = quote.structuredContent;
    const requirement = exactRequirementOf(required, opts.chain);
    if (!requirement) return { isError: true, content: [{ type: 'text', text: `${name} cannot be paid on ${opts.chain} (the quote offers ${required.accepts.map((a) => a.network).join(', ')}). Nothing was paid.` }] };
    const price = BigInt(requirement.amount);
    const over = ledger.reserve(name, price);
    if (over) {
      opts.log(`refused ${name}: ${over.message}`);
      return refused(name, over, price);
    }
    let paid: CallToolResult;
    try {
      const payment = await v2PaymentPayload(required, requirement, { chain: opts.chain, key: opts.walletKey, rpcUrl: opts.rpcUrl });
      paid = (await client.callTool({ name, arguments: args, _meta: { 'x402/payment': payment } })) as CallToolResult;
    } catch (err) {
      // Not known to be settled (signing or the call failed): kept reserved, the safe side of the budget.
      opts.log(`paying ${name} failed: ${(err as Error).message}`);
      throw err;
    }
    const settled = paid._meta?.['x402/payment-response'] as { success?: boolean; transaction?: string } | undefined;
    if (settled?.success) opts.log(`paid ${formatUsdc(price)} for ${name} on ${opts.chain} (${settled.transaction}); ${formatUsdc(ledger.total)} spent this session`);
    else {
      ledger.release(price);
      opts.log(`the service refused the payment for ${name}: ${JSON.stringify((paid.structuredContent as { error?: unknown } | undefined)?.error ?? null)}`);
    }
    return paid;
  });

  return {
    server,
    async close() {
      await server.close();
      const c = await upstream().catch(() => undefined);
      await c?.close();
    },
  };
}

/** Serves the bridge on stdin/stdout until the agent closes stdin. */
export async function runBridge(opts: BridgeOptions): Promise<void> {
  const bridge = createBridge(opts);
  const transport = new StdioServerTransport();
  process.stdin.on('end', () => void bridge.close().finally(() => process.exit(0)));
  await bridge.server.connect(transport);
  const { maxPerCall, budget, allow } = opts.policy;
  opts.log(
    `serving ${opts.baseUrl}/mcp on stdio; paying on ${opts.chain}; per call at most ${maxPerCall === undefined ? 'unlimited' : formatUsdc(maxPerCall)}, budget ${budget === undefined ? 'unlimited' : formatUsdc(budget)}, allow ${allow?.join(',') ?? 'every tool'}`,
  );
}
