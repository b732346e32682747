/**
 * The catalog page's HTML, rendered on the server from the discovery rows. Everything that
 * comes from a seller (slug, path, description, sample body) or from the request (the search
 * words) passes through `html()` before it reaches the page: text and attribute values alike,
 * so a description holding `<script>` or quotes is shown as text and never runs. Nothing is
 * inline (no <script> body, no style attribute): the page's CSP allows neither.
 */
import type { Reliability } from '../sellers/reliability.ts';
import { snippetsOf, type Snippets } from './snippets.ts';
import { dollars } from '../lib/usdc.ts';

/** Escapes for HTML text and for double- or single-quoted attribute values. */
import { escapeHtml as html } from '../lib/html.ts';

export interface PageEntry {
  kind: 'builtin' | 'seller';
  /** The MCP tool name: `pdf-md`, `<slug>.<path_suffix>`. */
  name: string;
  path: string;
  description: string;
  /** USDC atomic units, a decimal string. */
  price: string;
  unit: string;
  mode: 'builtin' | 'paywall' | 'proxy';
  /** The seller's slug (the service's name for a built-in). */
  seller: string;
  status: string;
  /** Seller endpoints: the figures, or null before there are any. */
  reliability: Reliability | null;
  sampleBody?: unknown;
}

export interface PageModel {
  serviceName: string;
  baseUrl: string;
  /** The search as typed (`q`), or '' for the whole catalog. */
  query: string;
  entries: PageEntry[];
  /** More matched than the page lists. */
  truncated: boolean;
  assets: { css: string; js: string; icon: string };
}

const percent = (ratio: number) => `${Math.round(ratio * 1000) / 10} %`;

function reliabilityText(e: PageEntry): string {
  if (e.kind === 'builtin') return 'run by the service itself';
  const r = e.reliability;
  if (!r) return 'no figures yet';
  const parts = [
    r.success_rate_7d === null ? 'no paid calls in 7 days' : `${percent(r.success_rate_7d)} of ${r.paid_calls_7d} paid calls delivered (7 days)`,
    r.p50_latency_ms === null ? 'latency not measured yet' : `latency p50 ${r.p50_latency_ms} ms, p95 ${r.p95_latency_ms ?? '?'} ms (24 h)`,
    r.uptime_24h === null ? 'no probes in 24 h' : `uptime ${percent(r.uptime_24h)} (24 h)${r.uptime_7d === null ? '' : `, ${percent(r.uptime_7d)} (7 days)`}`,
  ];
  return parts.join('; ');
}

const MODE_LABEL = { builtin: 'built-in', paywall: 'paywall', proxy: 'proxy' } as const;

/** What the instant filter (assets/catalog.js) matches typed words against, lower case. */
const searchText = (e: PageEntry) => [e.name, e.path, e.description, e.seller, MODE_LABEL[e.mode], e.unit].join(' ').toLowerCase();

function snippetBlock(id: string, label: string, entryName: string, text: string): string {
  // The copy button is hidden until the script runs: without JavaScript it could do nothing.
  return `<div class="snippet">
<div class="snippet-head"><h4 id="${id}-h">${label}</h4><button type="button" class="copy" data-copy="${id}" aria-label="Copy the ${label} snippet for ${html(entryName)}" hidden>Copy</button></div>
<pre id="${id}" aria-labelledby="${id}-h" tabindex="0"><code>${html(text)}</code></pre>
</div>`;
}

function entryItem(e: PageEntry, i: number, baseUrl: string): string {
  const s: Snippets = snippetsOf({ builtinTool: e.kind === 'builtin' ? e.name : null, path: e.path, toolName: e.name, sampleBody: e.sampleBody }, baseUrl);
  const id = `e${i}`;
  const status = e.status === 'active' ? '' : ` <span class="badge badge-${html(e.status)}">${html(e.status)}</span>`;
  return `<li class="entry" data-search="${html(searchText(e))}">
<article aria-labelledby="${id}">
<h3 id="${id}"><code>${html(e.name)}</code> <span class="badge">${MODE_LABEL[e.mode]}</span>${status}</h3>
<p class="desc">${html(e.description)}</p>
<dl class="facts">
<div><dt>Price</dt><dd><strong>${dollars(e.price)}</strong> per ${html(e.unit)} <span class="muted">(${html(e.price)} USDC atomic units)</span></dd></div>
<div><dt>Mode</dt><dd>${MODE_LABEL[e.mode]}</dd></div>
<div><dt>Seller</dt><dd><code>${html(e.seller)}</code></dd></div>
<div><dt>Endpoint</dt><dd><code>POST ${html(e.path)}</code></dd></div>
<div class="wide"><dt>Reliability</dt><dd>${html(reliabilityText(e))}</dd></div>
</dl>
<details class="snippets">
<summary>Call it: curl, paycall, MCP</summary>
${snippetBlock(`${id}-curl`, 'curl', e.name, s.curl)}
${snippetBlock(`${id}-paycall`, 'paycall', e.name, s.paycall)}
${snippetBlock(`${id}-mcp`, 'MCP', e.name, s.mcp)}
</details>
</article>
</li>`;
}

function countText(m: PageModel): string {
  const n = m.entries.length;
  const what = `${n}${m.truncated ? '+' : ''} ${n === 1 ? 'endpoint' : 'endpoints'}`;
  return m.query ? `${what} matching “${html(m.query)}”` : what;
}

export function renderPage(m: PageModel): string {
  const name = html(m.serviceName);
  const items = m.entries.map((e, i) => entryItem(e, i, m.baseUrl)).join('\n');
  const empty = m.query ? `<p class="empty">Nothing matches “${html(m.query)}”. <a href="/">Show the whole catalog</a>.</p>` : '<p class="empty">The catalog is empty.</p>';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${m.query ? `${html(m.query)} · ` : ''}${name} catalog</title>
<link rel="icon" href="/assets/${m.assets.icon}" type="image/svg+xml">
<link rel="stylesheet" href="/assets/${m.assets.css}">
<script src="/assets/${m.assets.js}" defer></script>
</head>
<body>
<a class="skip" href="#results">Skip to the catalog</a>
<header>
<p class="brand"><a href="/">${name}</a></p>
<nav aria-label="Reference">
<ul>
<li><a href="/docs">API reference</a></li>
<li><a href="/openapi.yaml">openapi.yaml</a></li>
<li><a href="/discovery/resources">Discovery API</a></li>
<li><a href="/v1/_meta">/v1/_meta</a></li>
<li><a href="/.well-known/x402">/.well-known/x402</a></li>
</ul>
</nav>
</header>
<main>
<h1>Pay-per-call APIs for agents</h1>
<p class="lead">Every endpoint below is paid per call in USDC on Base, Polygon or Solana with <a href="/docs">x402</a>: no account. An unpaid call answers <code>402</code> with the quote; <code>paycall call</code> pays it from your wallet, and MCP clients reach the same tools at <code>${html(m.baseUrl)}/mcp</code> (or through the <code>paycall mcp</code> bridge).</p>
<form class="search" role="search" method="get" action="/">
<label for="q">Search the catalog</label>
<div class="search-row">
<input id="q" name="q" type="search" value="${html(m.query)}" maxlength="256" autocomplete="off" aria-describedby="search-help">
<button type="submit">Search</button>
${m.query ? '<a class="clear" href="/">Clear</a>' : ''}
</div>
<p id="search-help" class="muted">Words in names, descriptions and sellers; Enter searches on the server, typing filters the list below.</p>
</form>
<section id="results" aria-labelledby="results-h">
<h2 id="results-h">Endpoints</h2>
<p id="count" role="status">${countText(m)}</p>
${m.truncated ? '<p class="muted">The list stops here: search to narrow it.</p>' : ''}
${m.entries.length ? `<ul class="entries">\n${items}\n</ul>` : empty}
<p id="no-match" class="empty" hidden>No endpoint on this page matches; press Enter to search the whole catalog.</p>
</section>
</main>
<footer>
<p>${name} · prices in USDC (1 USDC = 1 USD) · <a href="/v1/_health">health</a></p>
</footer>
</body>
</html>
`;
}
