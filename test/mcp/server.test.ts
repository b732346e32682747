/**
 * The paid MCP server at /mcp, driven by the unmodified `@modelcontextprotocol/sdk` client
 * over Streamable HTTP, on the devnet chains with real PDFs and a real local upstream:
 * tools/list (built-ins and seller endpoints with schemas and prices), the x402 MCP
 * PaymentRequired, payment on Base (EIP-3009 authorization, built by `@x402/evm`) and Solana
 * (`@x402/svm`) in `_meta["x402/payment"]`, the settlement response in the result's `_meta`,
 * replays that never run twice, refusals that name their reason, a seller tool whose ledger
 * row carries the 4 % / 3 % take, and one whose failed upstream leaves the seller unpaid.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { privateKeyToAccount } from 'viem/accounts';
import { x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm';
import { makePdf, startPaidTestEnv, type PaidTestEnv } from '../helpers/paid.ts';
import { endpointInput, eventually, evmSigner, publish, register } from '../helpers/sellers.ts';

let env: PaidTestEnv;
let upstream: Server;
let upstreamUrl: string;
/** Paid calls the upstream received (probes carry no X-Paycall-Tx). */
const paidHits: { path: string; body: string }[] = [];
const seller = evmSigner();
const clients: Client[] = [];

before(async () => {
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      if (req.headers['x-paycall-tx'] !== undefined) paidHits.push({ path: req.url!, body });
      // Probes pass; paid calls to this one fail (the seller is not paid for them).
      if (req.headers['x-paycall-tx'] !== undefined && req.url!.startsWith('/down')) return void res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ down: true }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ echo: body ? JSON.parse(body) : null }));
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  env = await startPaidTestEnv('mcpserver', { TOOL_WORKERS: '1', MCP_TOOLS_PAGE_SIZE: '3' });
  assert.equal((await register(env.t.baseUrl, seller, 'acme')).status, 201);
  for (const [suffix, mode] of [['echo', 'proxy'], ['echo-paywall', 'paywall'], ['down-paywall', 'paywall']] as const) {
    const r = await publish(env.t.baseUrl, seller, endpointInput(upstreamUrl, suffix, { mode, atomic_price: 20_000, sample_body: { q: 'sample', n: 2, tags: ['a'] } }));
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
  await eventually('the endpoints active', async () => {
    const meta = (await (await fetch(`${env.t.baseUrl}/v1/_meta`)).json()) as { endpoints: { path: string }[] };
    return ['echo', 'echo-paywall', 'down-paywall'].every((p) => meta.endpoints.some((e) => e.path === `/v1/acme/${p}`));
  });
});
after(async () => {
  for (const c of clients) await c.close();
  await env?.close();
  upstream?.closeAllConnections();
  await new Promise((r) => upstream?.close(r));
});

async function connect(): Promise<Client> {
  const client = new Client({ name: 'paycall-test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${env.t.baseUrl}/mcp`)));
  clients.push(client);
  return client;
}

type ToolResult = { isError?: boolean; structuredContent?: any; content: any[]; _meta?: any };
const call = async (client: Client, name: string, args: Record<string, unknown>, payment?: unknown) =>
  (await client.callTool({ name, arguments: args, ...(payment === undefined ? {} : { _meta: { 'x402/payment': payment } }) })) as ToolResult;

const evmPayer = (account: number) => new x402Client().register('eip155:8453', new ExactEvmScheme(privateKeyToAccount(env.devnet.info.accounts[account].evmPrivateKey as `0x${string}`)));
const ledger = async (tx: string) => (await env.sql.query('select * from payment where lower(tx) = lower($1)', [tx])).rows;
const pdfArgs = async (pages: number, label: string) => ({ document: (await makePdf(pages, label)).toString('base64'), filename: `${label}.pdf` });

test('tools/list: the four built-ins and every live seller endpoint, paged, with input schemas and x402 prices in _meta', async () => {
  const client = await connect();
  // Pages of 3 (MCP_TOOLS_PAGE_SIZE): the built-ins, then the seller endpoints, one cursor between.
  const first = await client.listTools();
  assert.deepEqual(first.tools.map((t) => t.name), ['pdf-md', 'pdf-text', 'pdf-json']);
  assert.ok(first.nextCursor);
  const second = await client.listTools({ cursor: first.nextCursor });
  assert.deepEqual(second.tools.map((t) => t.name), ['invoice-extract', 'acme.down-paywall', 'acme.echo']);
  const third = await client.listTools({ cursor: second.nextCursor });
  assert.deepEqual(third.tools.map((t) => t.name), ['acme.echo-paywall']);
  assert.equal(third.nextCursor, undefined);
  const tools = [...first.tools, ...second.tools, ...third.tools];
  const md = tools[0];
  assert.deepEqual(md.inputSchema.required, ['document']);
  assert.equal((md.inputSchema.properties as any).document.type, 'string');
  assert.deepEqual(md._meta?.x402, { x402Version: 2, price: '10000', unit: 'page', asset: 'USDC', decimals: 6, networks: ['eip155:8453', 'eip155:137', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'] });
  const echo = tools.find((t) => t.name === 'acme.echo')!;
  assert.deepEqual(echo.inputSchema.properties, { q: { type: 'string', examples: ['sample'] }, n: { type: 'integer', examples: [2] }, tags: { type: 'array', items: { type: 'string', examples: ['a'] } } });
  assert.equal((echo._meta as any).x402.price, '20000');
  assert.equal((echo._meta as any).x402.unit, 'request');
  assert.match(echo.description!, /Test endpoint echo/);
  // The same reliability figures as the discovery item (one per-process cache feeds both); built-ins have none.
  const discovery = (await (await fetch(`${env.t.baseUrl}/discovery/resources?limit=100`)).json()) as { items: { resource: string; metadata?: { reliability?: unknown } }[] };
  const item = discovery.items.find((i) => i.resource.endsWith('/v1/acme/echo'))!;
  assert.ok(item.metadata?.reliability, 'discovery shows reliability');
  assert.deepEqual(Object.keys((echo._meta as any).reliability).sort(), Object.keys(item.metadata.reliability as object).sort());
  assert.equal(typeof (echo._meta as any).reliability.uptime_24h, 'number', 'the probes that activated it count');
  assert.equal(md._meta?.reliability, undefined);
  // A cursor that tools/list never gave is a JSON-RPC error, not a silent first page.
  await assert.rejects(client.listTools({ cursor: 'not-a-cursor' }), /cursor/);
});

test('an unpaid tools/call answers the x402 MCP PaymentRequired: the same accepts as the HTTP 402, priced by pages', async () => {
  const client = await connect();
  const args = await pdfArgs(3, 'mcp-quote');
  const r = await call(client, 'pdf-md', args);
  assert.equal(r.isError, true);
  const required = r.structuredContent;
  assert.equal(required.x402Version, 2);
  assert.deepEqual(JSON.parse(r.content[0].text), required, 'content[0].text is the same PaymentRequired');
  assert.deepEqual(
    required.accepts.map((a: any) => `${a.network}/${a.scheme}/${a.amount}`),
    ['eip155:8453/exact', 'eip155:8453/transfer-with-authorization', 'eip155:137/exact', 'eip155:137/transfer-with-authorization', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/exact', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/spl-transfer'].map((a) => `${a}/30000`),
  );
  // The HTTP 402 of the same document quotes the same accepts.
  const http = await fetch(`${env.t.baseUrl}/v1/pdf-md`, { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: new Uint8Array(Buffer.from(args.document, 'base64')) });
  assert.equal(http.status, 402);
  const header = JSON.parse(Buffer.from(http.headers.get('payment-required')!, 'base64').toString('utf8'));
  assert.deepEqual(required.accepts, header.accepts);
  assert.ok(required.extensions.bazaar, 'the quote carries the bazaar extension, as over HTTP');
  // Unknown tools and missing documents are tool errors with a code, before any quote.
  assert.equal((await call(client, 'nope', {})).structuredContent.error, 'tool_not_found');
  assert.equal((await call(client, 'acme.missing', {})).structuredContent.error, 'endpoint_not_found');
  assert.equal((await call(client, 'pdf-md', {})).structuredContent.error, 'invalid_input');
});

test('paid on Base (EIP-3009 authorization via @x402/evm): the pdf-md answer with x402/payment-response; a replay returns it without a second run', async () => {
  const client = await connect();
  const args = await pdfArgs(2, 'mcp-base');
  const quote = await call(client, 'pdf-md', args);
  const payer = evmPayer(2);
  const payment = await payer.createPaymentPayload(quote.structuredContent);
  assert.equal(payment.accepted.network, 'eip155:8453');
  const runsBefore = env.rec.count('tool finished');
  const paid = await call(client, 'pdf-md', args, payment);
  assert.equal(paid.isError, undefined, JSON.stringify(paid));
  assert.match(paid.structuredContent.markdown, /mcp-base page 2/);
  assert.deepEqual(JSON.parse(paid.content[0].text), paid.structuredContent);
  const settled = paid._meta['x402/payment-response'];
  assert.equal(settled.success, true);
  assert.equal(settled.network, 'eip155:8453');
  assert.equal(settled.payer.toLowerCase(), privateKeyToAccount(env.devnet.info.accounts[2].evmPrivateKey as `0x${string}`).address.toLowerCase());
  const [row] = await ledger(settled.transaction);
  assert.equal(row.amount, '20000');
  assert.equal(row.endpoint_path, '/v1/pdf-md');
  assert.equal(env.rec.count('tool finished'), runsBefore + 1);

  // The same payment again, from another connection: the stored answer, no second run, one ledger row.
  const again = await call(await connect(), 'pdf-md', { filename: args.filename, document: args.document }, payment);
  assert.deepEqual(again.structuredContent, paid.structuredContent);
  assert.deepEqual(again._meta['x402/payment-response'], settled);
  assert.equal(env.rec.count('tool finished'), runsBefore + 1);
  assert.equal((await ledger(settled.transaction)).length, 1);

  // The same payment for other arguments buys nothing.
  const other = await call(client, 'pdf-md', await pdfArgs(2, 'mcp-other'), payment);
  assert.equal(other.isError, true);
  assert.equal(env.rec.count('tool finished'), runsBefore + 1);
});

test('paid on Solana (@x402/svm, the service co-signs as fee payer): the pdf-text answer', async () => {
  const { ExactSvmScheme } = await import('@x402/svm');
  const { createKeyPairSignerFromBytes } = await import('@solana/kit');
  const bs58 = (await import('bs58')).default;
  const signer = await createKeyPairSignerFromBytes(bs58.decode(env.devnet.info.accounts[4].solanaSecretKey));
  const payer = new x402Client().register('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', new ExactSvmScheme(signer, { rpcUrl: env.devnet.info.chains.solana.rpcUrl }));
  const client = await connect();
  const args = await pdfArgs(1, 'mcp-solana');
  const quote = await call(client, 'pdf-text', args);
  const paid = await call(client, 'pdf-text', args, await payer.createPaymentPayload(quote.structuredContent));
  assert.equal(paid.isError, undefined, JSON.stringify(paid));
  assert.match(paid.structuredContent.text, /mcp-solana page 1/);
  const settled = paid._meta['x402/payment-response'];
  assert.equal(settled.network, 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp');
  assert.equal(settled.payer, signer.address);
  assert.equal((await ledger(settled.transaction))[0].amount, '5000');
});

test('a forged or underpaid payment is refused with its reason in the PaymentRequired, and nothing runs', async () => {
  const client = await connect();
  const args = await pdfArgs(1, 'mcp-refused');
  const quote = await call(client, 'pdf-text', args);
  const runsBefore = env.rec.count('tool finished');

  const forged = structuredClone(await evmPayer(3).createPaymentPayload(quote.structuredContent)) as any;
  const sig: string = forged.payload.signature;
  forged.payload.signature = sig.slice(0, 10) + (sig[10] === 'a' ? 'b' : 'a') + sig.slice(11);
  const r1 = await call(client, 'pdf-text', args, forged);
  assert.equal(r1.isError, true);
  assert.equal(r1.structuredContent.error, 'authorization_invalid');
  assert.equal(r1.structuredContent.x402Version, 2);
  assert.match(r1.content[1].text, /^authorization_invalid: /);

  // Signed for 1 atomic unit instead of the quoted 5000.
  const cheap = { ...quote.structuredContent, accepts: quote.structuredContent.accepts.map((a: any) => ({ ...a, amount: '1' })) };
  const r2 = await call(client, 'pdf-text', args, await evmPayer(3).createPaymentPayload(cheap));
  assert.equal(r2.isError, true);
  assert.equal(r2.structuredContent.error, 'amount_mismatch');

  const r3 = await call(client, 'pdf-text', args, { x402Version: 2, accepted: { network: 'eip155:1', scheme: 'exact' }, payload: {} });
  assert.equal(r3.structuredContent.error, 'invalid_payment');
  assert.equal(env.rec.count('tool finished'), runsBefore);
});

test('a seller tool end to end: quote, paid call forwarded once with the arguments as its body, 4 % (proxy) / 3 % (paywall) take', async () => {
  const client = await connect();
  for (const [tool, takeBps, fee, net] of [['acme.echo', 400, '800', '19200'], ['acme.echo-paywall', 300, '600', '19400']] as const) {
    const args = { q: `mcp ${tool}`, n: 7 };
    const quote = await call(client, tool, args);
    assert.equal(quote.isError, true);
    assert.ok(quote.structuredContent.accepts.every((a: any) => a.amount === '20000'));
    const payment = await evmPayer(1).createPaymentPayload(quote.structuredContent);
    const hitsBefore = paidHits.length;
    const paid = await call(client, tool, args, payment);
    assert.equal(paid.isError, undefined, JSON.stringify(paid));
    assert.deepEqual(paid.structuredContent, { echo: args });
    assert.equal(paidHits.length, hitsBefore + 1);
    const settled = paid._meta['x402/payment-response'];
    const [row] = await ledger(settled.transaction);
    assert.deepEqual([row.amount, row.take_bps, row.fee, row.net, row.endpoint_path], ['20000', takeBps, fee, net, `/v1/acme/${tool.split('.')[1]}`]);
    // A replay (arguments in another key order) is the stored answer: the upstream is not called again.
    const again = await call(client, tool, { n: 7, q: args.q }, payment);
    assert.deepEqual(again.structuredContent, paid.structuredContent);
    assert.equal(paidHits.length, hitsBefore + 1);
  }
});

test('a seller tool whose upstream fails after payment: an isError result with the payment response, and the seller is not paid', async () => {
  const client = await connect();
  const args = { q: 'down' };
  const quote = await call(client, 'acme.down-paywall', args);
  const payment = await evmPayer(1).createPaymentPayload(quote.structuredContent);
  const failed = await call(client, 'acme.down-paywall', args, payment);
  assert.equal(failed.isError, true);
  assert.deepEqual(failed.structuredContent, { down: true }, 'the upstream answer, passed back as over HTTP');
  const settled = failed._meta['x402/payment-response'];
  assert.equal(settled.success, true, 'paid (not refunded): the buyer learns which transaction paid');
  const [row] = await ledger(settled.transaction);
  assert.equal(row.delivery, 'undelivered');
});

test('MCP calls are counted by tool and outcome', async () => {
  const text = await (await fetch(`${env.t.metricsUrl}/metrics`)).text();
  const value = (labels: string) => Number(new RegExp(`^paycall_mcp_calls_total\\{${labels}\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  assert.equal(value('tool="pdf-md",outcome="paid"'), 1);
  assert.equal(value('tool="pdf-md",outcome="replay"'), 1);
  assert.equal(value('tool="acme.echo",outcome="paid"'), 1);
  assert.ok(value('tool="pdf-text",outcome="refused"') >= 3);
  assert.ok(value('tool="unknown",outcome="error"') >= 1);
  assert.equal(value('tool="acme.down-paywall",outcome="failed"'), 1);
});
