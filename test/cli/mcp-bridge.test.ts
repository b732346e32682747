/**
 * `paycall mcp` as a child process, driven by the unmodified `@modelcontextprotocol/sdk` client
 * over stdio, against the real service on the devnet: it lists the service's catalog, pays a
 * pdf-text call from its wallet (EIP-3009 on Base) within its policy, and refuses, paying
 * nothing, a call above its per-call cap, a tool outside its allow-list and a call over its
 * session budget; with --chain it pays on Polygon and Solana too; it pays for a pdf-md answer and
 * a seller tool's answer (the seller's row at the 4 % take). "Nothing paid" is read from
 * the ledger and from the wallet's USDC balance.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { privateKeyToAccount } from 'viem/accounts';
import { execFile } from 'node:child_process';
import { evmTokenBalance, solanaKeypair, solanaTokenBalance } from '../../sdk/wallet.ts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makePdf, startPaidTestEnv, type PaidTestEnv } from '../helpers/paid.ts';
import { endpointInput, eventually, evmSigner, publish, register } from '../helpers/sellers.ts';

let env: PaidTestEnv;
let client: Client;
let stderr = '';
const others: Client[] = [];
// Its own devnet account, so that the ledger rows and the balance are the bridge's alone.
const ACCOUNT = 3;
let buyer: string;

before(async () => {
  env = await startPaidTestEnv('mcpbridge', { TOOL_WORKERS: '1' });
  const key = env.devnet.info.accounts[ACCOUNT].evmPrivateKey;
  buyer = privateKeyToAccount(key as `0x${string}`).address;
  const transport = new StdioClientTransport({
    command: process.execPath,
    // pdf-text costs 0.005 USDC a page: a 1-page call fits the cap, a 3-page one does not; the budget holds two 1-page calls.
    args: ['cli/paycall.mjs', 'mcp', '--base-url', env.t.baseUrl, '--max-per-call', '0.01', '--chain', 'base'],
    env: { ...(process.env as Record<string, string>), PAYCALL_DATA_DIR: env.devnet.dataDir, PAYCALL_WALLET_KEY: key, PAYCALL_BUDGET: '0.012', PAYCALL_ALLOW: 'pdf-text,acme.*' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  client = new Client({ name: 'desktop-agent', version: '1.0.0' });
  await client.connect(transport);
});
let upstream: Server | undefined;
after(async () => {
  await client?.close();
  for (const c of others) await c.close();
  await env?.close();
  upstream?.closeAllConnections();
  await new Promise((r) => (upstream ? upstream.close(r) : r(null)));
});

type ToolResult = { isError?: boolean; structuredContent?: any; content: { type: string; text: string }[]; _meta?: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
const callPdf = async (tool: string, pages: number, label: string) =>
  (await client.callTool({ name: tool, arguments: { document: (await makePdf(pages, label)).toString('base64'), filename: `${label}.pdf` } })) as ToolResult;
const ledgerRows = async (payer = buyer) => (await env.sql.query('select tx, amount, endpoint_path from payment where lower(payer) = lower($1) order by id', [payer])).rows;
const balance = () => evmTokenBalance({ rpcUrl: env.devnet.info.chains.base.rpcUrl, chainId: 8453, token: env.devnet.info.chains.base.usdc!, owner: buyer });

test('tools/list through the bridge is the service catalog, prices in _meta.x402 included', async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).slice(0, 4), ['pdf-md', 'pdf-text', 'pdf-json', 'invoice-extract']);
  const text = tools.find((t) => t.name === 'pdf-text')!;
  assert.deepEqual(text.inputSchema.required, ['document']);
  assert.equal((text._meta as any).x402.price, '5000'); // eslint-disable-line @typescript-eslint/no-explicit-any
  assert.equal((text._meta as any).x402.unit, 'page'); // eslint-disable-line @typescript-eslint/no-explicit-any
});

test('within the policy the bridge pays by itself and returns the answer; above the cap, outside the allow-list or over the budget it pays nothing', async () => {
  const startBalance = await balance();

  // 1. One page, 0.005 USDC: paid on Base from the bridge's wallet, one ledger row.
  const paid = await callPdf('pdf-text', 1, 'bridge-one');
  assert.equal(paid.isError, undefined, JSON.stringify(paid));
  assert.match(paid.structuredContent.text, /bridge-one page 1/);
  const settled = paid._meta['x402/payment-response'];
  assert.equal(settled.success, true);
  assert.equal(settled.network, 'eip155:8453');
  assert.deepEqual(await ledgerRows(), [{ tx: settled.transaction, amount: '5000', endpoint_path: '/v1/pdf-text' }]);
  assert.equal(await balance(), startBalance - 5000n);

  // 2. Three pages, 0.015 USDC: above the 0.01 cap. A tool error naming the cap and the price.
  const capped = await callPdf('pdf-text', 3, 'bridge-capped');
  assert.equal(capped.isError, true);
  assert.match(capped.content[0].text, /per-call cap of 0\.01 USDC/);
  assert.match(capped.content[0].text, /0\.015 USDC/);
  assert.deepEqual([capped.structuredContent.limit, capped.structuredContent.price], ['max-per-call', '15000']);
  assert.equal((await ledgerRows()).length, 1);
  assert.equal(await balance(), startBalance - 5000n);

  // 3. pdf-json is not in the allow-list (pdf-text,acme.*): refused before anything is asked.
  const outside = await callPdf('pdf-json', 1, 'bridge-outside');
  assert.equal(outside.isError, true);
  assert.match(outside.content[0].text, /pdf-json is not in the allow-list/);
  assert.equal(outside.structuredContent.limit, 'allow-list');
  assert.equal((await ledgerRows()).length, 1);

  // 4. A second page-priced call fits the 0.012 budget (0.01 spent); the third would make 0.015.
  const second = await callPdf('pdf-text', 1, 'bridge-two');
  assert.equal(second.isError, undefined, JSON.stringify(second));
  assert.match(second.structuredContent.text, /bridge-two page 1/);
  const over = await callPdf('pdf-text', 1, 'bridge-three');
  assert.equal(over.isError, true);
  assert.match(over.content[0].text, /session budget: 0\.01 USDC of 0\.012 USDC spent/);
  assert.equal(over.structuredContent.limit, 'budget');
  assert.deepEqual((await ledgerRows()).map((r) => r.amount), ['5000', '5000']);
  assert.equal(await balance(), startBalance - 10000n);

  // Errors before any quote pass through as the service gives them.
  const unknown = (await client.callTool({ name: 'acme.nothing', arguments: {} })) as ToolResult;
  assert.equal(unknown.structuredContent.error, 'endpoint_not_found');

  // The protocol owns stdout: what the bridge says goes to stderr.
  assert.match(stderr, /paid 0\.005 USDC for pdf-text on base/);
  assert.match(stderr, /refused pdf-text: .*per-call cap/);
});

// The other two chains, each from its own account: Solana (the bridge builds the transfer, the
// service co-signs it as fee payer) and Polygon (an EIP-3009 authorization, as on Base).
for (const [chain, account, network] of [['solana', 4, 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'], ['polygon', 2, 'eip155:137']] as const) {
  test(`--chain ${chain}: the bridge pays on ${chain} and the answer comes back`, async () => {
    const keys = env.devnet.info.accounts[account];
    const [key, owner] = chain === 'solana' ? [keys.solanaSecretKey, solanaKeypair(keys.solanaSecretKey).publicKey.toBase58()] : [keys.evmPrivateKey, privateKeyToAccount(keys.evmPrivateKey as `0x${string}`).address];
    const { solana, polygon } = env.devnet.info.chains;
    const chainBalance = () => (chain === 'solana' ? solanaTokenBalance({ rpcUrl: solana.rpcUrl, mint: solana.usdcMint, owner }) : evmTokenBalance({ rpcUrl: polygon.rpcUrl, chainId: 137, token: polygon.usdc, owner }));
    const before = await chainBalance();
    const agent = new Client({ name: `desktop-agent-${chain}`, version: '1.0.0' });
    others.push(agent);
    await agent.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['cli/paycall.mjs', 'mcp', '--base-url', env.t.baseUrl, '--chain', chain, '--allow', 'pdf-text'],
        env: { ...(process.env as Record<string, string>), PAYCALL_DATA_DIR: env.devnet.dataDir, PAYCALL_WALLET_KEY: key, PAYCALL_MAX_PER_CALL: '', PAYCALL_BUDGET: '', PAYCALL_ALLOW: '' },
        stderr: 'ignore',
      }),
    );
    const args = { document: (await makePdf(1, `bridge-${chain}`)).toString('base64') };
    const paid = (await agent.callTool({ name: 'pdf-text', arguments: args })) as ToolResult;
    assert.equal(paid.isError, undefined, JSON.stringify(paid));
    assert.match(paid.structuredContent.text, new RegExp(`bridge-${chain} page 1`));
    const settled = paid._meta['x402/payment-response'];
    assert.equal(settled.network, network);
    assert.deepEqual((await ledgerRows(owner)).map((r) => [r.tx, r.amount]), [[settled.transaction, '5000']]);
    assert.equal(await chainBalance(), before - 5000n);
  });
}

test('a spend limit that is not an amount of USDC is a usage error (exit 2), before anything starts', async () => {
  const run = (args: string[]) =>
    new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(process.execPath, ['cli/paycall.mjs', 'mcp', '--base-url', env.t.baseUrl, ...args], { env: { ...process.env, PAYCALL_DATA_DIR: env.devnet.dataDir } }, (err, _out, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
      ),
    );
  const [fine, chain] = await Promise.all([run(['--max-per-call', '0.0000001']), run(['--chain', 'ethereum'])]);
  assert.equal(fine.code, 2);
  assert.match(fine.stderr, /--max-per-call 0\.0000001: must be an amount of USDC such as 0\.05 \(at most 6 decimals\)/);
  assert.equal(chain.code, 2);
  assert.match(chain.stderr, /--chain ethereum: must be base, polygon or solana/);
});

test('a pdf-md answer and a seller tool\'s answer, each paid by the bridge within its policy (the seller\'s row at the 4 % take)', async () => {
  // A seller with one proxied endpoint at 0.02 USDC a call, its upstream a local echo.
  let forwards = 0;
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.headers['x-paycall-tx'] !== undefined) forwards++;
      const body = Buffer.concat(chunks).toString();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ echo: body ? JSON.parse(body) : null }));
    });
  });
  await new Promise<void>((r) => upstream!.listen(0, '127.0.0.1', r));
  const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const seller = evmSigner();
  assert.equal((await register(env.t.baseUrl, seller, 'geo-shop')).status, 201);
  assert.equal((await publish(env.t.baseUrl, seller, endpointInput(upstreamUrl, 'lookup', { mode: 'proxy', atomic_price: 20_000, sample_body: { q: 'x' } }))).status, 201);
  await eventually('the endpoint active', async () => {
    const meta = (await (await fetch(`${env.t.baseUrl}/v1/_meta`)).json()) as { endpoints: { path: string }[] };
    return meta.endpoints.some((e) => e.path === '/v1/geo-shop/lookup');
  });

  const account = 1; // no other test of this file pays from it
  const key = env.devnet.info.accounts[account].evmPrivateKey;
  const owner = privateKeyToAccount(key as `0x${string}`).address;
  const agent = new Client({ name: 'desktop-agent-md', version: '1.0.0' });
  others.push(agent);
  await agent.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['cli/paycall.mjs', 'mcp', '--base-url', env.t.baseUrl, '--chain', 'base', '--max-per-call', '0.05', '--budget', '0.1', '--allow', 'pdf-md,geo-shop'],
      env: { ...(process.env as Record<string, string>), PAYCALL_DATA_DIR: env.devnet.dataDir, PAYCALL_WALLET_KEY: key, PAYCALL_MAX_PER_CALL: '', PAYCALL_BUDGET: '', PAYCALL_ALLOW: '' },
      stderr: 'ignore',
    }),
  );
  const md = (await agent.callTool({ name: 'pdf-md', arguments: { document: (await makePdf(1, 'bridge-md')).toString('base64') } })) as ToolResult;
  assert.equal(md.isError, undefined, JSON.stringify(md));
  assert.match(JSON.stringify(md.structuredContent), /bridge-md page 1/);
  const tool = (await agent.callTool({ name: 'geo-shop.lookup', arguments: { q: 'Berlin' } })) as ToolResult;
  assert.equal(tool.isError, undefined, JSON.stringify(tool));
  assert.deepEqual(tool.structuredContent, { echo: { q: 'Berlin' } });
  assert.equal(forwards, 1);
  const rows = (await env.sql.query('select endpoint_path, amount, take_bps, fee, net from payment where lower(payer) = lower($1) order by id', [owner])).rows;
  assert.deepEqual(
    rows.map((r) => [r.endpoint_path, r.amount, r.take_bps, r.fee, r.net]),
    [
      ['/v1/pdf-md', '10000', 10_000, '10000', '0'],
      ['/v1/geo-shop/lookup', '20000', 400, '800', '19200'],
    ],
  );
});
