/**
 * What `npm start` shows a person on a terminal: a few lines saying where the catalog and the
 * API reference are, which funded wallet the devnet gives them, and one command to try; then
 * the log as short lines. Off a terminal (a supervisor, a pipe, a test) or with
 * LOG_FORMAT=json, the log stays one JSON object per line and no banner is printed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { privateKeyToAccount } from 'viem/accounts';

export interface BannerInput {
  url: string;
  profile: string;
  database: string;
  dataDir: string;
  version: string;
}

/** The devnet's first account (the CLI's default wallet), as addresses. */
function devnetBuyer(dataDir: string): { evm: string; solana: string; file: string } | null {
  const file = join(dataDir, 'devnet.json');
  if (!existsSync(file)) return null;
  const info = JSON.parse(readFileSync(file, 'utf8')) as { accounts?: { evmPrivateKey: string; solanaSecretKey: string }[] };
  const a = info.accounts?.[0];
  if (!a) return null;
  return { evm: privateKeyToAccount(a.evmPrivateKey as `0x${string}`).address, solana: bs58.encode(nacl.sign.keyPair.fromSecretKey(bs58.decode(a.solanaSecretKey)).publicKey), file };
}

export function banner(b: BannerInput): string {
  const buyer = b.profile === 'devnet' ? devnetBuyer(b.dataDir) : null;
  return [
    '',
    `paycall ${b.version} is up (${b.profile} profile, ${b.database})`,
    '',
    `  catalog      ${b.url}/`,
    `  API docs     ${b.url}/docs`,
    `  console      ${b.url}/console  (sellers, with an EVM browser wallet)`,
    ...(buyer
      ? [
          `  test wallet  ${buyer.evm} (Base, Polygon)`,
          `               ${buyer.solana} (Solana)`,
          `               funded with devnet USDC; keys in ${buyer.file}`,
          '',
          '  try, in another terminal of this folder (any PDF):',
          '    npx paycall call /v1/pdf-text --file some.pdf',
        ]
      : ['', `  try: npx paycall quote ${b.url}/v1/pdf-text --file some.pdf`]),
    '',
    'Ctrl-C stops. The log follows (LOG_FORMAT=json for JSON lines).',
    '',
  ].join('\n');
}

const LEVEL_MARK: Record<string, string> = { debug: 'debug', info: 'info ', warn: 'WARN ', error: 'ERROR' };

/** A JSON log line as one short human line: time, level, message, then the other fields as key=value. */
export function humanLogLine(line: string): string {
  let r: Record<string, unknown>;
  try {
    r = JSON.parse(line);
  } catch {
    return line;
  }
  const { time, level, msg, service: _service, err, ...rest } = r;
  const t = typeof time === 'string' ? time.slice(11, 19) : '';
  const fields = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? (/\s/.test(v) ? JSON.stringify(v) : v) : JSON.stringify(v)}`)
    .join(' ');
  const e = err as { message?: string; stack?: string } | undefined;
  return `${t} ${LEVEL_MARK[String(level)] ?? level} ${msg}${fields ? `  ${fields}` : ''}${e ? `\n  ${e.stack ?? e.message}` : ''}\n`;
}
