/**
 * `paycall`: pay for and call paycall endpoints from a terminal.
 *
 *   paycall call /v1/pdf-text --file doc.pdf            quote, ask, pay, call, print the answer
 *   paycall call /v1/acme/weather --data '{"q":1}' --chain solana --max-amount 20000 --yes
 *   paycall seller register acme                        sign with the wallet and call the API
 *   paycall keys issue --label bot --scope read --json
 *
 * The wallet is PAYCALL_WALLET_KEY (an EVM 0x key, or a Solana base58 secret key) or --key-file;
 * on a machine running the devnet (.data/devnet.json) its first funded account is the default,
 * and RPC URLs come from there too (or BASE_RPC_URL / POLYGON_RPC_URL / SOLANA_RPC_URL).
 * Exit codes (context.ts, EXIT_CODES_HELP): 0 answered 2xx, 1 failed (HTTP error or payment
 * refused), 2 usage, 3 not paid (above --max-amount, or declined), 4 not offered by this server.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { confirm } from '@inquirer/prompts';
import { baseUrlOf, checkChain, devnetInfo, EXIT, EXIT_CODES_HELP, UsageError, walletKey, type DevnetInfo } from './context.ts';
import { addWalletCommands } from './wallet-commands.ts';
import type { Payer, PaymentEvent } from '../sdk/index.ts';

// The SDK (viem, Solana web3.js) is loaded by the command that uses it: `--help` and usage
// errors answer without it.
const sdk = () => import('../sdk/index.ts');

const bigintArg = (v: string) => {
  if (!/^\d{1,30}$/.test(v)) throw new InvalidArgumentError('must be a whole number of USDC atomic units');
  return BigInt(v);
};

async function payerFor(opts: { chain: string; rail: string; keyFile?: string }, devnet: DevnetInfo | null): Promise<Payer> {
  const { evmAuthorizationPayer, evmTransferPayer, solanaTransactionPayer } = await sdk();
  const key = walletKey(opts.chain, opts.keyFile, devnet);
  const rpc = (chain: string) => process.env[`${chain.toUpperCase()}_RPC_URL`] ?? devnet?.chains[chain]?.rpcUrl;
  if (opts.chain === 'solana') {
    const rpcUrl = rpc('solana');
    if (!rpcUrl) throw new UsageError('no Solana RPC: set SOLANA_RPC_URL');
    return solanaTransactionPayer({ secretKey: key, rpcUrl });
  }
  const network = opts.chain as 'base' | 'polygon';
  if (opts.rail === 'authorization') return evmAuthorizationPayer({ privateKey: key, network });
  const rpcUrl = rpc(network);
  if (!rpcUrl) throw new UsageError(`no ${network} RPC: set ${network.toUpperCase()}_RPC_URL`);
  return evmTransferPayer({ privateKey: key, network, rpcUrl });
}

const say = (json: boolean, text: string) => {
  if (!json) process.stderr.write(`${text}\n`);
};

async function call(target: string, opts: { file?: string; data?: string; contentType?: string; chain: string; rail: string; maxAmount?: bigint; out?: string; yes?: boolean; json?: boolean; keyFile?: string; baseUrl?: string }): Promise<number> {
  if (opts.file && opts.data) throw new UsageError('give --file or --data, not both');
  const devnet = devnetInfo();
  const baseUrl = baseUrlOf(opts.baseUrl, devnet);
  const url = new URL(target, baseUrl);
  const body = opts.file ? readFileSync(opts.file) : Buffer.from(opts.data ?? '{}');
  const contentType = opts.contentType ?? (opts.file ? (/\.png$/i.test(opts.file) ? 'image/png' : /\.jpe?g$/i.test(opts.file) ? 'image/jpeg' : 'application/pdf') : 'application/json');
  const json = !!opts.json;
  let paid: { amount: bigint; network: string; scheme: string } | null = null;
  const onEvent = (e: PaymentEvent) => {
    if (e.kind === 'quote') {
      paid = { amount: e.amount, network: e.entry.network, scheme: e.entry.scheme };
      say(json, `price: ${e.amount} USDC atomic units (${Number(e.amount) / 1e6} USDC) on ${e.entry.network} (${e.entry.scheme})`);
    } else if (e.kind === 'paying') say(json, 'paying…');
    else if (e.kind === 'proof-sent') say(json, e.attempt === 1 ? 'payment sent; calling…' : `retrying with the same payment (${e.attempt})…`);
    else say(json, `waiting for the chain to confirm (${e.attempt})…`);
  };
  const { createPaycallClient, PaymentDeclinedError, SpendCapError } = await sdk();
  const client = createPaycallClient({
    baseUrl: url.origin,
    payer: await payerFor(opts, devnet),
    maxAmount: opts.maxAmount,
    onEvent,
    confirm: async (entry) => {
      if (opts.yes) return true;
      if (!process.stdin.isTTY) throw new UsageError('not a terminal: pass --yes to pay without being asked');
      return confirm({ message: `Pay ${entry.maxAmountRequired} USDC atomic units on ${entry.network}?`, default: false });
    },
  });
  let res: Response;
  try {
    res = await client.call(url.pathname + url.search, body, contentType);
  } catch (e) {
    if (e instanceof SpendCapError || e instanceof PaymentDeclinedError) {
      if (json) process.stdout.write(`${JSON.stringify({ paid: false, reason: e instanceof SpendCapError ? 'above_max_amount' : 'declined', message: e.message })}\n`);
      else say(json, `not paid: ${e.message}`);
      return EXIT.notPaid;
    }
    throw e;
  }
  const answer = Buffer.from(await res.arrayBuffer());
  const settlement = res.headers.get('x-payment-response');
  const tx = settlement ? (JSON.parse(Buffer.from(settlement, 'base64').toString()) as { transaction?: string }).transaction : undefined;
  if (opts.out) writeFileSync(opts.out, answer);
  if (json) {
    const p = paid as { amount: bigint; network: string; scheme: string } | null;
    process.stdout.write(`${JSON.stringify({ status: res.status, paid: p ? { amount: p.amount.toString(), network: p.network, scheme: p.scheme, transaction: tx ?? null } : null, out: opts.out ?? null, body: opts.out ? undefined : tryJson(answer) })}\n`);
  } else {
    if (tx) say(json, `paid: transaction ${tx}`);
    if (!opts.out) process.stdout.write(answer.toString('utf8') + (answer.length && !answer.toString().endsWith('\n') ? '\n' : ''));
    else say(json, `answer written to ${opts.out}`);
  }
  return res.ok ? EXIT.ok : EXIT.failed;
}

const tryJson = (b: Buffer) => {
  try {
    return JSON.parse(b.toString('utf8'));
  } catch {
    return b.toString('utf8');
  }
};

export function buildProgram(): Command {
  const program = new Command('paycall')
    .description('Pay for and call paycall endpoints (x402, USDC on Base, Polygon or Solana), and manage what a wallet sells.')
    .addHelpText('after', EXIT_CODES_HELP)
    .exitOverride();
  program
    .command('call')
    .description('Quote, pay and call a paid endpoint; prints (or writes) the answer.')
    .argument('<url-or-path>', 'a full URL, or a path such as /v1/pdf-text (against --base-url)')
    .option('--file <file>', 'send this file as the body (PDF, PNG or JPEG for the built-ins)')
    .option('--data <json>', 'send this JSON as the body (seller endpoints)')
    .option('--content-type <type>', 'the body’s media type (guessed from --file / --data otherwise)')
    .option('--chain <chain>', 'base, polygon or solana', 'base')
    .option('--rail <rail>', 'EVM: authorization (gasless, default) or transfer', 'authorization')
    .option('--max-amount <atomic>', 'never pay more than this many USDC atomic units', bigintArg)
    .option('--out <file>', 'write the answer to this file')
    .option('-y, --yes', 'pay without asking')
    .option('--json', 'print one JSON object (status, what was paid, the answer) on stdout')
    .option('--key-file <file>', 'read the wallet key from this file')
    .option('--base-url <url>', 'the service (default: PAYCALL_URL, the devnet’s, or http://127.0.0.1:4020)')
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (target: string, opts) => {
      checkChain(opts.chain);
      if (!['authorization', 'transfer'].includes(opts.rail)) throw new UsageError('--rail must be authorization or transfer');
      process.exitCode = await call(target, opts);
    });
  addWalletCommands(program);
  return program;
}

async function main() {
  try {
    await buildProgram().parseAsync(process.argv);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version') process.exitCode = EXIT.ok;
    else if (typeof code === 'string' && code.startsWith('commander.')) process.exitCode = EXIT.usage;
    else if (e instanceof UsageError) {
      process.stderr.write(`paycall: ${e.message}\n`);
      process.exitCode = EXIT.usage;
    } else {
      process.stderr.write(`paycall: ${(e as Error).message}\n`);
      process.exitCode = EXIT.failed;
    }
  }
}

await main();
