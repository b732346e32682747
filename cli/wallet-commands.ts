/**
 * `paycall seller|keys|account|payout`: what a wallet does besides paying, signed with the
 * wallet key (loaded as for `paycall call`) through the SDK's wallet actions.
 *
 *   paycall seller register acme-ocr
 *   paycall seller register acme-ocr --add-wallet polygon=evm.key --add-wallet solana=sol.key --payout-chain solana
 *   paycall seller publish parse-receipt --upstream https://api.acme.example/receipt --price 20000 --desc "Parses receipts"
 *   paycall seller list --json
 *   paycall keys issue --label bot --scope read --scope balance:read
 *
 * Every command prints the service's answer as a table with a header row (`--json`: one
 * object `{status, body}` on stdout), a refusal as `paycall: <message> (<status> <code>)` and
 * a hint on stderr, and exits 0 on 2xx, 1 when the service refused, 4 when this server does
 * not offer the operation yet (501).
 *
 * `keys list` signs with the wallet (action list_api_keys), or sends a Bearer key when one is
 * given (--api-key, PAYCALL_API_KEY): a wallet whose keys are all revoked can still list them.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { readFileSync } from 'node:fs';
import type { ActionSigner, EndpointChanges, PaycallClient, PayoutChain, Scope, WalletActions } from '../sdk/index.ts';
import { baseUrlOf, checkChain, devnetInfo, EXIT, EXIT_CODES_HELP, isFetchFailure, unreachable, UsageError, walletKey } from './context.ts';
import { fields, printServiceError, table, usdc } from './output.ts';
import { parseSince } from './since.ts';

interface CommonOptions {
  json?: boolean;
  keyFile?: string;
  baseUrl?: string;
  chain: string;
}

/** What every wallet command answers: the HTTP status and the body (openapi-fetch's data or error). */
interface Answer {
  status: number;
  body: unknown;
}

const positiveInt = (what: string) => (v: string) => {
  if (!/^[1-9]\d{0,15}$/.test(v)) throw new InvalidArgumentError(`${what} must be a positive whole number`);
  return Number(v);
};
const jsonArg = (v: string) => {
  try {
    return JSON.parse(v) as unknown;
  } catch {
    throw new InvalidArgumentError('must be JSON');
  }
};
const collect = (v: string, all: string[] = []) => [...all, v];

/** The chains a seller may hold a wallet on (the contract's PayoutChain); kept here so `--help` needs no SDK. */
const REGISTER_CHAINS = ['base', 'polygon', 'arbitrum', 'optimism', 'avalanche', 'solana'] as const satisfies readonly PayoutChain[];
const isRegisterChain = (c: string): c is PayoutChain => (REGISTER_CHAINS as readonly string[]).includes(c);

function withCommonOptions(cmd: Command): Command {
  return cmd
    .option('--json', 'print one JSON object {status, body} on stdout')
    .option('--chain <chain>', 'which devnet key signs when no key is given: base or polygon (EVM), solana', 'base')
    .option('--key-file <file>', 'read the wallet key from this file (default: PAYCALL_WALLET_KEY, or the devnet’s first account)')
    .option('--base-url <url>', 'the service (default: PAYCALL_URL, the devnet’s, or http://127.0.0.1:4020)')
    .addHelpText('after', EXIT_CODES_HELP);
}

/** A signer for another key than the command's wallet (shape-A registration), in the service's signature domain. */
type SignerOf = (key: string) => ActionSigner;

/** The service's client and the wallet's signed actions. The signature domain is the service's name, read from its catalog. */
async function connect(opts: CommonOptions): Promise<{ client: PaycallClient; actions: WalletActions; signerOf: SignerOf }> {
  checkChain(opts.chain);
  const devnet = devnetInfo();
  const key = walletKey(opts.chain, opts.keyFile, devnet);
  // Loaded here, not at start: `--help` and usage errors answer without viem and the SDK.
  const { actionSignerFromKey, createPaycallClient, walletActions } = await import('../sdk/index.ts');
  const baseUrl = baseUrlOf(opts.baseUrl, devnet);
  const client = createPaycallClient({ baseUrl });
  const meta = await client.api.GET('/v1/_meta').catch((e: unknown) => {
    throw isFetchFailure(e) ? unreachable(baseUrl, e) : e;
  });
  if (!meta.data) throw new UsageError(`${baseUrl} is not a paycall service (its catalog answered ${meta.response.status})`, 'name the service with --base-url or PAYCALL_URL');
  const service = meta.data.service;
  const signerOf: SignerOf = (k) => {
    try {
      return actionSignerFromKey(k, service);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  };
  return { client, actions: walletActions(client.api, signerOf(key)), signerOf };
}

const answerOf = (r: { data?: unknown; error?: unknown; response: Response }): Answer => ({ status: r.response.status, body: r.data ?? r.error ?? null });

/** Prints the answer (human: a summary or the body; errors on stderr) and returns the exit code. */
function report(opts: CommonOptions, a: Answer, human: (body: any) => string = (b) => JSON.stringify(b, null, 2)): number { // eslint-disable-line @typescript-eslint/no-explicit-any
  const ok = a.status >= 200 && a.status < 300;
  if (opts.json) process.stdout.write(`${JSON.stringify(a)}\n`);
  else if (ok) process.stdout.write(`${human(a.body)}\n`);
  if (!ok) printServiceError(a.status, a.body);
  if (ok) return EXIT.ok;
  return a.status === 501 ? EXIT.notOffered : EXIT.failed;
}

type EndpointRow = { id: number; status: string; path: string; atomic_price: string; unit: string; mode: string; upstream_url: string };
const endpointTable = (rows: EndpointRow[]) => table(['ID', 'STATUS', 'PATH', 'PRICE', 'UNIT', 'MODE', 'UPSTREAM'], rows.map((e) => [e.id, e.status, e.path, e.atomic_price, e.unit, e.mode, e.upstream_url]));
type EndpointStats = { id: number; path: string; status: string; deleted_at: number | null; calls: number; paid_atomic: string; earned_atomic: string; undelivered_calls: number; errors: number };
const date = (ts: number | null | undefined) => (ts ? new Date(ts * 1000).toISOString().replace('.000Z', 'Z') : null);

/** Adds a command whose action runs one wallet action and reports its answer. */
function walletCommand<A extends unknown[]>(
  parent: Command,
  spec: string,
  description: string,
  configure: (cmd: Command) => Command,
  run: (actions: WalletActions, args: A, opts: any, signerOf: SignerOf) => Promise<{ data?: unknown; error?: unknown; response: Response }>, // eslint-disable-line @typescript-eslint/no-explicit-any
  human?: (body: any) => string, // eslint-disable-line @typescript-eslint/no-explicit-any
): void {
  const cmd = withCommonOptions(configure(parent.command(spec).description(description)));
  cmd.action(async (...received: unknown[]) => {
    // commander passes the arguments, then the options, then the command.
    const opts = received[received.length - 2] as CommonOptions;
    const { actions, signerOf } = await connect(opts);
    process.exitCode = report(opts, answerOf(await run(actions, received.slice(0, -2) as A, opts, signerOf)), human);
  });
}

export function addWalletCommands(program: Command): void {
  const seller = program.command('seller').description('Sell an API: register, publish endpoints, follow calls and errors (signed with the wallet key).');
  walletCommand(
    seller,
    'register <slug>',
    'Register the wallet as a seller under a slug (3-32 of a-z, 0-9, -). With --add-wallet or --payout-chain, the wallet is the primary one of several chain wallets, each signing what is registered.',
    (c) =>
      c
        .option('--add-wallet <chain=key-file>', `another chain wallet of the seller, signed with the key in key-file (repeat for more; chains: ${REGISTER_CHAINS.join(', ')})`, collect)
        .option('--payout-chain <chain>', 'the chain payouts are sent on (default: the wallet’s own chain)'),
    (a, [slug]: [string], o: { addWallet?: string[]; payoutChain?: string; chain: string; keyFile?: string }, signerOf) => {
      if (!o.addWallet && !o.payoutChain) return a.register(slug);
      const primaryChain: PayoutChain = !a.wallet.startsWith('0x') ? 'solana' : o.chain === 'polygon' ? 'polygon' : 'base';
      const wallets: Partial<Record<PayoutChain, ActionSigner>> = {};
      for (const spec of o.addWallet ?? []) {
        const [chain, file] = [spec.slice(0, spec.indexOf('=')), spec.slice(spec.indexOf('=') + 1)];
        if (!spec.includes('=') || !file) throw new UsageError(`--add-wallet ${spec}: write <chain>=<key-file>`);
        if (!isRegisterChain(chain)) throw new UsageError(`--add-wallet ${spec}: the chain must be one of ${REGISTER_CHAINS.join(', ')}`);
        if (chain === primaryChain || wallets[chain]) throw new UsageError(`--add-wallet ${spec}: ${chain} has a wallet already${chain === primaryChain ? ' (the command’s wallet)' : ''}`);
        let key: string;
        try {
          key = readFileSync(file, 'utf8').trim();
        } catch (e) {
          throw new UsageError(`--add-wallet ${spec}: ${(e as Error).message}`);
        }
        const signer = signerOf(key);
        if ((signer.kind === 'solana') !== (chain === 'solana')) throw new UsageError(`--add-wallet ${spec}: ${signer.kind === 'solana' ? 'a Solana' : 'an EVM'} key cannot hold the ${chain} wallet`);
        wallets[chain] = signer;
      }
      if (o.payoutChain !== undefined && !isRegisterChain(o.payoutChain)) throw new UsageError(`--payout-chain must be one of ${REGISTER_CHAINS.join(', ')}`);
      // An EVM key is the same address on every EVM chain: paid on another EVM chain, it holds that chain's wallet too.
      const payout = o.payoutChain as PayoutChain | undefined;
      if (payout && payout !== primaryChain && !wallets[payout]) {
        if ((payout === 'solana') !== (primaryChain === 'solana')) {
          throw new UsageError(`--payout-chain ${payout}: the wallet has no ${payout} address`, `add one: paycall seller register ${slug} --payout-chain ${payout} --add-wallet ${payout}=<key-file>`);
        }
        wallets[payout] = signerOf(walletKey(o.chain, o.keyFile, devnetInfo()));
      }
      return a.registerMultiChain(slug, { chain: primaryChain, wallets, payoutChain: o.payoutChain });
    },
    (b) => `registered ${b.slug} for ${b.wallet} (wallets: ${Object.entries(b.wallets).map(([c, w]) => `${c} ${w}`).join(', ')}; payouts on ${b.payout_chain})`,
  );
  walletCommand(
    seller,
    'publish <path-suffix>',
    'Publish an upstream as the paid endpoint /v1/<slug>/<path-suffix>; the service probes it first.',
    (c) =>
      c
        .requiredOption('--upstream <url>', 'the HTTPS URL calls are forwarded to')
        .requiredOption('--price <atomic>', 'price per call in USDC atomic units (10000 = 0.01 USDC)', positiveInt('--price'))
        .requiredOption('--desc <text>', 'a description for the catalog')
        .option('--unit <unit>', 'what one call counts as', 'request')
        .option('--mode <mode>', 'proxy (forward the call) or paywall', 'proxy')
        .option('--sample-body <json>', 'JSON the probes post to the upstream (default {})', jsonArg)
        .option('--alert-email <email>', 'where to send alerts about this endpoint'),
    (a, [suffix]: [string], o) =>
      a.publish({ path_suffix: suffix, upstream_url: o.upstream, atomic_price: o.price, unit: o.unit, desc: o.desc, mode: o.mode, ...(o.sampleBody !== undefined ? { sample_body: o.sampleBody } : {}), ...(o.alertEmail ? { alert_email: o.alertEmail } : {}) }),
    (b) => `published ${b.path} (id ${b.id}, ${b.status})`,
  );
  walletCommand(seller, 'list', 'List the seller’s endpoints with their status.', (c) => c, (a) => a.list(), (b) => (b.endpoints.length ? endpointTable(b.endpoints) : 'no endpoints: publish one with paycall seller publish <path-suffix> --upstream URL --price N --desc TEXT'));
  walletCommand(
    seller,
    'update <id>',
    'Change an endpoint: upstream, price, unit, description or mode (at least one).',
    (c) =>
      c
        .option('--upstream <url>', 'a new upstream (probed again; the endpoint goes back to pending)')
        .option('--price <atomic>', 'a new price in USDC atomic units', positiveInt('--price'))
        .option('--unit <unit>', 'a new unit')
        .option('--desc <text>', 'a new description')
        .option('--mode <mode>', 'proxy or paywall'),
    (a, [id]: [string], o) => {
      const changes: EndpointChanges = { upstream_url: o.upstream, atomic_price: o.price, unit: o.unit, desc: o.desc, mode: o.mode };
      for (const k of Object.keys(changes) as (keyof EndpointChanges)[]) if (changes[k] === undefined) delete changes[k];
      if (!Object.keys(changes).length) throw new UsageError('give at least one of --upstream, --price, --unit, --desc, --mode');
      return a.update(positiveInt('<id>')(id), changes);
    },
    (b) => `updated ${b.path} (id ${b.id}, ${b.status})`,
  );
  walletCommand(seller, 'delete <id>', 'Delete an endpoint: it leaves the catalog and its path is free again.', (c) => c, (a, [id]: [string]) => a.delete(positiveInt('<id>')(id)), (b) => `deleted endpoint ${b.id}`);
  walletCommand(seller, 'resume', 'Lift a suspension once the upstream is fixed; suspended endpoints are probed again.', (c) => c, (a) => a.resume(), (b) => `${b.slug} is ${b.status}; endpoints probed again: ${b.resumed_endpoint_ids.join(', ') || 'none'}`);
  const since = (c: Command) => c.option('--since <when>', 'from this time: 30m, 1h, 2d, 1w back from now, a date (2026-11-25, UTC) or Unix seconds', (v) => parseSince(v));
  walletCommand(
    seller,
    'stats',
    'Paid calls and earnings, in total and per endpoint.',
    since,
    (a, _args, o) => a.stats(o.since),
    (b) =>
      `${fields([
        ['seller', `${b.slug} (${b.wallet})`],
        ['since', date(b.since)],
        ['calls', b.calls],
        ['paid by buyers', usdc(b.paid_atomic)],
        ['earned (net)', usdc(b.earned_atomic)],
        ['fee', usdc(b.fee_atomic)],
        ['withdrawable', usdc(b.withdrawable_atomic)],
        ['paid out', usdc(b.settled_atomic)],
        ['undelivered calls', `${b.undelivered_calls} (${usdc(b.undelivered_atomic)})`],
      ])}\n\n${table(
        ['ID', 'PATH', 'STATUS', 'CALLS', 'PAID', 'EARNED', 'UNDELIVERED', 'ERRORS'],
        (b.by_endpoint as EndpointStats[]).map((e) => [e.id, e.path, e.deleted_at ? 'deleted' : e.status, e.calls, usdc(e.paid_atomic), usdc(e.earned_atomic), e.undelivered_calls, e.errors]),
      )}`,
  );
  walletCommand(
    seller,
    'errors',
    'Error counts per hour (failed probes, refused or failed calls).',
    since,
    (a, _args, o) => a.errors(o.since),
    (b: { ts: number; code: string; count: number }[]) => (b.length ? table(['HOUR (UTC)', 'CODE', 'COUNT'], b.map((e) => [date(e.ts), e.code, e.count])) : 'no errors'),
  );

  const keys = program.command('keys').description('Bearer API keys of the wallet.');
  walletCommand(
    keys,
    'issue',
    'Issue an API key (shown once: store it).',
    (c) => c.requiredOption('--label <label>', 'a name for the key').requiredOption('--scope <scope>', 'read, balance:read, endpoints:write, pay or payout:request (repeat for more)', collect),
    (a, _args, o) => a.issueKey(o.label, o.scope as Scope[]),
    (b) => `${b.api_key}\n(key ${b.id}, scopes ${b.scopes.join(' ')}) ${b.warning}`,
  );
  // Listing: with a Bearer key when one is given (no wallet key needed), else signed by the
  // wallet, which works even when every key of the wallet is revoked.
  withCommonOptions(keys.command('list').description('List the keys of the wallet, revoked ones included: signed with the wallet key, or with --api-key (scope read) for the wallet that owns it.'))
    .option('--api-key <key>', 'a Bearer key of the wallet instead of the wallet signature (default: PAYCALL_API_KEY)')
    .action(async (opts: CommonOptions & { apiKey?: string }) => {
      const apiKey = opts.apiKey ?? process.env.PAYCALL_API_KEY;
      let answer: { data?: unknown; error?: unknown; response: Response };
      if (apiKey) {
        const { createPaycallClient, listApiKeys } = await import('../sdk/index.ts');
        const baseUrl = baseUrlOf(opts.baseUrl, devnetInfo());
        const client = createPaycallClient({ baseUrl });
        answer = await listApiKeys(client.api, apiKey).catch((e: unknown) => {
          throw isFetchFailure(e) ? unreachable(baseUrl, e) : e;
        });
      } else {
        const { actions } = await connect(opts);
        answer = await actions.listKeys();
      }
      type Key = { id: number; key_prefix: string; label: string; scopes: string[]; created_at: number; last_used_at: number | null; expires_at: number | null; revoked_at: number | null };
      process.exitCode = report(opts, answerOf(answer), (b: { keys: Key[] }) =>
        b.keys.length
          ? table(['ID', 'PREFIX', 'LABEL', 'SCOPES', 'CREATED', 'LAST USED', 'STATE'], b.keys.map((k) => [k.id, `${k.key_prefix}…`, k.label, k.scopes.join(' '), date(k.created_at), date(k.last_used_at), k.revoked_at ? `revoked ${date(k.revoked_at)}` : k.expires_at && k.expires_at * 1000 < Date.now() ? 'expired' : 'active']))
          : 'no keys');
    });
  walletCommand(keys, 'revoke <id>', 'Revoke a key of the wallet.', (c) => c, (a, [id]: [string]) => a.revokeKey(positiveInt('<id>')(id)), (b) => `revoked key ${b.id}`);

  walletCommand(
    program,
    'account',
    'Earnings, spending and what can be paid out, for the wallet.',
    (c) => c,
    (a) => a.account(),
    (b) =>
      fields([
        ['wallet', b.wallet],
        ['earned (net)', usdc(b.earned_atomic)],
        ['withdrawable', usdc(b.withdrawable_atomic)],
        ['paid out', usdc(b.settled_atomic)],
        ['spent as buyer', usdc(b.spent_atomic)],
        ['payout chain', b.payout_chain],
        ['endpoints', b.endpoints_count],
      ]),
  );
  walletCommand(program, 'payout', 'Pay the seller’s withdrawable earnings now, to its registered wallet.', (c) => c, (a) => a.payout(), (b) => `payout ${b.id}: ${b.amount_atomic} USDC atomic units to ${b.to} on ${b.chain} (${b.status})`);
}
