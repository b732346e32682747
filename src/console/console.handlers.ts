/**
 * The seller console: GET /console renders an HTML shell, GET /console/assets/{asset} serves its
 * plain ES-module scripts and its style sheet from src/console/public/. The page is only a
 * client of the public API: the browser wallet (EIP-1193) signs the same EIP-712 SellerAction
 * every other client signs, and the scripts call the API with fetch. Nothing here reads the
 * database or holds a credential, so the console can do nothing the API would not let a
 * script do (issue 24).
 *
 * No build step and no library in the browser: keccak-256 (the payloadHash) is a small module
 * of its own (keccak.js), and the wallet does the signing.
 */
import { readFileSync } from 'node:fs';
import { AppError } from '../http/app-error.ts';
import type { Handler } from '../http/server.ts';
import type { OperationId } from '../generated/operation-ids.ts';
import { escapeHtml, PAGE_SECURITY_HEADERS } from '../lib/html.ts';

export interface ConsoleDeps {
  /** SERVICE_NAME: the EIP-712 domain name the wallet signs under. */
  serviceName: string;
  /** The chains this deployment pays out on, offered at registration. */
  payoutChains: readonly string[];
}

/**
 * This origin only and nothing inline: no 'unsafe-*', no nonce. Every script is a file, every
 * style is in console.css (the chart's SVG is drawn with attributes, which style-src does not
 * govern). connect-src 'self': the page talks to this API and nothing else.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'none'",
  "object-src 'none'",
  "frame-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };

/** The files the page may load; anything else is 404 (no path from the request reaches the file system). */
// The icon spares browsers their /favicon.ico guess (a 404 on every visit).
const ASSETS = ['console.js', 'api.js', 'keccak.js', 'chart.js', 'console.css', 'favicon.svg'] as const;

function page(deps: ConsoleDeps): string {
  const name = escapeHtml(deps.serviceName);
  const chains = deps.payoutChains.map((c) => `<option value="${escapeHtml(c)}">${escapeHtml(c)}</option>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${name} seller console</title>
<link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/assets/console.css">
<script type="module" src="/console/assets/console.js"></script>
</head>
<body data-service="${name}">
<header>
<h1>${name} seller console</h1>
<p class="note">Connect an EVM browser wallet (EIP-1193, e.g. MetaMask). Every action is signed by the wallet as the same EIP-712 <code>SellerAction</code> the public API takes; this page holds no key. Solana wallets are not supported here yet: use the <code>paycall</code> CLI.</p>
<div class="row">
<button id="connect" type="button">Connect wallet</button>
<span id="wallet" aria-live="polite"></span>
</div>
<p id="status" role="status" aria-live="polite"></p>
</header>
<main id="main" hidden>
<section id="register-section" aria-labelledby="register-h" hidden>
<h2 id="register-h">Register as a seller</h2>
<form id="register-form">
<label>Slug <input name="slug" required pattern="[a-z0-9\\-]{3,32}" autocomplete="off" placeholder="acme-ocr"></label>
<label>Payout chain <select name="payout_chain">${chains}</select></label>
<button type="submit">Sign and register</button>
</form>
</section>
<section id="account-section" aria-labelledby="account-h" hidden>
<h2 id="account-h">Account</h2>
<dl class="figures">
<dt>Slug</dt><dd id="slug"></dd>
<dt>Payout chain</dt><dd id="payout-chain"></dd>
<dt>Earned (USDC)</dt><dd id="earned"></dd>
<dt>Withdrawable (USDC)</dt><dd id="withdrawable"></dd>
<dt>Settled (USDC)</dt><dd id="settled"></dd>
</dl>
<div class="row"><button id="refresh" type="button">Refresh</button><button id="payout" type="button">Request payout</button></div>
<h3>Payouts</h3>
<table id="payouts"><thead><tr><th scope="col">Id</th><th scope="col">Chain</th><th scope="col">Amount (USDC)</th><th scope="col">Status</th><th scope="col">Transaction</th></tr></thead><tbody></tbody></table>
</section>
<section id="endpoints-section" aria-labelledby="endpoints-h" hidden>
<h2 id="endpoints-h">Endpoints</h2>
<table id="endpoints"><thead><tr><th scope="col">Path</th><th scope="col">Price (USDC)</th><th scope="col">Mode</th><th scope="col">Status</th><th scope="col">Last probe</th><th scope="col">Actions</th></tr></thead><tbody></tbody></table>
<h3 id="publish-h">Publish an endpoint</h3>
<form id="publish-form" aria-labelledby="publish-h">
<label>Path suffix <input name="path_suffix" required autocomplete="off" placeholder="parse-receipt"></label>
<label>Upstream URL <input name="upstream_url" type="url" required placeholder="your API's HTTPS URL"></label>
<label>Price (USDC) <input name="price" required inputmode="decimal" pattern="[0-9]+(\\.[0-9]{1,6})?" placeholder="0.02"></label>
<label>Unit <input name="unit" required value="request"></label>
<label>Description <input name="desc" required></label>
<label>Mode <select name="mode"><option value="proxy">proxy</option><option value="paywall">paywall</option></select></label>
<button type="submit">Sign and publish</button>
</form>
</section>
<section id="charts-section" aria-labelledby="charts-h" hidden>
<h2 id="charts-h">Earnings and health</h2>
<figure><figcaption>Net earnings per day (USDC)</figcaption><div id="chart-earnings" class="chart"></div></figure>
<figure><figcaption>Calls and undelivered calls per day</figcaption><div id="chart-calls" class="chart"></div></figure>
<figure><figcaption>Endpoint errors per hour</figcaption><div id="chart-errors" class="chart"></div></figure>
</section>
<section id="keys-section" aria-labelledby="keys-h" hidden>
<h2 id="keys-h">API keys</h2>
<table id="keys"><thead><tr><th scope="col">Id</th><th scope="col">Prefix</th><th scope="col">Label</th><th scope="col">Scopes</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead><tbody></tbody></table>
<h3 id="issue-h">Issue a key</h3>
<form id="issue-form" aria-labelledby="issue-h">
<label>Label <input name="label" autocomplete="off"></label>
<fieldset><legend>Scopes</legend>
<label class="inline"><input type="checkbox" name="scope" value="read" checked> read</label>
<label class="inline"><input type="checkbox" name="scope" value="balance:read"> balance:read</label>
<label class="inline"><input type="checkbox" name="scope" value="endpoints:write"> endpoints:write</label>
<label class="inline"><input type="checkbox" name="scope" value="payout:request"> payout:request</label>
<label class="inline"><input type="checkbox" name="scope" value="pay"> pay</label>
</fieldset>
<button type="submit">Sign and issue</button>
</form>
<p id="new-key" class="secret" hidden></p>
</section>
</main>
</body>
</html>
`;
}

export function createConsoleHandlers(deps: ConsoleDeps): Partial<Record<OperationId, Handler>> {
  // Read once: the files change only with a deploy.
  const files = new Map(ASSETS.map((name) => [name as string, readFileSync(new URL(`./public/${name}`, import.meta.url))]));
  const html = page(deps);
  return {
    getConsole: async () => ({
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CONSOLE_CONTENT_SECURITY_POLICY, 'cache-control': 'no-store', ...PAGE_SECURITY_HEADERS },
      body: html,
    }),
    getConsoleAsset: async (ctx) => {
      const name = ctx.params.asset;
      const file = files.get(name);
      if (!file) throw new AppError('asset_not_found', 404, `No file ${name} under /console/assets.`, { hint: 'GET /console links the current files.' });
      return {
        status: 200,
        headers: { 'content-type': TYPES[name.slice(name.lastIndexOf('.'))], 'cache-control': 'no-cache', ...PAGE_SECURITY_HEADERS },
        body: file,
      };
    },
  };
}
