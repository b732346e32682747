/**
 * `paycall`: pay for and call paycall endpoints from a terminal.
 *
 *   paycall call /v1/pdf-text --file doc.pdf            quote, ask, pay, call, print the text
 *   paycall call /v1/acme/weather --data '{"q":1}' --chain solana --max-amount 20000 --yes
 *   paycall quote /v1/pdf-md --file doc.pdf             the price per chain, nothing paid
 *   paycall wallet                                      address, USDC and gas per chain
 *   paycall seller register acme                        sign with the wallet and call the API
 *   paycall keys issue --label bot --scope read --json
 *   paycall mcp --max-per-call 0.05 --budget 1 --allow pdf-md,acme.*   stdio MCP server that pays by itself
 *
 * The wallet is PAYCALL_WALLET_KEY (an EVM 0x key, or a Solana base58 secret key) or --key-file;
 * on a machine running the devnet (.data/devnet.json) its first funded account is the default,
 * and RPC URLs come from there too (or BASE_RPC_URL / POLYGON_RPC_URL / SOLANA_RPC_URL).
 * Errors: `paycall: <message>` and `hint: <what to run>` on stderr. Exit codes (context.ts,
 * EXIT_CODES_HELP): 0 answered 2xx, 1 failed (HTTP error or payment refused), 2 usage, 3 not
 * paid (above --max-amount, or declined), 4 not offered by this server.
 */
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { checkChain, CliError, EXIT, EXIT_CODES_HELP, isFetchFailure, printError, UsageError } from './context.ts';
import { call, quote } from './call-command.ts';
import { walletBalances } from './wallet-balance.ts';
import { addWalletCommands } from './wallet-commands.ts';
import { addMcpCommand } from './mcp-command.ts';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const bigintArg = (v: string) => {
  if (!/^\d{1,30}$/.test(v)) throw new InvalidArgumentError('must be a whole number of USDC atomic units');
  return BigInt(v);
};

const serviceOption = (c: Command) => c.option('--base-url <url>', 'the service (default: PAYCALL_URL, the devnet’s, or http://127.0.0.1:4020)');

export function buildProgram(): Command {
  const program = new Command('paycall')
    .description('Pay for and call paycall endpoints (x402, USDC on Base, Polygon or Solana), and manage what a wallet sells.')
    .version(VERSION, '-V, --version', 'print the version')
    .addHelpText('after', EXIT_CODES_HELP)
    // Inherited by every command created below: commander's own usage errors read like ours.
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'paycall: ')) })
    .exitOverride();
  const callCmd = program
    .command('call')
    .description('Quote, pay and call a paid endpoint; prints the answer (the text of pdf-text / pdf-md), or writes it with --out.')
    .argument('<url-or-path>', 'a full URL, or a path such as /v1/pdf-text (against --base-url)')
    .option('--file <file>', 'send this file as the body (PDF, PNG or JPEG; required by the built-ins)')
    .option('--data <json>', 'send this JSON as the body (seller endpoints; default {})')
    .option('--content-type <type>', 'the body’s media type (guessed from --file / --data otherwise)')
    .option('--chain <chain>', 'base, polygon or solana', 'base')
    .option('--rail <rail>', 'EVM: authorization (gasless, default) or transfer', 'authorization')
    .option('--max-amount <atomic>', 'never pay more than this many USDC atomic units', bigintArg)
    .option('--out <file>', 'write the answer to this file')
    .option('-y, --yes', 'pay without asking')
    .option('--json', 'print one JSON object (status, what was paid, the answer) on stdout')
    .option('--key-file <file>', 'read the wallet key from this file');
  serviceOption(callCmd)
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (target: string, opts) => {
      checkChain(opts.chain);
      if (!['authorization', 'transfer'].includes(opts.rail)) throw new UsageError(`--rail ${opts.rail}: must be authorization or transfer`);
      process.exitCode = await call(target, opts);
    });
  serviceOption(
    program
      .command('quote')
      .description('Show the price of a call on each chain (the service’s 402 quote); nothing is paid.')
      .argument('<url-or-path>', 'a full URL, or a path such as /v1/pdf-md')
      .option('--file <file>', 'the document the price depends on (the built-ins price per page)')
      .option('--data <json>', 'the JSON body (seller endpoints; default {})')
      .option('--content-type <type>', 'the body’s media type (guessed otherwise)')
      .option('--json', 'print one JSON object {status, path, prices} on stdout'),
  )
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (target: string, opts) => {
      process.exitCode = await quote(target, opts);
    });
  program
    .command('wallet')
    .description('Show the wallet’s address and its USDC and gas balances on each chain.')
    .option('--key-file <file>', 'read the wallet key from this file (default: PAYCALL_WALLET_KEY, or the devnet’s first account)')
    .option('--json', 'print one JSON object {chains: [...]} on stdout')
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (opts) => {
      process.exitCode = await walletBalances(opts);
    });
  addWalletCommands(program);
  addMcpCommand(program, VERSION);
  // A usage error names the help of the command it came from.
  const hintHelp = (cmd: Command, path: string[]) => {
    cmd.showHelpAfterError(`hint: paycall ${[...path, '--help'].join(' ')}`);
    for (const sub of cmd.commands) hintHelp(sub, [...path, sub.name()]);
  };
  hintHelp(program, []);
  return program;
}

async function main() {
  try {
    await buildProgram().parseAsync(process.argv);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version') process.exitCode = EXIT.ok;
    else if (typeof code === 'string' && code.startsWith('commander.')) process.exitCode = EXIT.usage;
    else if (e instanceof CliError) {
      printError(e.message, e.hint);
      process.exitCode = e.code;
    } else if (isFetchFailure(e)) {
      printError(`cannot reach the service (${(e as { cause?: Error }).cause?.message ?? (e as Error).message})`, 'start it with `npm start` in the checkout, or name it with --base-url or PAYCALL_URL');
      process.exitCode = EXIT.failed;
    } else {
      printError((e as { shortMessage?: string }).shortMessage ?? (e as Error).message);
      process.exitCode = EXIT.failed;
    }
  }
}

await main();
