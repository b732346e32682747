/**
 * The unpaid quote over MCP beside the same quote over HTTP, in one run on one process: a
 * tools/call of pdf-text without payment (JSON-RPC in, the x402 PaymentRequired tool result
 * out; a fresh SDK server and transport per request, the stateless pattern) against
 * POST /v1/pdf-text answering 402 for the same 3-page PDF; then tools/list (built-ins plus
 * one page of seller endpoints from PostgreSQL). The ratio is MCP quote / HTTP quote.
 *   npx tsx bench/mcp.ts            (PGlite)   DATABASE_URL=... npx tsx bench/mcp.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createApp } from '../src/app.ts';
import { silentLogger } from '../src/log.ts';
import { makePdf } from '../test/helpers/paid.ts';
import { runLoad, type LoadResult } from './load.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const evm = (n: number) => ({ rpcUrl: 'http://127.0.0.1:9', chainId: n, usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: '0x5df1e9B7234A47e0B951726CE7cC2Eb20608B9A4' });

const line = (name: string, r: LoadResult) => `${name.padEnd(34)} ${String(r.rps).padStart(7)} req/s   p50 ${r.p50ms} ms   p99 ${r.p99ms} ms${r.unexpected ? `   (${r.unexpected} unexpected statuses!)` : ''}`;

export async function main() {
  const { Keypair } = await import('@solana/web3.js');
  const bs58 = (await import('bs58')).default;
  const key = bs58.encode(Keypair.generate().secretKey);
  // Chains are configured (quotes need them) but never called on these paths.
  const chains = {
    base: evm(8453),
    polygon: { ...evm(137), usdc: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' },
    solana: { rpcUrl: 'http://127.0.0.1:9', usdcMint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', payTo: '8fgDjAuUJxWyZcn59R6Y6wgpaAeYFYteYV7hZSCELRYz' },
    signers: { evmRelayerKey: '0x' + '11'.repeat(32), evmTreasuryKey: '0x' + '22'.repeat(32), solanaFeePayerKey: key, solanaTreasuryKey: key },
  };
  const dir = await mkdtemp(join(tmpdir(), 'paycall-bench-'));
  const config = { ...loadConfig({ PORT: '0', METRICS_PORT: '0', LOG_LEVEL: 'silent', RATE_LIMITS: 'off', PGLITE_DIR: join(dir, 'pglite'), DATABASE_URL: process.env.DATABASE_URL ?? '' }), chains };
  const app = await createApp(config, silentLogger);
  const address = await app.listen();
  const base = `http://127.0.0.1:${address.port}`;
  const pdf = await makePdf(3, 'bench');

  const http = { url: `${base}/v1/pdf-text`, method: 'POST', headers: { 'content-type': 'application/pdf' }, body: pdf, connections: CONNECTIONS, seconds: SECONDS, expectStatus: 402 };
  const rpc = (message: object) => ({
    url: `${base}/mcp`,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, ...message })),
    connections: CONNECTIONS,
    seconds: SECONDS,
    expectStatus: 200,
  });
  const mcpQuote = rpc({ method: 'tools/call', params: { name: 'pdf-text', arguments: { document: pdf.toString('base64') } } });
  const mcpList = rpc({ method: 'tools/list', params: {} });
  const check = (await (await fetch(mcpQuote.url, { method: 'POST', headers: mcpQuote.headers, body: new Uint8Array(mcpQuote.body) })).json()) as { result?: { isError?: boolean; structuredContent?: { x402Version?: number } } };
  if (check.result?.structuredContent?.x402Version !== 2) throw new Error(`the MCP quote is not a PaymentRequired: ${JSON.stringify(check)}`);

  console.log(`mcp bench: ${CONNECTIONS} keep-alive connections, ${ROUNDS} rounds of ${SECONDS} s each (median shown), 3-page PDF (${pdf.length} bytes), database ${config.databaseUrl ? 'PostgreSQL' : 'PGlite'}`);
  await runLoad({ ...http, seconds: 1 }); // warm-up
  await runLoad({ ...mcpQuote, seconds: 1 });
  const runs: Record<'http' | 'mcp' | 'list', LoadResult[]> = { http: [], mcp: [], list: [] };
  for (let round = 0; round < ROUNDS; round++) {
    runs.http.push(await runLoad(http));
    runs.mcp.push(await runLoad(mcpQuote));
    runs.list.push(await runLoad(mcpList));
  }
  const median = (rs: LoadResult[]) => [...rs].sort((a, b) => a.rps - b.rps)[Math.floor(rs.length / 2)];
  const [h, m, l] = [median(runs.http), median(runs.mcp), median(runs.list)];
  console.log(line('HTTP unpaid 402 (quote)', h));
  console.log(line('MCP unpaid tools/call (quote)', m));
  console.log(line('MCP tools/list', l));
  console.log(`ratio MCP quote / HTTP quote: ${(m.rps / h.rps).toFixed(3)}`);
  await app.close();
  await rm(dir, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
