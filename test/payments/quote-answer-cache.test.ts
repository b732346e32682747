/**
 * The unpaid 402 answer is serialized once per (base URL, endpoint, amount, unit price, pages,
 * media type, description, bazaar) and reused (src/payments/paid-call.ts quoteAnswer). A cache
 * there could serve one request another's quote; this attacks it through the real app on
 * PostgreSQL and the devnet: documents of different page counts and different operations get
 * their own amounts and estimatedPages, in the body and in PAYMENT-REQUIRED alike; a repeat gets
 * the same bytes; every quote is still recorded per request fingerprint (a cached answer never
 * skips the quote the payment is judged against), so a paid retry of each is served. Quotes carry
 * no per-request id or expiry (a quote is the row of its request's fingerprint: quote-store.ts),
 * so identical bytes for identical requests are correct.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { makePdf, startPaidTestEnv, xPayment, type PaidTestEnv } from '../helpers/paid.ts';
import { evmTransferUsdc } from '../../devnet/buyer.ts';

let env: PaidTestEnv;
before(async () => {
  env = await startPaidTestEnv('quotecache', { TOOL_WORKERS: '1' });
});
after(async () => {
  await env?.close();
});

interface V1 { accepts: { network: string; scheme: string; maxAmountRequired: string; payTo: string; resource: string; extra: Record<string, unknown> }[] }
interface V2 { resource: { url: string }; accepts: { network: string; scheme: string; amount: string; payTo: string; extra: Record<string, unknown> }[]; extensions?: Record<string, unknown> }

const quote = async (path: string, pdf: Buffer) => {
  const r = await fetch(`${env.t.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: new Uint8Array(pdf) });
  const text = await r.text();
  assert.equal(r.status, 402, text);
  const header = r.headers.get('payment-required');
  assert.ok(header, 'PAYMENT-REQUIRED is present');
  const v2 = JSON.parse(Buffer.from(header, 'base64').toString()) as V2;
  const v1 = JSON.parse(text) as V1;
  // Body and header describe the same offer, entry by entry.
  assert.equal(v1.accepts.length, 6);
  assert.deepEqual(v2.accepts.map((a) => [a.scheme, a.amount, a.payTo]), v1.accepts.map((a) => [a.scheme, a.maxAmountRequired, a.payTo]));
  assert.equal(v2.resource.url, v1.accepts[0].resource);
  return { header, text, v1, v2, amount: BigInt(v1.accepts[0].maxAmountRequired), pages: v1.accepts[0].extra.estimatedPages };
};

test('a cached 402 is the quote of its own request: per pages, per operation, identical only for identical requests', async () => {
  const one = await makePdf(1, 'cache one');
  const three = await makePdf(3, 'cache three');
  const a1 = await quote('/v1/pdf-text', one);
  const a2 = await quote('/v1/pdf-text', one);
  assert.equal(a2.header, a1.header, 'the same request: the same PAYMENT-REQUIRED bytes');
  assert.equal(a2.text, a1.text);

  const b = await quote('/v1/pdf-text', three);
  assert.equal(b.pages, 3);
  assert.equal(a1.pages, 1);
  assert.equal(b.amount, a1.amount * 3n, 'three pages cost three times one page');
  assert.notEqual(b.header, a1.header);
  for (const e of b.v2.accepts.filter((x) => x.extra.estimatedPages !== undefined)) assert.equal(e.extra.estimatedPages, 3);

  // Another operation on the same bytes: its own resource and price, never pdf-text's answer.
  const md = await quote('/v1/pdf-md', one);
  assert.notEqual(md.header, a1.header);
  assert.match(md.v2.resource.url, /\/v1\/pdf-md$/);
  assert.match(a1.v2.resource.url, /\/v1\/pdf-text$/);

  // Every chain of the deployment, in every answer.
  for (const q of [a1, b, md]) assert.deepEqual([...new Set(q.v2.accepts.map((x) => x.network))].sort(), ['eip155:137', 'eip155:8453', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp']);

  // Each request's quote is recorded (the offer a payment is judged against), cached answer or not.
  const { rows } = await env.sql.query<{ resource: string; amount: string; pages: number }>('select resource, amount::text, pages from quote order by resource, pages');
  assert.deepEqual(
    rows.map((r) => [r.resource, r.amount, r.pages]),
    [
      ['/v1/pdf-md', md.amount.toString(), 1],
      ['/v1/pdf-text', a1.amount.toString(), 1],
      ['/v1/pdf-text', b.amount.toString(), 3],
    ],
  );

  // And the quotes pay: the three-page request paid at its own cached quote is served.
  const base = env.devnet.info.chains.base;
  const tx = await evmTransferUsdc({ rpcUrl: base.rpcUrl, chainId: base.chainId, usdc: base.usdc, privateKey: env.devnet.info.accounts[0].evmPrivateKey, to: base.payTo, amount: b.amount });
  const paid = await fetch(`${env.t.baseUrl}/v1/pdf-text`, { method: 'POST', headers: { 'content-type': 'application/pdf', 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) }, body: new Uint8Array(three) });
  const answer = (await paid.json()) as { pages: number };
  assert.equal(paid.status, 200, JSON.stringify(answer));
  assert.equal(answer.pages, 3);
});
