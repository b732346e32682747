/**
 * The API reference in a real browser: headless Chromium (Debian's `chromium`, driven by
 * playwright-core) opens /docs on the real server and finds the contract's operations
 * listed, while every request to another host is aborted and counted: the page must need
 * none. It must load and click through with no console error, failed request or CSP report,
 * each request sample naming the payment header once. Saves docs/api-reference.png. Also the
 * plain HTTP side: /openapi.yaml is the contract, the viewer's file is cached for good, the
 * page's CSP allows only this origin.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';
import { launchChromium, noChromium } from '../helpers/browser.ts';

const contractFile = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));
const screenshot = fileURLToPath(new URL('../../docs/api-reference.png', import.meta.url));

let db: TestDatabase;
let t: TestApp;

before(async () => {
  db = await createTestDatabase('docs_page');
  t = await startTestApp(testConfig({ DATABASE_URL: db.url, SCHEDULER_TICK_MS: '0' }));
});
after(async () => {
  await t?.close();
  await db?.drop();
});

test('GET /openapi.yaml serves the contract as application/yaml', async () => {
  const res = await fetch(`${t.baseUrl}/openapi.yaml`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/yaml/);
  assert.equal(await res.text(), readFileSync(contractFile, 'utf8'));
});

test('GET /docs links the viewer from this origin under a self-only CSP; the file is cached for good', async () => {
  const res = await fetch(`${t.baseUrl}/docs`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.doesNotMatch(csp, /https?:|\*|unsafe-/);
  const html = await res.text();
  const src = /<script src="([^"]+)"/.exec(html)?.[1];
  assert.match(src ?? '', /^\/docs\/assets\/scalar-api-reference-\d+\.\d+\.\d+\.js$/);
  assert.doesNotMatch(html, /https?:\/\//, 'the page names no other host');
  const asset = await fetch(`${t.baseUrl}${src}`);
  assert.equal(asset.status, 200);
  assert.match(asset.headers.get('content-type') ?? '', /^text\/javascript/);
  assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.ok((await asset.arrayBuffer()).byteLength > 100_000);
  const missing = await fetch(`${t.baseUrl}/docs/assets/scalar-api-reference-0.0.1.js`);
  assert.equal(missing.status, 404);
  assert.equal(((await missing.json()) as { error: string }).error, 'asset_not_found');
});

test('/docs renders every tag and operations in headless Chromium with no request leaving the host, no error, no failed request and no CSP report', { skip: noChromium }, async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    const host = new URL(t.baseUrl).host;
    const problems: string[] = [];
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.host === host || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
      problems.push(`off-host request ${url.href}`);
      return route.abort();
    });
    // Any console error fails the test: among them the browser's own "Failed to load resource"
    // for requests the page API does not show (the icon a page without one is asked for).
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
    page.on('response', (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()} ${r.url()}`));
    // CSP reports, gathered in the page (an init script runs outside the page's CSP).
    // (Strings: this project's TypeScript has no DOM types, and the page runs them as they are.)
    await page.addInitScript(`window.cspReports = [];
      document.addEventListener('securitypolicyviolation', (e) => window.cspReports.push(e.effectiveDirective + ' ' + e.blockedURI + ' ' + e.sourceFile + ':' + e.lineNumber));`);
    await page.goto(`${t.baseUrl}/docs`, { waitUntil: 'networkidle' });
    const spec = parse(readFileSync(contractFile, 'utf8')) as { tags: { name: string }[]; paths: Record<string, Record<string, { summary?: string; security?: Record<string, unknown>[] }>> };
    const ops = Object.values(spec.paths).flatMap((item) => Object.values(item).filter((op) => typeof op === 'object' && op !== null && 'summary' in op));
    const summaries = ops.map((op) => op.summary).filter((s): s is string => !!s);
    assert.ok(summaries.length > 20);
    // Every tag is open: each operation's summary is listed in the sidebar.
    await page.getByText(summaries[0], { exact: true }).first().waitFor({ timeout: 30_000 });
    for (const summary of summaries) assert.ok(await page.getByText(summary, { exact: true }).count(), `operation "${summary}" is listed`);
    for (const tag of spec.tags) assert.ok(await page.getByText(tag.name, { exact: true }).count(), `tag ${tag.name} is listed`);
    await mkdir(fileURLToPath(new URL('../../docs/', import.meta.url)), { recursive: true });
    await page.screenshot({ path: screenshot });

    // The signature actions are a list, not a table whose narrow cells broke words ("actio n").
    const actions = page.locator('li', { hasText: 'read_account' }).filter({ hasText: 'signed by' });
    assert.equal(await actions.count(), 1, 'read_account is an item of the signature list');
    assert.equal(await page.locator('table', { hasText: 'payloadHash' }).count(), 0);

    // Clicking through operations: each request sample carries the payment header once, with
    // the example receipt, and names it only where the operation is paid.
    const paid = new Set(ops.filter((op) => (op.security ?? []).some((s) => 'xPayment' in s)).map((op) => op.summary));
    assert.equal(paid.size, 5);
    for (const summary of ['Extract the plain text of a PDF', 'Convert a PDF to Markdown', 'Call an endpoint published by a seller', 'Live catalog', 'Issue an API key', 'Catalog page']) {
      await page.getByText(summary, { exact: true }).first().click();
      const slug = (await page.evaluate('location.hash')) as string;
      const sample = page.locator('.request-card, [class*="request-card"]').filter({ hasText: /curl/ }).filter({ hasText: slug.split('/').slice(2).join('/') }).first();
      await sample.waitFor();
      const text = await sample.innerText();
      const headers = text.match(/x-payment|x-session-token|payment-signature/gi) ?? [];
      if (paid.has(summary)) {
        assert.deepEqual(headers, ['X-Payment'], `${summary}: one payment header in the sample:\n${text}`);
        assert.match(text, /X-Payment: eyJ4NDAy/);
      } else assert.deepEqual(headers, [], `${summary}: no payment header in the sample`);
      assert.doesNotMatch(text, /YOUR_SECRET_TOKEN/);
    }
    await page.reload({ waitUntil: 'networkidle' });
    await page.getByText(summaries[0], { exact: true }).first().waitFor({ timeout: 30_000 });

    // The browser asks for /favicon.ico (a 404 here) when a page names no icon; it does not
    // while requests are routed, so check that the page names one, which needs no request.
    assert.match((await page.locator('link[rel=icon]').getAttribute('href')) ?? '', /^data:image\/svg\+xml,/, 'the page names its icon');

    assert.deepEqual(problems, [], 'no console error, failed request, error status or off-host request');
    // Everything the page loads, styles or runs stays within the CSP (no exception: the viewer's
    // eval probe and style attributes are handled before it runs, docs.handlers.ts).
    assert.deepEqual(await page.evaluate('window.cspReports'), [], 'the page runs within its CSP');
  } finally {
    await browser.close();
  }
});
