/**
 * The API reference in a real browser: headless Chromium (Debian's `chromium`, driven by
 * playwright-core) opens /docs on the real server and finds the contract's operations
 * listed, while every request to another host is aborted and counted: the page must need
 * none. Saves docs/api-reference.png. Also the plain HTTP side: /openapi.yaml is the
 * contract, the viewer's file is cached for good, the page's CSP allows only this origin.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
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

test('/docs renders every tag and operations in headless Chromium with no request leaving the host', { skip: existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}: install Debian's chromium package (apt-get install -y chromium) to run this test` }, async () => {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    const host = new URL(t.baseUrl).host;
    const offHost: string[] = [];
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.host === host || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
      offHost.push(url.href);
      return route.abort();
    });
    // CSP reports, gathered in the page (an init script runs outside the page's CSP).
    // (Strings: this project's TypeScript has no DOM types, and the page runs them as they are.)
    await page.addInitScript(`window.cspReports = [];
      document.addEventListener('securitypolicyviolation', (e) => window.cspReports.push(e.effectiveDirective + ' ' + e.blockedURI));`);
    await page.goto(`${t.baseUrl}/docs`, { waitUntil: 'networkidle' });
    const spec = parse(readFileSync(contractFile, 'utf8')) as { tags: { name: string }[]; paths: Record<string, Record<string, { summary?: string }>> };
    const summaries = Object.values(spec.paths).flatMap((item) => Object.values(item).map((op) => op.summary).filter((s): s is string => !!s));
    assert.ok(summaries.length > 20);
    // Every tag is open: each operation's summary is listed in the sidebar.
    await page.getByText(summaries[0], { exact: true }).first().waitFor({ timeout: 30_000 });
    for (const summary of summaries) assert.ok(await page.getByText(summary, { exact: true }).count(), `operation "${summary}" is listed`);
    for (const tag of spec.tags) assert.ok(await page.getByText(tag.name, { exact: true }).count(), `tag ${tag.name} is listed`);
    await mkdir(fileURLToPath(new URL('../../docs/', import.meta.url)), { recursive: true });
    await page.screenshot({ path: screenshot });
    assert.deepEqual(offHost, [], 'no request left the host');
    // Everything the page loads or styles stays within the CSP. The viewer's two feature
    // probes are refused and fall back by design: zod tries `Function('')` to choose its
    // JIT, and a scrollbar-width probe sets a style attribute on a throwaway element.
    const reports = (await page.evaluate('window.cspReports')) as string[];
    assert.deepEqual(reports.filter((r) => r !== 'script-src eval' && r !== 'style-src-attr inline'), [], 'the page runs within its CSP');
  } finally {
    await browser.close();
  }
});
