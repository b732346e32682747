/**
 * Requests per second of the unpaid 402 path (upload read, PDF inspected, price, quote
 * recorded, six accepts) on one process, beside a bare node:http server answering a fixed
 * 402 JSON of the same size in the same run; then the replay path (a consumed receipt's
 * stored answer). Chains are configured but never called on these paths.
 *   npx tsx bench/quote.ts            (PGlite)   DATABASE_URL=... npx tsx bench/quote.ts
 */
import { createServer } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createApp } from '../src/app.ts';
import { silentLogger } from '../src/log.ts';
import { createReceiptGate } from '../src/payments/receipt-gate.ts';
import { requestFingerprint } from '../src/payments/fingerprint.ts';
import { makePdf, xPayment } from '../test/helpers/paid.ts';
import { runLoad, type LoadResult } from './load.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const evm = (n: number) => ({ rpcUrl: 'http://127.0.0.1:9', chainId: n, usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: '0x5df1e9B7234A47e0B951726CE7cC2Eb20608B9A4' });
const chains = {
  base: evm(8453),
  polygon: { ...evm(137), usdc: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' },
  solana: { rpcUrl: 'http://127.0.0.1:9', usdcMint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', payTo: '8fgDjAuUJxWyZcn59R6Y6wgpaAeYFYteYV7hZSCELRYz' },
  signers: {
    evmRelayerKey: '0x' + '11'.repeat(32),
    evmTreasuryKey: '0x' + '22'.repeat(32),
    solanaFeePayerKey: '4Zr6VQ7c4vWJzkwVZ3m3jN6bHk6vU6Ttv1PSQ3TyZ5XyAe2Lhq8pMvN4UiDtF1s1Zm3c9YqHxMZB5S7dTj6Y2Aa',
    solanaTreasuryKey: '4Zr6VQ7c4vWJzkwVZ3m3jN6bHk6vU6Ttv1PSQ3TyZ5XyAe2Lhq8pMvN4UiDtF1s1Zm3c9YqHxMZB5S7dTj6Y2Aa',
  },
};

const line = (name: string, r: LoadResult) => `${name.padEnd(34)} ${String(r.rps).padStart(7)} req/s   p50 ${r.p50ms} ms   p99 ${r.p99ms} ms${r.unexpected ? `   (${r.unexpected} unexpected statuses!)` : ''}`;

export async function main() {
  const { Keypair } = await import('@solana/web3.js');
  const bs58 = (await import('bs58')).default;
  const key = bs58.encode(Keypair.generate().secretKey);
  chains.signers.solanaFeePayerKey = key;
  chains.signers.solanaTreasuryKey = key;

  const dir = await mkdtemp(join(tmpdir(), 'paycall-bench-'));
  const config = { ...loadConfig({ PORT: '0', METRICS_PORT: '0', LOG_LEVEL: 'silent', RATE_LIMITS: 'off', PGLITE_DIR: join(dir, 'pglite'), DATABASE_URL: process.env.DATABASE_URL ?? '' }), chains };
  const app = await createApp(config, silentLogger);
  const address = await app.listen();
  const url = `http://127.0.0.1:${address.port}/v1/pdf-text`;
  const pdf = await makePdf(3, 'bench');
  const headers = { 'content-type': 'application/pdf' };

  // Baseline: the same 402 answer (body and headers: the v2 PAYMENT-REQUIRED header is as
  // large as the body), precomputed, from a bare node:http server.
  const sample = await fetch(url, { method: 'POST', headers, body: new Uint8Array(pdf) });
  const fixed = Buffer.from(await sample.text());
  const fixedHeaders = Object.fromEntries([...sample.headers].filter(([k]) => !['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(k)));
  const bare = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(402, fixedHeaders).end(fixed));
  });
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
  const bareUrl = `http://127.0.0.1:${(bare.address() as { port: number }).port}/v1/pdf-text`;
  // The baseline of earlier measurements, for comparison only: the body without the v2 header.
  const bodyOnly = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(402, { 'content-type': 'application/json', 'content-length': fixed.length }).end(fixed));
  });
  await new Promise<void>((r) => bodyOnly.listen(0, '127.0.0.1', r));
  const bodyOnlyUrl = `http://127.0.0.1:${(bodyOnly.address() as { port: number }).port}/v1/pdf-text`;

  // A consumed receipt with its stored answer, for the replay path.
  const gate = createReceiptGate(app.orm, { leaseMs: 60_000 });
  const tx = '0x' + 'ab'.repeat(32);
  const fp = requestFingerprint('POST', '/v1/pdf-text', 'application/pdf', pdf);
  await gate.consume(`base:tx:${tx}`, 'base', fp, { network: 'base', tx, payer: '0xbench', amount: 15000n, quotedAmount: 15000n, endpointPath: '/v1/pdf-text', sellerId: null, endpointId: null, takeBps: 10_000 });
  await gate.complete(`base:tx:${tx}`, { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ text: 'bench page 1', pages: 3 })) });

  const spec = { method: 'POST', headers, body: pdf, connections: CONNECTIONS, seconds: SECONDS };
  console.log(`quote bench: ${CONNECTIONS} keep-alive connections, ${ROUNDS} rounds of ${SECONDS} s each (median shown), 3-page PDF (${pdf.length} bytes), database ${config.databaseUrl ? 'PostgreSQL' : 'PGlite'}`);
  await runLoad({ ...spec, url: bareUrl, seconds: 1, expectStatus: 402 }); // warm-up
  await runLoad({ ...spec, url, seconds: 1, expectStatus: 402 });
  // Rounds alternate the three so that a slow patch of the machine hits each alike; the
  // round with the median rate of each is reported.
  const runs: Record<'bodyOnly' | 'baseline' | 'quote' | 'replay', LoadResult[]> = { bodyOnly: [], baseline: [], quote: [], replay: [] };
  for (let round = 0; round < ROUNDS; round++) {
    runs.bodyOnly.push(await runLoad({ ...spec, url: bodyOnlyUrl, expectStatus: 402 }));
    runs.baseline.push(await runLoad({ ...spec, url: bareUrl, expectStatus: 402 }));
    runs.quote.push(await runLoad({ ...spec, url, expectStatus: 402 }));
    runs.replay.push(await runLoad({ ...spec, url, headers: { ...headers, 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) }, expectStatus: 200 }));
  }
  const median = (rs: LoadResult[]) => [...rs].sort((a, b) => a.rps - b.rps)[Math.floor(rs.length / 2)];
  const [bodyOnlyResult, baseline, quote, replay] = [median(runs.bodyOnly), median(runs.baseline), median(runs.quote), median(runs.replay)];
  console.log(line('bare node:http 402, body only', bodyOnlyResult));
  console.log(line('bare node:http fixed 402', baseline));
  console.log(line('paycall unpaid 402 (quote)', quote));
  console.log(line('paycall replay (stored answer)', replay));
  console.log(`ratio quote / bare:  ${(quote.rps / baseline.rps).toFixed(3)}`);
  console.log(`ratio replay / bare: ${(replay.rps / baseline.rps).toFixed(3)}`);
  console.log(`ratio quote / bare 402 without the v2 header (the baseline before it existed): ${(quote.rps / bodyOnlyResult.rps).toFixed(3)}`);

  bare.close();
  bodyOnly.close();
  await app.close();
  await rm(dir, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
