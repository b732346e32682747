/**
 * What every `paycall` command shares: the exit codes, the errors it prints, the devnet's
 * description (found in .data/devnet.json on a machine running the devnet), the wallet key and
 * the service's URL.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Exit codes, the same for every command (documented in `paycall --help` and the README). */
export const EXIT = { ok: 0, failed: 1, usage: 2, notPaid: 3, notOffered: 4 } as const;

export const EXIT_CODES_HELP = `
Exit codes:
  0  done (the service answered 2xx)
  1  failed: the service refused (4xx/5xx, its error is printed) or could not be reached
  2  usage: a bad option or argument, a file that cannot be read, no wallet, or --yes missing off a terminal
  3  not paid: the price is above --max-amount, or the payment was declined
  4  not offered: this server does not offer the operation yet (501 not_implemented)`;

/**
 * A failure the command reports as one line `paycall: <message>` on stderr, then `hint: <hint>`
 * (what to run next, in CLI terms), and exits with `code`.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
    readonly code: number = EXIT.failed,
  ) {
    super(message);
  }
}

/** A mistake in how the command was called (exit 2). */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, hint, EXIT.usage);
  }
}

export function printError(message: string, hint?: string): void {
  process.stderr.write(`paycall: ${message}\n${hint ? `hint: ${hint}\n` : ''}`);
}

/** Reads a file the user named; a file that cannot be read is a usage error (exit 2), not a stack. */
export function readUserFile(file: string, option: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
    throw new UsageError(`${option} ${file}: cannot read it (${why})`, 'check the path (relative paths start from the current folder)');
  }
}

export interface DevnetInfo {
  baseUrl?: string;
  chains: Record<string, { rpcUrl: string; chainId?: number; usdc?: string; usdcMint?: string }>;
  accounts: { evmPrivateKey: string; solanaSecretKey: string }[];
}

export function devnetInfo(): DevnetInfo | null {
  const file = join(process.env.PAYCALL_DATA_DIR ?? '.data', 'devnet.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DevnetInfo) : null;
}

const NO_WALLET_HINT = 'set PAYCALL_WALLET_KEY (an EVM 0x key or a Solana base58 secret key) or pass --key-file <file>; with `npm start` running in the checkout, its devnet accounts are used';

/** --key-file, else PAYCALL_WALLET_KEY, else the devnet's first account (its Solana key for --chain solana). */
export function walletKey(chain: string, keyFile: string | undefined, devnet: DevnetInfo | null): string {
  const fromFile = keyFile ? readUserFile(keyFile, '--key-file').toString('utf8').trim() : undefined;
  const key = fromFile || process.env.PAYCALL_WALLET_KEY || (chain === 'solana' ? devnet?.accounts[0]?.solanaSecretKey : devnet?.accounts[0]?.evmPrivateKey);
  if (!key) throw new UsageError('no wallet', NO_WALLET_HINT);
  return key;
}

export const baseUrlOf = (given: string | undefined, devnet: DevnetInfo | null) => given ?? process.env.PAYCALL_URL ?? devnet?.baseUrl ?? 'http://127.0.0.1:4020';

export const CHAINS = ['base', 'polygon', 'solana'] as const;

export function checkChain(chain: string): void {
  if (!(CHAINS as readonly string[]).includes(chain)) throw new UsageError(`--chain ${chain}: must be base, polygon or solana`);
}

/** A fetch failure (nothing listening, DNS) as the line and hint a user can act on. */
export function unreachable(baseUrl: string, e: unknown): CliError {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  return new CliError(`cannot reach the service at ${baseUrl} (${cause?.code ?? cause?.message ?? (e as Error).message})`, 'start it with `npm start` in the checkout, or name it with --base-url or PAYCALL_URL');
}

export const isFetchFailure = (e: unknown) => e instanceof TypeError && /fetch failed/.test(e.message);
