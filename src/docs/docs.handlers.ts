/**
 * The API reference: GET /docs renders openapi.yaml with Scalar's API reference, GET
 * /openapi.yaml serves the contract, GET /docs/assets/{asset} the viewer's standalone script
 * from the installed package. Nothing is fetched from another host: a page that pulled its
 * viewer from a CDN would break offline and let a third party run script on our origin.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AppError } from '../http/app-error.ts';
import type { Handler } from '../http/server.ts';
import type { OperationId } from '../generated/operation-ids.ts';
import { escapeHtml, PAGE_SECURITY_HEADERS } from '../lib/html.ts';

/** A parsed openapi.yaml (only the parts read here are typed where they are read). */
type ContractDocument = Record<string, unknown>;

export interface DocsDeps {
  serviceName: string;
  /** Path of openapi.yaml, the file the service itself runs. */
  contractFile: string;
  /** The same contract, parsed (the router's copy: the document is not read and parsed again). */
  definition: ContractDocument;
  /** The viewer's browser bundle and its version (the version names the served file). */
  viewer: { file: string; version: string };
}

/** Where the installed @scalar/api-reference keeps its standalone browser bundle. */
export function scalarStandalone(): DocsDeps['viewer'] {
  // The package exports no subpath for it: resolve the entry point, the bundle sits beside it.
  const entry = import.meta.resolve('@scalar/api-reference');
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../package.json', entry)), 'utf8')) as { version: string };
  return { file: fileURLToPath(new URL('./browser/standalone.js', entry)), version: pkg.version };
}

/**
 * Only this origin. The viewer's styles are <style> elements it creates at run time: they are
 * allowed by the page's nonce (`<meta property="csp-nonce">`) rather than by 'unsafe-inline'.
 * The configuration travels in a data attribute, so no inline script is needed at all.
 */
export const docsContentSecurityPolicy = (nonce: string) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "frame-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');


/**
 * Runs before the viewer, so that it stays within the page's CSP without 'unsafe-eval' or
 * 'unsafe-inline' (which would also let injected markup run or style the page):
 * - zod (inside the viewer) probes `Function('')` once to choose its JIT compiler, a refused
 *   eval the browser reports; its global `jitless` setting skips the probe (and the JIT);
 * - Scalar stamps the nonce on its main <style> only, while its toasts and theme add more:
 *   every <style> the page creates gets the nonce;
 * - the viewer sets style attributes from script: a scrollbar-width probe calls
 *   `setAttribute('style', v)`, and its code highlighter's markup, set as innerHTML, carries
 *   `style="--line-count: 6; ..."`. Both are applied through the CSS object model instead
 *   (`element.style.cssText`), which style-src-attr does not govern. Only script already
 *   running on this page goes that way: style attributes in served or injected markup are
 *   still refused.
 */
const VIEWER_PRELUDE = `(() => {
  (globalThis.__zod_globalConfig ??= {}).jitless = true;
  const setAttribute = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) {
    if (String(name).toLowerCase() === 'style' && this.style) {
      this.style.cssText = String(value);
      return;
    }
    return setAttribute.call(this, name, value);
  };
  const innerHTML = Object.getOwnPropertyDescriptor(Element.prototype, 'innerHTML');
  const unescape = (s) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  Object.defineProperty(Element.prototype, 'innerHTML', {
    ...innerHTML,
    set(value) {
      const html = String(value);
      if (!/\\sstyle="/i.test(html)) return innerHTML.set.call(this, value);
      const styles = [];
      const marked = html.replace(/(<[a-z][^<>]*?)\\sstyle="([^"]*)"/gi, (_, open, css) => open + ' data-csp-style="' + (styles.push(css) - 1) + '"');
      innerHTML.set.call(this, marked);
      for (const element of this.querySelectorAll('[data-csp-style]')) {
        element.style.cssText = unescape(styles[Number(element.getAttribute('data-csp-style'))] ?? '');
        element.removeAttribute('data-csp-style');
      }
    },
  });
  const nonce = document.querySelector('meta[property=csp-nonce]')?.content;
  if (!nonce) return;
  const createElement = Document.prototype.createElement;
  Document.prototype.createElement = function (tag, options) {
    const element = createElement.call(this, tag, options);
    if (String(tag).toLowerCase() === 'style') element.nonce = nonce;
    return element;
  };
})();
`;

/**
 * The example receipt the contract gives in the xPayment scheme's description (base64url of
 * {x402Version, scheme, network, payload: {tx_hash}}), for the request samples; null if none.
 */
export function exampleReceipt(definition: ContractDocument): string | null {
  const doc = definition as { components?: { securitySchemes?: { xPayment?: { description?: string } } } };
  return /`(eyJ[A-Za-z0-9_-]+)`/.exec(doc.components?.securitySchemes?.xPayment?.description ?? '')?.[1] ?? null;
}

/**
 * The page names its icon: without one a browser asks for /favicon.ico, which this service
 * answers 404 (a failed request in the console of every visit). A data: URL (img-src allows
 * it) costs no request at all.
 */
const ICON = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1d4ed8"/><path d="M9 9h14v3H9zm0 6h14v3H9zm0 6h9v3H9z" fill="#fff"/></svg>')}`;

function page(deps: { serviceName: string; script: string; nonce: string; receipt: string | null }): string {
  const config = {
    url: '/openapi.yaml',
    // Each default below would reach another host: fonts, telemetry, the hosted client, the
    // AI agent, MCP generation and the developer toolbar's share/deploy actions.
    withDefaultFonts: false,
    telemetry: false,
    hideClientButton: true,
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: 'never',
    // Some 30 operations: the sidebar can list them all, a reader scans rather than clicks.
    defaultOpenAllTags: true,
    // Request samples show the payment header with the contract's example receipt (the
    // xPayment scheme's description) rather than Scalar's YOUR_SECRET_TOKEN placeholder.
    ...(deps.receipt ? { authentication: { preferredSecurityScheme: 'xPayment', securitySchemes: { xPayment: { value: deps.receipt } } } } : {}),
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta property="csp-nonce" content="${deps.nonce}">
<title>${escapeHtml(deps.serviceName)} API reference</title>
<link rel="icon" href="${ICON}">
</head>
<body>
<div id="api-reference" data-configuration='${escapeHtml(JSON.stringify(config))}'></div>
<script src="/docs/assets/${deps.script}"></script>
</body>
</html>
`;
}

export function createDocsHandlers(deps: DocsDeps): Partial<Record<OperationId, Handler>> {
  const script = `scalar-api-reference-${deps.viewer.version}.js`;
  // Read once: both files change only with a deploy (a new contract, a new package version).
  const contract = readFileSync(deps.contractFile);
  const receipt = exampleReceipt(deps.definition);
  const bundle = Buffer.concat([Buffer.from(VIEWER_PRELUDE), readFileSync(deps.viewer.file)]);
  return {
    getDocs: async () => {
      const nonce = randomBytes(16).toString('base64');
      return {
        status: 200,
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': docsContentSecurityPolicy(nonce),
          'cache-control': 'no-store',
          ...PAGE_SECURITY_HEADERS,
        },
        body: page({ serviceName: deps.serviceName, script, nonce, receipt }),
      };
    },
    getDocsAsset: async (ctx) => {
      if (ctx.params.asset !== script) throw new AppError('asset_not_found', 404, `No file ${ctx.params.asset} under /docs/assets`, { hint: 'GET /docs links the current files.' });
      return {
        status: 200,
        // The name carries the version: a new viewer is a new URL, so this one never changes.
        headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=31536000, immutable', ...PAGE_SECURITY_HEADERS },
        body: bundle,
      };
    },
    getOpenApi: async () => ({
      status: 200,
      // Readable cross-origin: client teams point generators and hosted viewers at this URL.
      headers: { 'content-type': 'application/yaml; charset=utf-8', 'cache-control': 'no-cache', 'access-control-allow-origin': '*' },
      body: contract,
    }),
  };
}
