/**
 * What every `paycall` command shares: the exit codes, the devnet's description (found in
 * .data/devnet.json on a machine running the devnet), the wallet key and the service's URL.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Exit codes, the same for every command (documented in `paycall --help` and the README). */
export const EXIT = { ok: 0, failed: 1, usage: 2, notPaid: 3, notOffered: 4 } as const;

export const EXIT_CODES_HELP = `
Exit codes:
  0  done (the service answered 2xx)
  1  failed: the service refused (4xx/5xx, its error is printed) or could not be reached
  2  usage: a bad option or argument, no wallet, or --yes missing off a terminal
  3  not paid: the price is above --max-amount, or the payment was declined
  4  not offered: this server does not offer the operation yet (501 not_implemented)`;

/** A mistake in how the command was called (exit 2). */
export class UsageError extends Error {}

export interface DevnetInfo {
  baseUrl?: string;
  chains: Record<string, { rpcUrl: string }>;
  accounts: { evmPrivateKey: string; solanaSecretKey: string }[];
}

export function devnetInfo(): DevnetInfo | null {
  const file = join(process.env.PAYCALL_DATA_DIR ?? '.data', 'devnet.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DevnetInfo) : null;
}

/** --key-file, else PAYCALL_WALLET_KEY, else the devnet's first account (its Solana key for --chain solana). */
export function walletKey(chain: string, keyFile: string | undefined, devnet: DevnetInfo | null): string {
  const fromFile = keyFile ? readFileSync(keyFile, 'utf8').trim() : undefined;
  const key = fromFile || process.env.PAYCALL_WALLET_KEY || (chain === 'solana' ? devnet?.accounts[0]?.solanaSecretKey : devnet?.accounts[0]?.evmPrivateKey);
  if (!key) throw new UsageError('no wallet: set PAYCALL_WALLET_KEY (or --key-file), or run the devnet so its accounts can be used');
  return key;
}

export const baseUrlOf = (given: string | undefined, devnet: DevnetInfo | null) => given ?? process.env.PAYCALL_URL ?? devnet?.baseUrl ?? 'http://127.0.0.1:4020';

export const CHAINS = ['base', 'polygon', 'solana'] as const;

export function checkChain(chain: string): void {
  if (!(CHAINS as readonly string[]).includes(chain)) throw new UsageError('--chain must be base, polygon or solana');
}
