/**
 * `paycall call` (quote, ask, pay, call, print) and `paycall quote` (the price per chain,
 * read from the service's 402, nothing paid).
 *
 * What a call prints: the tool's main text for the built-in text tools (`markdown` of pdf-md,
 * `text` of pdf-text), the answer as it came for everything else; `--json` prints one object
 * {status, paid, out, body}. Progress goes to stderr; on a terminal, while a paid call waits
 * for its answer, one line counts the seconds.
 */
import { writeFileSync } from 'node:fs';
import { confirm } from '@inquirer/prompts';
import { baseUrlOf, CliError, devnetInfo, EXIT, isFetchFailure, printError, readUserFile, unreachable, UsageError, walletKey, type DevnetInfo } from './context.ts';
import { printServiceError, table, usdc } from './output.ts';
import type { AcceptEntry, Payer, PaymentEvent } from '../sdk/index.ts';

// The SDK (viem, Solana web3.js) is loaded by the command that uses it: `--help` and usage
// errors answer without it.
const sdk = () => import('../sdk/index.ts');

export interface BodyOptions {
  file?: string;
  data?: string;
  contentType?: string;
  baseUrl?: string;
}

/** The built-ins are the one-segment paths (/v1/pdf-text); seller endpoints are /v1/<slug>/<suffix>. */
const isBuiltin = (path: string) => /^\/v1\/[a-z0-9][a-z0-9-]*$/.test(path);
const MAIN_TEXT: Record<string, 'text' | 'markdown'> = { '/v1/pdf-text': 'text', '/v1/pdf-md': 'markdown' };

/** The URL and body a call or a quote sends; a built-in without --file is a usage error, not a call with an empty body. */
function request(target: string, opts: BodyOptions, command: string): { url: URL; body: Buffer; contentType: string } {
  if (opts.file && opts.data) throw new UsageError('give --file or --data, not both');
  let url: URL;
  try {
    url = new URL(target, baseUrlOf(opts.baseUrl, devnetInfo()));
  } catch {
    throw new UsageError(`${target}: not a URL or a path`, `paycall ${command} /v1/pdf-text --file doc.pdf`);
  }
  if (!opts.file && isBuiltin(url.pathname)) throw new UsageError(`${url.pathname} needs a document: give --file <file>`, `paycall ${command} ${url.pathname} --file doc.pdf`);
  let body: Buffer;
  if (opts.file) body = readUserFile(opts.file, '--file');
  else {
    const data = opts.data ?? '{}';
    try {
      JSON.parse(data);
    } catch {
      throw new UsageError('--data must be JSON', `paycall ${command} ${url.pathname} --data '{"q":1}'`);
    }
    body = Buffer.from(data);
  }
  const contentType = opts.contentType ?? (opts.file ? (/\.png$/i.test(opts.file) ? 'image/png' : /\.jpe?g$/i.test(opts.file) ? 'image/jpeg' : 'application/pdf') : 'application/json');
  return { url, body, contentType };
}

async function payerFor(opts: { chain: string; rail: string; keyFile?: string }, devnet: DevnetInfo | null): Promise<Payer> {
  const { evmAuthorizationPayer, evmTransferPayer, solanaTransactionPayer } = await sdk();
  const key = walletKey(opts.chain, opts.keyFile, devnet);
  const rpc = (chain: string) => process.env[`${chain.toUpperCase()}_RPC_URL`] ?? devnet?.chains[chain]?.rpcUrl;
  if (opts.chain === 'solana') {
    const rpcUrl = rpc('solana');
    if (!rpcUrl) throw new UsageError('no Solana RPC', 'set SOLANA_RPC_URL');
    return solanaTransactionPayer({ secretKey: key, rpcUrl });
  }
  const network = opts.chain as 'base' | 'polygon';
  if (opts.rail === 'authorization') return evmAuthorizationPayer({ privateKey: key, network });
  const rpcUrl = rpc(network);
  if (!rpcUrl) throw new UsageError(`no ${network} RPC`, `set ${network.toUpperCase()}_RPC_URL, or use --rail authorization (no RPC needed)`);
  return evmTransferPayer({ privateKey: key, network, rpcUrl });
}

/** Seconds waited for a paid answer, on one rewritten stderr line; only on a terminal (logs get no carriage returns). */
function progress(enabled: boolean) {
  let timer: NodeJS.Timeout | undefined;
  let shown = false;
  return {
    start(what: string) {
      if (!enabled || timer) return;
      const t0 = Date.now();
      timer = setInterval(() => {
        shown = true;
        process.stderr.write(`\r${what} ${Math.round((Date.now() - t0) / 1000)} s`);
      }, 1000);
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
      if (shown) process.stderr.write('\r\x1b[K');
      shown = false;
    },
  };
}

export interface CallOptions extends BodyOptions {
  chain: string;
  rail: string;
  maxAmount?: bigint;
  out?: string;
  yes?: boolean;
  json?: boolean;
  keyFile?: string;
}

export async function call(target: string, opts: CallOptions): Promise<number> {
  const { url, body, contentType } = request(target, opts, 'call');
  const devnet = devnetInfo();
  const json = !!opts.json;
  const say = (text: string) => {
    if (!json) process.stderr.write(`${text}\n`);
  };
  const waiting = progress(!json && !!process.stderr.isTTY);
  let paid: { amount: bigint; network: string; scheme: string } | null = null;
  const onEvent = (e: PaymentEvent) => {
    waiting.stop();
    if (e.kind === 'quote') {
      paid = { amount: e.amount, network: e.entry.network, scheme: e.entry.scheme };
      say(`price: ${e.amount} USDC atomic units (${usdc(e.amount)}) on ${e.entry.network} (${e.entry.scheme})`);
    } else if (e.kind === 'paying') say('paying…');
    else if (e.kind === 'proof-sent') {
      say(e.attempt === 1 ? 'payment sent; calling…' : `retrying with the same payment (${e.attempt})…`);
      waiting.start('waiting for the answer…');
    } else say(`waiting for the chain to confirm (${e.attempt})…`);
  };
  const { createPaycallClient, NoUsableEntryError, PaymentDeclinedError, SpendCapError } = await sdk();
  const client = createPaycallClient({
    baseUrl: url.origin,
    payer: await payerFor(opts, devnet),
    maxAmount: opts.maxAmount,
    onEvent,
    confirm: async (entry) => {
      if (opts.yes) return true;
      if (!process.stdin.isTTY) throw new UsageError('not a terminal: nothing was paid', `pass --yes to pay without being asked: paycall call ${url.pathname} … --yes`);
      return confirm({ message: `Pay ${usdc(entry.maxAmountRequired)} (${entry.maxAmountRequired} atomic units) on ${entry.network}?`, default: false });
    },
  });
  let res: Response;
  try {
    res = await client.call(url.pathname + url.search, body, contentType);
  } catch (e) {
    if (e instanceof SpendCapError || e instanceof PaymentDeclinedError) {
      const reason = e instanceof SpendCapError ? 'above_max_amount' : 'declined';
      if (json) process.stdout.write(`${JSON.stringify({ paid: false, reason, message: e.message })}\n`);
      printError(`not paid: ${e.message}`, e instanceof SpendCapError ? `raise --max-amount to ${e.amount} to pay it` : undefined);
      return EXIT.notPaid;
    }
    if (e instanceof NoUsableEntryError) throw new CliError(e.message, 'choose another chain with --chain (see the prices: paycall quote <path>)');
    if (isFetchFailure(e)) throw unreachable(url.origin, e);
    throw e;
  } finally {
    waiting.stop();
  }
  const answer = Buffer.from(await res.arrayBuffer());
  const settlement = res.headers.get('x-payment-response');
  const tx = settlement ? (JSON.parse(Buffer.from(settlement, 'base64').toString()) as { transaction?: string }).transaction : undefined;
  const p = paid as { amount: bigint; network: string; scheme: string } | null;
  if (opts.out && res.ok) writeFileSync(opts.out, answer);
  if (json) {
    process.stdout.write(`${JSON.stringify({ status: res.status, paid: p ? { amount: p.amount.toString(), network: p.network, scheme: p.scheme, transaction: tx ?? null } : null, out: opts.out && res.ok ? opts.out : null, body: opts.out && res.ok ? undefined : tryJson(answer) })}\n`);
  }
  if (!res.ok) {
    printServiceError(res.status, tryJson(answer));
    // A call paid and then not served is an undelivered call: the buyer is not refunded, the seller is not paid (openapi.yaml, SellerStats).
    const code = (tryJson(answer) as { error?: unknown })?.error;
    if (p && typeof code === 'string' && /^(upstream_|processing_timeout)/.test(code)) process.stderr.write(`the payment of ${usdc(p.amount)} on ${p.network} was taken${tx ? ` (transaction ${tx})` : ''}; the seller is not paid for an undelivered call\n`);
    return res.status === 501 ? EXIT.notOffered : EXIT.failed;
  }
  if (!json) {
    if (tx) say(`paid: transaction ${tx}`);
    if (opts.out) say(`answer written to ${opts.out}`);
    else process.stdout.write(mainText(url.pathname, answer));
  }
  return EXIT.ok;
}

/** The text a person wants from a text tool; any other answer as it came. Always ends with a newline. */
function mainText(path: string, answer: Buffer): string {
  const field = MAIN_TEXT[path];
  const parsed = field ? (tryJson(answer) as Record<string, unknown>) : null;
  const text = parsed && typeof parsed[field!] === 'string' ? (parsed[field!] as string) : answer.toString('utf8');
  return text + (text.length && !text.endsWith('\n') ? '\n' : '');
}

const tryJson = (b: Buffer) => {
  try {
    return JSON.parse(b.toString('utf8'));
  } catch {
    return b.toString('utf8');
  }
};

/** `paycall quote`: the unpaid call's 402, as a price per chain. */
export async function quote(target: string, opts: BodyOptions & { json?: boolean }): Promise<number> {
  const { url, body, contentType } = request(target, opts, 'quote');
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body });
  } catch (e) {
    if (isFetchFailure(e)) throw unreachable(url.origin, e);
    throw e;
  }
  const answer = tryJson(Buffer.from(await res.arrayBuffer())) as { accepts?: AcceptEntry[] } | string;
  if (res.status !== 402 || typeof answer !== 'object' || !Array.isArray(answer.accepts)) {
    if (opts.json) process.stdout.write(`${JSON.stringify({ status: res.status, body: answer })}\n`);
    if (res.ok) {
      if (!opts.json) process.stdout.write(`${url.pathname} is free: the service answered ${res.status} without a payment\n`);
      return EXIT.ok;
    }
    printServiceError(res.status, answer);
    return res.status === 501 ? EXIT.notOffered : EXIT.failed;
  }
  const prices = answer.accepts.map((a) => ({ network: a.network, scheme: a.scheme, amount: a.maxAmountRequired, asset: a.asset, pay_to: a.payTo }));
  if (opts.json) process.stdout.write(`${JSON.stringify({ status: res.status, path: url.pathname, prices })}\n`);
  else {
    process.stdout.write(
      `${table(
        ['CHAIN', 'SCHEME', 'PRICE', 'ATOMIC', 'PAY TO'],
        prices.map((q) => [q.network, q.scheme, usdc(q.amount), q.amount, q.pay_to]),
      )}\n`,
    );
  }
  return EXIT.ok;
}
