/**
 * The catalog page's pieces without a database: dollars from atomic units (exact, no float),
 * the shell quoting of a seller's sample body in the copy-ready commands, and the page cache
 * (one query per search per TTL, expiry by a clock the test moves, a failed read not kept).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { dollars, usdcText } from '../../src/lib/usdc.ts';
import { shellQuote, snippetsOf } from '../../src/catalog-page/snippets.ts';
import { createCatalogPageHandlers, wantsJson } from '../../src/catalog-page/catalog-page.handlers.ts';
import type { DiscoveryRow } from '../../src/sellers/endpoint-store.ts';
import type { RequestContext } from '../../src/http/server.ts';

test('dollars: atomic USDC as exact dollars, at least two decimals', () => {
  assert.equal(dollars('10000'), '$0.01');
  assert.equal(dollars('5000'), '$0.005');
  assert.equal(dollars('25000'), '$0.025');
  assert.equal(dollars('1'), '$0.000001');
  assert.equal(dollars('1000000'), '$1.00');
  assert.equal(dollars('123456789'), '$123.456789');
  // Past what a float holds exactly: still exact.
  assert.equal(dollars('9007199254740993'), '$9007199254.740993');
  assert.equal(dollars(0n), '$0.00');
  assert.equal(dollars(-5000n), '-$0.005');
});

test('usdcText (the CLI’s amounts): no more decimals than the amount has, exact, signed', () => {
  assert.equal(usdcText(19200), '0.0192 USDC');
  assert.equal(usdcText('1000000'), '1 USDC');
  assert.equal(usdcText(0n), '0 USDC');
  assert.equal(usdcText(9007199254740993n), '9007199254.740993 USDC');
  // A balance left after an overspend reads as a negative amount, not "0.-5".
  assert.equal(usdcText(-5n), '-0.000005 USDC');
});

test('shellQuote: a sample body with quotes and $() stays one inert word in a real shell', () => {
  const nasty = `{"q":"it's $(touch /tmp/pwned) \`id\` ; echo '"}`;
  const echoed = execFileSync('sh', ['-c', `printf %s ${shellQuote(nasty)}`]).toString();
  assert.equal(echoed, nasty);
  const s = snippetsOf({ builtinTool: null, path: '/v1/acme/hello', toolName: 'acme.hello', sampleBody: { q: "it's" } }, 'http://127.0.0.1:4020');
  assert.equal(s.paycall, `paycall call /v1/acme/hello --data '{"q":"it'\\''s"}' --base-url 'http://127.0.0.1:4020'`);
  assert.match(s.curl, /^curl -i -X POST 'http:\/\/127\.0\.0\.1:4020\/v1\/acme\/hello' \\\n  -H 'Content-Type: application\/json' -d '\{"q":"it'\\''s"\}'$/);
  assert.deepEqual(JSON.parse(s.mcp), { mcpServers: { paycall: { command: 'paycall', args: ['mcp', '--base-url', 'http://127.0.0.1:4020', '--allow', 'acme.hello'] } } });
  const b = snippetsOf({ builtinTool: 'pdf-text', path: '/v1/pdf-text', toolName: 'pdf-text' }, 'http://127.0.0.1:4020');
  assert.equal(b.paycall, `paycall call /v1/pdf-text --file doc.pdf --base-url 'http://127.0.0.1:4020'`);
});

test('wantsJson: only a client that names JSON and not HTML', () => {
  assert.equal(wantsJson('application/json'), true);
  assert.equal(wantsJson('application/json, */*;q=0.1'), true);
  assert.equal(wantsJson('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'), false);
  assert.equal(wantsJson('*/*'), false);
  assert.equal(wantsJson(undefined), false);
});

test('the rendered page is reused for its TTL per search, then read again; a failed read is not kept', async () => {
  let clock = 1_000_000;
  const queries: (string | null)[] = [];
  let fail = false;
  const h = createCatalogPageHandlers({
    serviceName: 'paycall',
    publicBaseUrl: () => 'http://127.0.0.1:4020',
    discoveryRows: async (p) => {
      queries.push(p.query);
      if (fail) throw new Error('database down');
      return [{ kind: 'builtin', path: '/v1/pdf-md', endpoint_id: null, slug: null, wallet: null, price: null, unit: null, mode: null, status: null, desc: '', sample_body: null, updated_at_ms: null, rank: 0 } satisfies DiscoveryRow];
    },
    reliability: { byEndpoint: async () => new Map() },
    ttlMs: 5_000,
    now: () => clock,
  });
  const get = async (q?: string) => {
    const r = await h.getCatalogPage!({ req: { headers: {} }, query: q === undefined ? {} : { q }, params: {} } as unknown as RequestContext);
    return r.body as string;
  };
  assert.match(await get(), /pdf-md/);
  await get();
  await get('  ');
  assert.deepEqual(queries, [null], 'one query for the whole catalog (blank q is the whole catalog)');
  await get('pdf');
  assert.deepEqual(queries, [null, 'pdf'], 'a search is a page of its own');
  clock += 4_999;
  await get();
  assert.equal(queries.length, 2, 'still fresh');
  clock += 1;
  await get();
  assert.deepEqual(queries, [null, 'pdf', null], 'expired after the TTL: read again');
  fail = true;
  clock += 5_000;
  await assert.rejects(get(), /database down/);
  fail = false;
  assert.match(await get(), /pdf-md/, 'the failure was not cached');
  assert.equal(queries.length, 5);
});
