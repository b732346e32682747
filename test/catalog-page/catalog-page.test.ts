/**
 * The catalog page at / on the real app, real PostgreSQL and a real local upstream, with two
 * live seller endpoints (one honest, one whose description and sample body attack the page):
 * - over HTTP: the HTML lists built-ins and seller endpoints with exact prices, the attack is
 *   escaped (inert text), the CSP and the other security headers, the no-JS search (q=), the
 *   JSON pointer for JSON clients, the hashed assets cached for good;
 * - in headless Chromium (Debian's chromium, driven by playwright-core): the page loads with no
 *   console error, no failed request, no CSP report and no request leaving the host; the search
 *   form works without JavaScript; the script filters as one types and its copy button puts
 *   the snippet on the clipboard; the keyboard reaches the search box and the copy buttons;
 *   a 390 px wide phone needs no horizontal scrolling. Saves docs/catalog.png.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { assertMatchesContract } from '../helpers/contract.ts';
import { FAST_LIFECYCLE_ENV, endpointInput, evmSigner, publish, register, startUpstream, type TestUpstream } from '../helpers/sellers.ts';
import { launchChromium, noChromium } from '../helpers/browser.ts';

const screenshot = fileURLToPath(new URL('../../docs/catalog.png', import.meta.url));

/** A seller's description and sample body that try to run script, break out of attributes and of the shell. */
const ATTACK_DESC = `Evil <script>window.pwned=1</script> "double" 'single' & <img src=x onerror="window.pwned=2"> </code></pre><b>`;
const ATTACK_SAMPLE = { q: `'; touch /tmp/pwned; echo '`, html: '</code><script>window.pwned=3</script>' };

let db: TestDatabase;
let t: TestApp;
let up: TestUpstream;
let sql: pg.Client;

before(async () => {
  db = await createTestDatabase('catalog_page');
  up = await startUpstream();
  t = await startTestApp(testConfig({ DATABASE_URL: db.url, ALLOW_LOCAL_UPSTREAMS: '1', PROBE_TIMEOUT_MS: '5000', ...FAST_LIFECYCLE_ENV }));
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  const seller = evmSigner();
  assert.equal((await register(t.baseUrl, seller, 'geo-shop')).status, 201);
  const ids: number[] = [];
  for (const e of [
    endpointInput(up.url, 'geocode', { desc: 'Geocoding: converts street addresses into latitude and longitude.', atomic_price: 2500, sample_body: { address: '1 Main St' } }),
    endpointInput(up.url, 'evil', { desc: ATTACK_DESC, atomic_price: 1_000_001, mode: 'paywall', sample_body: ATTACK_SAMPLE }),
  ]) {
    const r = await publish(t.baseUrl, seller, e);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    ids.push(r.body.id as number);
  }
  const active = async () => (await sql.query(`select count(*)::int as n from seller_endpoint where id = any($1) and status = 'active'`, [ids])).rows[0].n === ids.length;
  for (let i = 0; i < 50 && !(await active()); i++) await t.app.runScheduledJobs();
  assert.ok(await active(), 'both endpoints went live');
});
after(async () => {
  await sql?.end();
  await t?.close();
  await up?.close();
  await db?.drop();
});

const page = async (search = '') => {
  const res = await fetch(`${t.baseUrl}/${search}`, { headers: { accept: 'text/html' } });
  assert.equal(res.status, 200);
  return { res, html: await res.text() };
};
/**
 * Reads every tag of the page (attribute values are double-quoted, escaped text has no `<`):
 * only the page's own elements, no <style>, no <script> with a body, no style or on* attribute.
 */
function assertNoInlineCode(html: string) {
  const rest = html.replace(/<!doctype html>/, '').replace(/<\/[a-z0-9]+>/g, '');
  const tag = /<([a-z0-9]+)((?:\s+[a-z-]+(?:="[^"<]*")?)*)\s*>/g;
  const elements = new Set<string>();
  for (const m of rest.matchAll(tag)) {
    elements.add(m[1]!);
    for (const a of m[2]!.matchAll(/\s([a-z-]+)(?:="[^"]*")?/g)) assert.doesNotMatch(a[1]!, /^(style|on.*)$/, `an inline ${a[1]} attribute on <${m[1]}>`);
  }
  assert.equal(rest.replace(tag, '').includes('<'), false, 'every < opens one of the page\'s own tags');
  assert.deepEqual([...elements].filter((e) => !PAGE_ELEMENTS.includes(e)), [], 'only the page\'s own elements');
  assert.deepEqual([...html.matchAll(/<script([^>]*)>([^<]*)<\/script>/g)].map((m) => m[2]), [''], 'one script, from a file, with no body');
}
const PAGE_ELEMENTS = 'html head meta title link script body a header p nav ul li main h1 h2 h3 h4 code form label div input button section article span dl dt dd strong details summary pre footer'.split(' ');

/** The listed entries' names, in order. */
const names = (html: string) => [...html.matchAll(/<h3 id="e\d+"><code>([^<]+)<\/code>/g)].map((m) => m[1]);

test('GET / lists the built-ins and the live seller endpoints with exact dollar prices and the snippets', async () => {
  const { html } = await page();
  assert.deepEqual(names(html), ['pdf-md', 'pdf-text', 'pdf-json', 'invoice-extract', 'geo-shop.evil', 'geo-shop.geocode']);
  assert.match(html, /<strong>\$0\.005<\/strong> per page/, 'pdf-text at 5000 atomic units');
  assert.match(html, /<strong>\$0\.0025<\/strong> per request/, 'the seller price, exact');
  assert.match(html, /<strong>\$1\.000001<\/strong> per request/, 'a price a float would round');
  assert.match(html, /<dt>Seller<\/dt><dd><code>geo-shop<\/code>/);
  assert.match(html, /<dt>Mode<\/dt><dd>paywall<\/dd>/);
  assert.match(html, /<dt>Reliability<\/dt><dd>[^<]*uptime 100 % \(24 h\)/, 'the probes that activated it count as uptime');
  assert.ok(html.includes(`paycall call /v1/geo-shop/geocode --data &#39;{&quot;address&quot;:&quot;1 Main St&quot;}&#39; --base-url &#39;${t.baseUrl}&#39;`));
  assert.ok(html.includes(`curl -i -X POST &#39;${t.baseUrl}/v1/pdf-md&#39;`));
  assert.ok(html.includes(`&quot;--allow&quot;, &quot;geo-shop.geocode&quot;`), 'the MCP bridge entry for the tool');
  for (const href of ['/docs', '/openapi.yaml', '/discovery/resources', '/.well-known/x402']) assert.ok(html.includes(`href="${href}"`), `links ${href}`);
  assertNoInlineCode(html);
  assert.doesNotMatch(html.replace(new RegExp(t.baseUrl.replace(/[.:/]/g, '\\$&'), 'g'), ''), /https?:\/\//, 'no other host named');
});

test('a seller description and sample body holding markup, quotes and shell are rendered inert', async () => {
  const { html } = await page();
  assert.ok(!html.includes('<script>window.pwned'), 'no script element from a seller');
  assert.ok(!html.includes('<img src=x'), 'no element from a seller');
  assert.ok(!html.includes('</code></pre><b>'), 'no closing tag from a seller');
  assert.ok(html.includes('Evil &lt;script&gt;window.pwned=1&lt;/script&gt; &quot;double&quot; &#39;single&#39; &amp; &lt;img src=x onerror=&quot;window.pwned=2&quot;&gt; &lt;/code&gt;&lt;/pre&gt;&lt;b&gt;'));
  // In the data-search attribute too (lower-cased there): the quotes cannot close it.
  assert.ok(html.includes('data-search="geo-shop.evil /v1/geo-shop/evil evil &lt;script&gt;window.pwned=1&lt;/script&gt; &quot;double&quot; &#39;single&#39;'));
  // The shell line: the single quote in the sample body is closed and escaped ('\''), HTML-escaped on the page.
  assert.ok(html.includes(`--data &#39;{&quot;q&quot;:&quot;&#39;\\&#39;&#39;; touch /tmp/pwned; echo &#39;\\&#39;&#39;&quot;,&quot;html&quot;:&quot;&lt;/code&gt;&lt;script&gt;window.pwned=3&lt;/script&gt;&quot;}&#39;`));
});

test('security headers: a CSP with nothing inline and nothing foreign, nosniff, no referrer, no framing', async () => {
  const { res } = await page();
  assert.equal(
    res.headers.get('content-security-policy'),
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  );
  assert.doesNotMatch(res.headers.get('content-security-policy')!, /unsafe|nonce|\*|https?:/);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  assert.equal(res.headers.get('x-frame-options'), 'DENY');
  assert.match(res.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
  assert.equal(res.headers.get('cache-control'), 'public, max-age=5');
  assert.equal(res.headers.get('vary'), 'Accept');
});

test('q= searches on the server (no JavaScript needed), by full-text with stemming, and escapes the words', async () => {
  assert.deepEqual(names((await page('?q=latitude')).html), ['geo-shop.geocode']);
  assert.deepEqual(names((await page('?q=convert')).html), ['geo-shop.geocode'], '"convert" finds "converts"');
  assert.deepEqual(names((await page('?q=street+addresses')).html), ['geo-shop.geocode'], 'a form-encoded two-word search');
  const pdf = names((await page('?q=markdown')).html);
  assert.equal(pdf[0], 'pdf-md');
  assert.ok(!pdf.includes('geo-shop.geocode'));
  const none = (await page(`?q=${encodeURIComponent('"><script>x</script> nothingmatches')}`)).html;
  assert.deepEqual(names(none), []);
  assert.match(none, /value="&quot;&gt;&lt;script&gt;x&lt;\/script&gt; nothingmatches"/);
  assert.match(none, /Nothing matches/);
  const long = await fetch(`${t.baseUrl}/?q=${'a'.repeat(257)}`);
  assert.equal(long.status, 400);
  await assertMatchesContract('getCatalogPage', 400, await long.json());
});

test('a JSON client gets a pointer to the machine-readable catalog; the assets are hashed and cached for good', async () => {
  const res = await fetch(`${t.baseUrl}/`, { headers: { accept: 'application/json' } });
  assert.equal(res.status, 200);
  const body = (await res.json()) as { catalog: string };
  await assertMatchesContract('getCatalogPage', 200, body);
  assert.equal(body.catalog, '/discovery/resources');
  const { html } = await page();
  const assets = [...html.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  assert.equal(assets.length, 3);
  const types: string[] = [];
  for (const a of assets) {
    assert.match(a, /^\/assets\/(catalog|icon)-[0-9a-f]{12}\.(css|js|svg)$/);
    const r = await fetch(`${t.baseUrl}${a}`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    types.push(r.headers.get('content-type')!.split(';')[0]!);
    assert.ok((await r.arrayBuffer()).byteLength > 100);
  }
  assert.deepEqual(types.sort(), ['image/svg+xml', 'text/css', 'text/javascript']);
  const missing = await fetch(`${t.baseUrl}/assets/catalog-000000000000.css`);
  assert.equal(missing.status, 404);
  await assertMatchesContract('getCatalogAsset', 404, await missing.json());
});

test('in Chromium: listed, searchable with and without JavaScript, copyable, keyboard usable, phone sized; no error, failed request or CSP report', { skip: noChromium }, async () => {
  const browser = await launchChromium();
  const host = new URL(t.baseUrl).host;
  const problems: string[] = [];
  // Every page of this test is watched the same way: any console error, uncaught error, failed
  // or refused request, request to another host or dialog is a problem; so is a CSP report
  // (gathered in the page by an init script, which runs outside the page's CSP).
  const watch = async (context: import('playwright-core').BrowserContext) => {
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.host === host) return route.continue();
      problems.push(`off-host request ${url.href}`);
      return route.abort();
    });
    await context.addInitScript(`window.cspReports = [];
      document.addEventListener('securitypolicyviolation', (e) => window.cspReports.push(e.effectiveDirective + ' ' + e.blockedURI));`);
    context.on('page', (p) => {
      p.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
      p.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      p.on('dialog', (d) => {
        problems.push(`dialog: ${d.message()}`);
        void d.dismiss();
      });
    });
    context.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
    context.on('response', (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()} ${r.url()}`));
  };
  const cspReports = async (p: import('playwright-core').Page) => (await p.evaluate('window.cspReports')) as string[];
  try {
    // Desktop, with JavaScript.
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    await watch(context);
    const p = await context.newPage();
    await p.goto(`${t.baseUrl}/`, { waitUntil: 'networkidle' });
    const visible = () => p.locator('li.entry:visible h3 code').allTextContents();
    assert.deepEqual(await visible(), ['pdf-md', 'pdf-text', 'pdf-json', 'invoice-extract', 'geo-shop.evil', 'geo-shop.geocode']);
    assert.equal(await p.evaluate('window.pwned'), undefined, "the seller's markup did not run");
    assert.equal(await p.getByText(ATTACK_DESC, { exact: true }).count(), 1, 'shown as text');
    assert.equal(await p.locator('main img, main b').count(), 0, "no element from the seller's text");

    // The keyboard: Tab from the top reaches the search box, then (past the search button) the entries.
    const focused = () => p.evaluate(`(() => { const a = document.activeElement; return a ? (a.id || a.className || a.tagName) + '|' + (a.getAttribute('aria-label') || a.textContent.trim().slice(0, 40)) : ''; })()`) as Promise<string>;
    let reached = false;
    for (let i = 0; i < 15 && !reached; i++) {
      await p.keyboard.press('Tab');
      reached = (await focused()).startsWith('q|');
    }
    assert.ok(reached, 'Tab reaches the search box');
    // Typing filters at once (the script), without a request.
    await p.keyboard.type('geocod');
    assert.deepEqual(await visible(), ['geo-shop.geocode']);
    assert.match((await p.locator('#count').textContent()) ?? '', /^1 of 6 listed endpoints match$/);
    // Onward: the Search button, then the entry's "Call it" summary; Enter opens it, Tab reaches its first copy button.
    let summary = false;
    for (let i = 0; i < 10 && !summary; i++) {
      await p.keyboard.press('Tab');
      summary = (await focused()).includes('Call it');
    }
    assert.ok(summary, 'Tab reaches the snippets of the filtered entry');
    await p.keyboard.press('Enter');
    await p.keyboard.press('Tab');
    assert.match(await focused(), /^copy\|Copy the curl snippet for geo-shop\.geocode$/, 'Tab reaches the copy button');
    await p.keyboard.press('Enter');
    const expected = `curl -i -X POST '${t.baseUrl}/v1/geo-shop/geocode' \\\n  -H 'Content-Type: application/json' -d '{"address":"1 Main St"}'`;
    await p.getByRole('button', { name: 'Copy the curl snippet for geo-shop.geocode' }).filter({ hasText: 'Copied' }).waitFor();
    assert.equal(await p.evaluate('navigator.clipboard.readText()'), expected, 'the snippet is on the clipboard');
    // Clearing the box lists everything again.
    await p.locator('#q').fill('');
    assert.equal((await visible()).length, 6);
    assert.deepEqual(await cspReports(p), [], 'the page runs within its CSP');
    // The screenshot: the whole catalog, one entry's snippets open.
    await p.reload({ waitUntil: 'networkidle' });
    await p.locator('li.entry').nth(5).locator('summary').click();
    // The picture in the README shows what a reader would see: the attack entry left out.
    const attack = p.locator('li.entry', { hasText: 'geo-shop.evil' });
    assert.equal(await attack.count(), 1);
    await attack.evaluate((el: { remove(): void }) => el.remove());
    assert.equal(await attack.count(), 0);
    await mkdir(fileURLToPath(new URL('../../docs/', import.meta.url)), { recursive: true });
    await p.screenshot({ path: screenshot, fullPage: true });
    assert.deepEqual(await cspReports(p), []);

    // A phone (390 px): nothing wider than the screen, the search box still there.
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    await watch(phone);
    const m = await phone.newPage();
    await m.goto(`${t.baseUrl}/`, { waitUntil: 'networkidle' });
    await m.locator('li.entry').nth(5).locator('summary').click();
    // (A snippet's code scrolls inside its <pre>, which itself fits.)
    const tooWide = (await m.evaluate(`Array.from(document.querySelectorAll('body *')).filter((e) => !e.closest('pre code') && e.getBoundingClientRect().right > 390).map((e) => e.tagName + '.' + e.className)`)) as string[];
    assert.deepEqual(tooWide, [], 'nothing reaches past a 390 px screen');
    assert.ok((await m.evaluate('document.documentElement.scrollWidth')) as number <= 390, 'no horizontal scrolling on a 390 px screen');
    assert.ok(await m.locator('#q').isVisible());
    assert.deepEqual(await cspReports(m), []);

    // Without JavaScript: the copy buttons stay hidden, the form searches on the server.
    const noJs = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 1000 } });
    await watch(noJs);
    const n = await noJs.newPage();
    await n.goto(`${t.baseUrl}/`, { waitUntil: 'networkidle' });
    assert.equal(await n.locator('button.copy:visible').count(), 0);
    await n.locator('#q').fill('latitude');
    await Promise.all([n.waitForURL(/\?q=latitude$/), n.locator('#q').press('Enter')]);
    assert.deepEqual(await n.locator('li.entry h3 code').allTextContents(), ['geo-shop.geocode']);
    assert.match((await n.locator('#count').textContent()) ?? '', /^1 endpoint matching “latitude”$/);

    assert.deepEqual(problems, [], 'no console error, failed request, off-host request or dialog');
  } finally {
    await browser.close();
  }
});
