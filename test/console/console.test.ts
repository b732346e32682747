/**
 * The seller console in a real browser: headless Chromium (Debian's `chromium`, driven by
 * playwright-core) opens /console on the real service backed by the devnet. The wallet is an
 * EIP-1193 provider injected into the page (window.ethereum), backed by a viem local account
 * that signs whatever the page asks: the page signs the same EIP-712 SellerActions as every
 * other client. Through the page the seller connects, registers a slug paid on polygon, sees a
 * broken upstream refused with the probe's reason, publishes an endpoint against a real local
 * upstream and sees it go active, changes its price, deletes another, issues and revokes a key;
 * a test buyer pays a call on the devnet, and a second one the upstream fails (undelivered); the
 * page shows the earning (figures and charts, the failure in the health chart), and a
 * requested payout confirmed on the devnet (USDC read back from the chain).
 *
 * The test fails on any console error, failed request, response >= 400 other than the two the
 * test provokes on purpose (the listing of a wallet that is not a seller yet, the broken
 * upstream), any CSP violation, and any request to another host. Saves docs/console.png.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Page } from 'playwright-core';
import { startPaidTestEnv, sessionToken, type PaidTestEnv } from '../helpers/paid.ts';
import { FAST_LIFECYCLE_ENV, startUpstream, type TestUpstream } from '../helpers/sellers.ts';
import { usdcOn } from '../helpers/settlement.ts';
import { signEip3009Authorization } from '../../sdk/wallet.ts';
import { CONSOLE_CONTENT_SECURITY_POLICY } from '../../src/console/console.handlers.ts';
import { launchChromium, noChromium } from '../helpers/browser.ts';

const screenshot = fileURLToPath(new URL('../../docs/console.png', import.meta.url));
const SLUG = 'console-shop';

let env: PaidTestEnv;
let upstream: TestUpstream;

before(async () => {
  upstream = await startUpstream();
  env = await startPaidTestEnv('console_page', { ...FAST_LIFECYCLE_ENV, ALLOW_LOCAL_UPSTREAMS: '1', PAYOUT_POLL_MS: '50', PAYOUT_RETRY_BASE_MS: '200', UPSTREAM_RETRY_WINDOW_MS: '500', UPSTREAM_RETRY_BASE_MS: '50' });
});
after(async () => {
  await env?.close();
  await upstream?.close();
});

test('GET /console: a self-only CSP with nothing inline, nosniff, no-referrer; its files from this origin; unknown files 404', async () => {
  const t = env.t;
  const res = await fetch(`${t.baseUrl}/console`);
  assert.equal(res.status, 200);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.equal(csp, CONSOLE_CONTENT_SECURITY_POLICY);
  for (const d of ["script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]) assert.ok(csp.split('; ').includes(d), d);
  assert.doesNotMatch(csp, /unsafe-|nonce-|https?:|\*/);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  const html = await res.text();
  assert.doesNotMatch(html, /<script>|<script(?![^>]*\bsrc=)|<style|\sstyle=|\son[a-z]+=/i, 'no inline script, style or handler');
  assert.doesNotMatch(html, /https?:\/\//, 'the page names no other host');
  for (const [name, type] of [['console.js', /^text\/javascript/], ['api.js', /^text\/javascript/], ['keccak.js', /^text\/javascript/], ['chart.js', /^text\/javascript/], ['console.css', /^text\/css/], ['favicon.svg', /^image\/svg\+xml/]] as const) {
    const a = await fetch(`${t.baseUrl}/console/assets/${name}`);
    assert.equal(a.status, 200, name);
    assert.match(a.headers.get('content-type') ?? '', type);
    assert.equal(a.headers.get('x-content-type-options'), 'nosniff');
    assert.doesNotMatch(await a.text(), /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/, `${name} builds no markup from text`);
  }
  for (const bad of ['nope.js', '..%2Fconsole.handlers.ts', 'console.handlers.ts']) {
    const r = await fetch(`${t.baseUrl}/console/assets/${bad}`);
    assert.equal(r.status, 404, bad);
    assert.equal(((await r.json()) as { error: string }).error, 'asset_not_found');
  }
});

/** What the page shows, for a failure message. */
let diagnose: () => Promise<string> = async () => '';

/** Polls `probe` (running the scheduler first when `pump`) until it holds. */
async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, opts: { pump?: boolean; limitMs?: number } = {}): Promise<T> {
  const end = Date.now() + (opts.limitMs ?? 90_000);
  for (;;) {
    if (opts.pump) await env.t.app.runScheduledJobs();
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`never happened: ${what} (the page says: ${await diagnose().catch(() => '?')})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const text = (page: Page, selector: string) => page.locator(selector).first().textContent({ timeout: 1000 }).catch(() => null);
const statusText = (page: Page) => text(page, '#status');
/** Atomic USDC as decimal text, independently of the page's formatUsdc. */
const usdc = (atomic: bigint) => `${atomic / 1_000_000n}.${(atomic % 1_000_000n).toString().padStart(6, '0')}`.replace(/\.?0+$/, '');
const rowOf = (page: Page, table: string, contains: string) => page.locator(`${table} tbody tr`, { hasText: contains });

test('the console in Chromium: connect, register, publish, active, price, delete, a paid call in the chart, keys, a payout confirmed on the devnet', { timeout: 600_000, skip: noChromium }, async () => {
  const { t, devnet, sql } = env;
  const account = privateKeyToAccount(generatePrivateKey());
  const wallet = account.address;
  const host = new URL(t.baseUrl).host;

  // What the page may get wrong, gathered as it runs.
  const problems: string[] = [];
  const offHost: string[] = [];
  /** The failures this test provokes on purpose, each allowed once. */
  const provoked = [
    { method: 'GET', path: `/v1/_seller/${wallet}/endpoints`, status: 404, seen: false },
    { method: 'POST', path: `/v1/_seller/${wallet}/endpoints`, status: 400, seen: false },
  ];
  const isProvoked = (method: string, url: string, status: number) => {
    const p = provoked.find((x) => !x.seen && x.method === method && new URL(url).pathname === x.path && x.status === status);
    if (p) p.seen = true;
    return !!p;
  };
  /** What the wallet was asked: method and, for signatures, the action. */
  const walletLog: string[] = [];

  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    diagnose = async () => `status "${await statusText(page)}", earned "${await text(page, '#earned')}", problems ${JSON.stringify(problems)}`;
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.host === host) return route.continue();
      offHost.push(url.href);
      return route.abort();
    });
    const allowedConsole: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() !== 'error') return;
      // Chromium logs every answer >= 400 as "Failed to load resource"; the provoked ones are expected.
      if (/^Failed to load resource: the server responded with a status of (400|404)/.test(msg.text()) && allowedConsole.includes(msg.location().url)) return;
      problems.push(`console: ${msg.text()} (${msg.location().url})`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => {
      if (new URL(r.url()).host === host) problems.push(`request failed: ${r.method()} ${r.url()} ${r.failure()?.errorText}`);
    });
    page.on('response', (r) => {
      if (r.status() < 400) return;
      if (isProvoked(r.request().method(), r.url(), r.status())) allowedConsole.push(r.url());
      else problems.push(`answer ${r.status()}: ${r.request().method()} ${r.url()}`);
    });

    // The wallet: an EIP-1193 provider whose requests run here, in Node, on a viem local account.
    await page.exposeFunction('__walletRequest', async (method: string, params: unknown[]) => {
      switch (method) {
        case 'eth_requestAccounts':
        case 'eth_accounts':
          walletLog.push(method);
          return [wallet];
        case 'eth_chainId':
          return '0x2105';
        case 'personal_sign':
          walletLog.push(method);
          return account.signMessage({ message: { raw: params[0] as `0x${string}` } });
        case 'eth_signTypedData_v4': {
          const [from, json] = params as [string, string];
          assert.equal(from.toLowerCase(), wallet.toLowerCase(), 'the page asks the connected wallet');
          const typed = JSON.parse(json);
          const { EIP712Domain: _domain, ...types } = typed.types; // eslint-disable-line @typescript-eslint/no-unused-vars
          walletLog.push(`sign ${typed.message.action}`);
          assert.deepEqual(typed.domain, { name: 'paycall', version: '1', chainId: 8453 });
          return account.signTypedData({ domain: typed.domain, types, primaryType: typed.primaryType, message: typed.message });
        }
        default:
          throw Object.assign(new Error(`unsupported method ${method}`), { code: 4200 });
      }
    });
    // Init scripts run outside the page's CSP; the page itself loads only its own files.
    await page.addInitScript(`window.cspReports = [];
      document.addEventListener('securitypolicyviolation', (e) => window.cspReports.push(e.effectiveDirective + ' ' + e.blockedURI));
      window.ethereum = { isTest: true, request: ({ method, params }) => window.__walletRequest(method, params || []), on() {}, removeListener() {} };`);

    await page.goto(`${t.baseUrl}/console`, { waitUntil: 'networkidle' });
    assert.match((await page.title()) ?? '', /paycall seller console/);
    assert.match((await text(page, 'header .note')) ?? '', /Solana wallets are not supported/);

    // Connect: not a seller yet (the provoked 404), so the registration form shows.
    await page.click('#connect');
    await until('the registration form', async () => page.locator('#register-section').isVisible());
    assert.equal(await text(page, '#wallet'), wallet);
    assert.match((await statusText(page)) ?? '', /not a seller yet/);

    // Register, paid on polygon.
    const chains = await page.locator('#register-form select[name=payout_chain] option').allTextContents();
    assert.deepEqual(chains.slice(0, 2), ['base', 'polygon']);
    assert.ok(!chains.includes('solana'), 'EVM payout chains only');
    await page.fill('#register-form input[name=slug]', SLUG);
    await page.selectOption('#register-form select[name=payout_chain]', 'polygon');
    await page.click('#register-form button[type=submit]');
    await until('the account after registration', async () => (await text(page, '#slug')) === SLUG && (await text(page, '#payout-chain')) === 'polygon');
    assert.equal(await text(page, '#earned'), '0');
    const seller = (await sql.query('select id, payout_chain from seller where wallet_key = $1', [wallet.toLowerCase()])).rows[0];
    assert.equal(seller.payout_chain, 'polygon');

    // A broken upstream: the API's probe refuses it and the page says why (the provoked 400).
    upstream.rules.set('/broken', 'not-found');
    const publish = async (suffix: string, price: string) => {
      await page.fill('#publish-form input[name=path_suffix]', suffix);
      await page.fill('#publish-form input[name=upstream_url]', `${upstream.url}/${suffix}`);
      await page.fill('#publish-form input[name=price]', price);
      await page.fill('#publish-form input[name=desc]', `The ${suffix} endpoint`);
      await page.click('#publish-form button[type=submit]');
    };
    await publish('broken', '0.02');
    const refused = await until('the probe refusal', async () => ((await statusText(page)) ?? '').includes('upstream_unreachable') && statusText(page));
    assert.match(refused as string, /404/);

    // A working upstream: accepted pending with the probe's result, then active after the regional probes.
    await publish('echo', '0.02');
    const published = await until('published', async () => ((await statusText(page)) ?? '').startsWith('Published') && statusText(page));
    assert.match(published as string, new RegExp(`Published /v1/${SLUG}/echo: pending, probe ok · 200`));
    const echoRow = rowOf(page, '#endpoints', `/v1/${SLUG}/echo`);
    await until('the endpoint active on the page', async () => (await echoRow.locator('td').nth(3).textContent()) === 'active', { pump: true });
    assert.match((await echoRow.locator('td').nth(4).textContent()) ?? '', /^ok · 200 · \d+ ms/);

    // Change its price to 0.03 USDC (the signature covers the endpoint as it will be).
    await echoRow.locator('input').fill('0.03');
    await echoRow.getByRole('button', { name: 'Set price' }).click();
    await until('the new price', async () => (await echoRow.locator('td').nth(1).textContent()) === '0.03');
    assert.equal((await sql.query(`select atomic_price::text as p from seller_endpoint where slug = $1 and path_suffix = 'echo'`, [SLUG])).rows[0].p, '30000');

    // Publish another and delete it (the button asks once more).
    await publish('tmp', '1');
    const tmpRow = rowOf(page, '#endpoints', `/v1/${SLUG}/tmp`);
    await until('tmp listed', async () => (await tmpRow.count()) === 1);
    await tmpRow.getByRole('button', { name: 'Delete' }).click();
    await tmpRow.getByRole('button', { name: 'Confirm delete' }).click();
    await until('tmp gone', async () => (await tmpRow.count()) === 0);

    // A test buyer pays a call on base: the quote, then an EIP-3009 authorization of the quoted 30000.
    const url = `${t.baseUrl}/v1/${SLUG}/echo`;
    const quote = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"q":1}' });
    assert.equal(quote.status, 402);
    const base = devnet.info.chains.base;
    const auth = await signEip3009Authorization({ chainId: base.chainId, usdc: base.usdc, privateKey: devnet.info.accounts[0].evmPrivateKey, to: base.payTo, value: 30_000n });
    const paid = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-session-token': sessionToken('base', auth) }, body: '{"q":1}' });
    assert.equal(paid.status, 200, await paid.clone().text());
    assert.deepEqual(await paid.json(), { ok: true, path: '/echo' });
    // A second paid call the upstream fails (503): undelivered, the seller earns nothing for it,
    // and the endpoint's error is counted for the health chart.
    upstream.rules.set('/echo', 'fail');
    const auth2 = await signEip3009Authorization({ chainId: base.chainId, usdc: base.usdc, privateKey: devnet.info.accounts[0].evmPrivateKey, to: base.payTo, value: 30_000n });
    const failed = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-session-token': sessionToken('base', auth2) }, body: '{"q":2}' });
    assert.equal(failed.status, 502, await failed.clone().text());
    upstream.rules.delete('/echo');

    // The page shows the earning exactly: the ledger's net of the 30000 paid (after the take).
    const rows = (await sql.query(`select net::text as net, delivery from payment where seller_id = $1 order by id`, [seller.id])).rows;
    assert.deepEqual(rows.map((r) => r.delivery), ['delivered', 'undelivered']);
    const row = rows[0];
    const earned = usdc(BigInt(row.net));
    assert.ok(BigInt(row.net) > 0n && BigInt(row.net) < 30_000n);
    await page.click('#refresh');
    // Every read of the refresh done (the status says so last), the failure's error counted.
    await until('the earning and the failure on the page', async () => {
      if ((await statusText(page)) !== 'Up to date.') return false;
      const done = (await text(page, '#earned')) === earned && (await text(page, '#withdrawable')) === earned && (await page.locator('#chart-errors rect.series-0').count()) > 0;
      if (!done) await page.click('#refresh');
      return done;
    });
    const earningBars = await page.locator('#chart-earnings rect.series-0 title').allTextContents();
    assert.ok(earningBars.some((b) => b.endsWith(`net earned: ${earned}`)), earningBars.join(' | '));
    const callBars = await page.locator('#chart-calls rect title').allTextContents();
    assert.ok(callBars.some((b) => b.endsWith('calls: 2')) && callBars.some((b) => b.endsWith('undelivered: 1')), callBars.join(' | '));
    const errorBars = await page.locator('#chart-errors rect.series-0 title').allTextContents();
    assert.ok(errorBars.some((b) => /errors: [1-9]\d*$/.test(b)), errorBars.join(' | '));

    // Keys: issue one (its secret shown once), see its prefix, revoke it.
    await page.fill('#issue-form input[name=label]', 'reporting bot');
    await page.check('#issue-form input[value="balance:read"]');
    await page.click('#issue-form button[type=submit]');
    const secret = await until('the new key', async () => {
      const s = await text(page, '#new-key');
      return s && /^pc_live_/.test(s) && s;
    });
    const keyRow = rowOf(page, '#keys', 'reporting bot');
    await until('the key listed', async () => (await keyRow.count()) === 1);
    assert.equal(await keyRow.locator('td').nth(1).textContent(), (secret as string).slice(0, 12));
    assert.equal(await keyRow.locator('td').nth(3).textContent(), 'read, balance:read');
    await keyRow.getByRole('button', { name: 'Revoke' }).click();
    await keyRow.getByRole('button', { name: 'Confirm revoke' }).click();
    await until('the key revoked', async () => ((await keyRow.locator('td').nth(4).textContent()) ?? '').startsWith('revoked'));
    assert.equal(await page.locator('#new-key').isVisible(), false, 'a revoked key is no longer shown');
    assert.ok((await sql.query('select revoked_at from api_key where label = $1', ['reporting bot'])).rows[0].revoked_at);

    // A payout: requested on the page, sent and confirmed on polygon, seen on the page.
    await page.click('#payout');
    const requested = await until('the payout requested', async () => ((await statusText(page)) ?? '').startsWith('Payout') && statusText(page));
    assert.equal((requested as string).replace(/^Payout \d+ /, ''), `of ${earned} USDC on polygon: pending.`);
    await until('the payout confirmed', async () => (await sql.query(`select status from payout where seller_id = $1`, [seller.id])).rows[0]?.status === 'sent', { pump: true });
    await page.click('#refresh');
    const payoutRow = page.locator('#payouts tbody tr').first();
    await until('the payout sent on the page', async () => (await payoutRow.locator('td').nth(3).textContent()) === 'sent');
    assert.match((await payoutRow.locator('td').nth(4).textContent()) ?? '', /^0x[0-9a-f]{64}$/);
    assert.equal(await text(page, '#withdrawable'), '0');
    assert.equal(await text(page, '#settled'), earned);
    assert.equal(await usdcOn(devnet.chains, 'polygon', wallet), BigInt(row.net), 'the net earning arrived on polygon');

    await mkdir(fileURLToPath(new URL('../../docs/', import.meta.url)), { recursive: true });
    await page.screenshot({ path: screenshot, fullPage: true });

    // Phone-readable: at 390 px nothing is wider than the screen but the tables' own scrollers.
    await page.setViewportSize({ width: 390, height: 844 });
    assert.ok(Number(await page.evaluate('document.documentElement.scrollWidth')) <= 390, 'no horizontal scrolling at 390 px');

    // Every signature the wallet gave was a SellerAction the API already takes.
    const actions = new Set(walletLog.filter((w) => w.startsWith('sign ')).map((w) => w.slice(5)));
    assert.deepEqual([...actions].sort(), ['add_endpoint', 'delete_endpoint', 'errors', 'issue_api_key', 'list_api_keys', 'list_endpoints', 'read_account', 'register', 'request_payout', 'revoke_api_key', 'stats', 'update_endpoint']);
    assert.deepEqual(provoked.map((p) => p.seen), [true, true], 'both provoked refusals happened');
    assert.deepEqual(problems, [], 'no console error, failed request or unexpected error answer');
    assert.deepEqual(offHost, [], 'no request left the host');
    assert.deepEqual(await page.evaluate('window.cspReports'), [], 'the page runs within its CSP');
  } finally {
    await browser.close();
  }
});

test('without a browser wallet the page says what it needs (EVM, Solana not yet) and sends nothing', { timeout: 120_000, skip: noChromium }, async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (r) => requests.push(new URL(r.url()).pathname));
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${env.t.baseUrl}/console`, { waitUntil: 'networkidle' });
    await page.click('#connect');
    await until('the missing-wallet message', async () => ((await statusText(page)) ?? '').includes('No EVM browser wallet found'));
    assert.match((await statusText(page)) ?? '', /Solana wallets are not supported here yet/);
    assert.equal(await page.locator('#main').isVisible(), false);
    assert.deepEqual(requests.filter((p) => !p.startsWith('/console')), [], 'no API call without a wallet');
    assert.deepEqual(problems, []);
    assert.ok(Number(await page.evaluate('document.documentElement.scrollWidth')) <= 390, 'phone width');
  } finally {
    await browser.close();
  }
});
