/**
 * pdf-md's options through the real paid HTTP API (devnet chains, real PostgreSQL, the tool
 * pool's workers): `page_anchors` chooses how the Markdown marks page starts, the price does
 * not depend on it, and a receipt bought for one form does not buy the other.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { assertMatchesContract } from '../helpers/contract.ts';
import { makePdf, startPaidTestEnv, xPayment, type PaidTestEnv } from '../helpers/paid.ts';
import { evmTransferUsdc } from '../../devnet/buyer.ts';

let env: PaidTestEnv;

before(async () => {
  env = await startPaidTestEnv('mdhttp', { TOOL_WORKERS: '1' });
});
after(() => env?.close());

const pay = (amount: bigint) => {
  const c = env.devnet.info.chains.base;
  return evmTransferUsdc({ rpcUrl: c.rpcUrl, chainId: c.chainId, usdc: c.usdc, privateKey: env.devnet.info.accounts[0].evmPrivateKey, to: c.payTo, amount });
};

async function pdfMd(pdf: Buffer, query: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${env.t.baseUrl}/v1/pdf-md${query}`, { method: 'POST', headers: { 'content-type': 'application/pdf', ...headers }, body: new Uint8Array(pdf) });
  const body = (await res.json()) as any;
  await assertMatchesContract('pdfMd', res.status, body);
  return { status: res.status, body };
}

test('page_anchors: comment by default, none on request, the same price; a bad value is a 400 before any quote', async () => {
  const pdf = await makePdf(3, 'anchors');
  const quoteDefault = await pdfMd(pdf, '');
  const quoteNone = await pdfMd(pdf, '?page_anchors=none');
  assert.equal(quoteDefault.status, 402);
  assert.equal(quoteNone.status, 402);
  assert.equal(quoteNone.body.accepts[0].maxAmountRequired, '30000', 'three pages at 10000');
  assert.equal(quoteNone.body.accepts[0].maxAmountRequired, quoteDefault.body.accepts[0].maxAmountRequired);

  const bad = await pdfMd(pdf, '?page_anchors=footnote');
  assert.equal(bad.status, 400);
  assert.match(JSON.stringify(bad.body), /page_anchors/);

  const withAnchors = await pdfMd(pdf, '', { 'x-payment': xPayment('base', 'exact', { tx_hash: await pay(30_000n) }) });
  assert.equal(withAnchors.status, 200, JSON.stringify(withAnchors.body));
  assert.deepEqual([...withAnchors.body.markdown.matchAll(/<!-- page (\d+) -->/g)].map((m: RegExpMatchArray) => Number(m[1])), [1, 2, 3]);
  assert.equal(withAnchors.body.pages, 3);
  assert.equal(withAnchors.body.page_count, withAnchors.body.pages, 'the deprecated field still repeats pages');

  const explicit = await pdfMd(pdf, '?page_anchors=comment', { 'x-payment': xPayment('base', 'exact', { tx_hash: await pay(30_000n) }) });
  assert.equal(explicit.status, 200);
  assert.equal(explicit.body.markdown, withAnchors.body.markdown, 'comment is the default form');

  const tx = await pay(30_000n);
  const without = await pdfMd(pdf, '?page_anchors=none', { 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) });
  assert.equal(without.status, 200, JSON.stringify(without.body));
  assert.doesNotMatch(without.body.markdown, /<!--/);
  for (const n of [1, 2, 3]) assert.match(without.body.markdown, new RegExp(`anchors page ${n}`), 'the text is all there');

  // The same receipt replayed for the same request answers the stored result...
  const replay = await pdfMd(pdf, '?page_anchors=none', { 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) });
  assert.equal(replay.status, 200);
  assert.equal(replay.body.markdown, without.body.markdown);
  // ...but it did not buy the other form: that is another request, and the receipt is spent.
  const other = await pdfMd(pdf, '', { 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) });
  assert.equal(other.status, 409, JSON.stringify(other.body));
  const rows = (await env.sql.query('select count(*)::int as n from payment where lower(tx) = lower($1)', [tx])).rows;
  assert.equal(rows[0].n, 1, 'one ledger row for the receipt');
});
