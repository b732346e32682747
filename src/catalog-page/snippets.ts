/**
 * The copy-ready lines of one catalog entry: an unpaid `curl` (it answers the 402 quote), the
 * `paycall call` that quotes, pays and calls (cli/call-command.ts), and the `mcpServers` entry
 * of the stdio bridge `paycall mcp` allowed to pay for this one tool (cli/mcp-command.ts).
 *
 * A seller's sample body goes into a command a person pastes into a shell: it is quoted for
 * the shell here (single quotes, an inner quote closed and escaped), and HTML-escaped again
 * when the page is rendered.
 */

/** One shell word: `'...'` with each `'` written as `'\''`, so nothing in it is interpreted. */
export const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export interface SnippetTarget {
  /** The built-in's tool name, or null for a seller endpoint. */
  builtinTool: string | null;
  /** `/v1/pdf-md`, `/v1/<slug>/<path_suffix>`. */
  path: string;
  /** The MCP tool name (mcp/mcp-tools.ts: `pdf-md`, `<slug>.<path_suffix>`). */
  toolName: string;
  /** A seller endpoint's sample body (the JSON its upstream takes), if it published one. */
  sampleBody?: unknown;
}

export interface Snippets {
  curl: string;
  paycall: string;
  mcp: string;
}

/** The built-ins take a document; invoice-extract takes scans too, the PDF stands for both. */
const documentOf = (tool: string) => (tool === 'invoice-extract' ? 'invoice.pdf' : 'doc.pdf');

export function snippetsOf(t: SnippetTarget, baseUrl: string): Snippets {
  const url = shellQuote(`${baseUrl}${t.path}`);
  const base = shellQuote(baseUrl);
  const data = t.sampleBody === undefined || t.sampleBody === null ? '{}' : JSON.stringify(t.sampleBody);
  const curl = t.builtinTool
    ? `curl -i -X POST ${url} \\\n  -H 'Content-Type: application/pdf' --data-binary @${documentOf(t.builtinTool)}`
    : `curl -i -X POST ${url} \\\n  -H 'Content-Type: application/json' -d ${shellQuote(data)}`;
  const paycall = t.builtinTool
    ? `paycall call ${t.path} --file ${documentOf(t.builtinTool)} --base-url ${base}`
    : `paycall call ${t.path} --data ${shellQuote(data)} --base-url ${base}`;
  // The bridge allowed to pay for this tool only; args on one line, as such configs are written.
  const args = ['mcp', '--base-url', baseUrl, '--allow', t.toolName].map((a) => JSON.stringify(a)).join(', ');
  const mcp = `{\n  "mcpServers": {\n    "paycall": {\n      "command": "paycall",\n      "args": [${args}]\n    }\n  }\n}`;
  return { curl, paycall, mcp };
}
