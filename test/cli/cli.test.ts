/**
 * The `paycall` command as a child process against the real service on the devnet: it quotes,
 * pays from the devnet's first account (found through devnet.json), and writes the answer;
 * the spend cap, the confirmation and bad usage each end with their own exit code. The seller
 * commands run end to end against the same service and a local upstream; the key, account
 * and payout commands run against it too, and against a stand-in service that does not offer
 * them (501, exit 4), which records the requests they send for a check against the contract.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { startUpstream, eventually, type TestUpstream } from '../helpers/sellers.ts';
import { assertMatchesContract, testContract } from '../helpers/contract.ts';
import { verifyWalletSignature } from '../../src/http/wallet-signature.ts';
import { solanaActionSigner } from '../../sdk/action-signer.ts';
import type { TestDevnet } from '../helpers/devnet.ts';
import { makePdf, startPaidTestEnv, type PaidTestEnv } from '../helpers/paid.ts';

let env: PaidTestEnv;
let devnet: TestDevnet;
let t: PaidTestEnv['t'];
let dir: string;
let upstream: TestUpstream;

before(async () => {
  // A failing upstream is retried for 3 s (not 60): the CLI's wait and its failure are seen quickly.
  env = await startPaidTestEnv('cli', { TOOL_WORKERS: '1', UPSTREAM_RETRY_WINDOW_MS: '3000' });
  ({ devnet, t } = env);
  dir = await mkdtemp(join(tmpdir(), 'paycall-cli-'));
  upstream = await startUpstream();
});
after(async () => {
  await env?.close();
  await upstream?.close();
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the command against the suite's service (or `baseUrl`); the wallet defaults to the devnet's first account. */
function paycall(args: string[], opts: { env?: Record<string, string>; baseUrl?: string } = {}): Promise<Run> {
  return new Promise((resolve) => {
    // `wallet` and `--version` talk to no service: they take no --base-url.
    const service = args[0] === 'wallet' || args[0] === '--version' ? [] : ['--base-url', opts.baseUrl ?? t.baseUrl];
    execFile(process.execPath, ['cli/paycall.mjs', ...args, ...service], { env: { ...process.env, PAYCALL_DATA_DIR: devnet.dataDir, PAYCALL_WALLET_KEY: '', PAYCALL_API_KEY: '', ...opts.env } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** `--json` output: {status, body}; the exit code must say the same as the status. */
async function paycallJson(args: string[], opts: Parameters<typeof paycall>[1] = {}): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const r = await paycall([...args, '--json'], opts);
  assert.ok(r.stdout, `no output from paycall ${args.join(' ')} (exit ${r.code}): ${r.stderr}`);
  const out = JSON.parse(r.stdout);
  assert.equal(r.code, out.status >= 200 && out.status < 300 ? 0 : out.status === 501 ? 4 : 1, `exit code of paycall ${args.join(' ')}`);
  return out;
}

test('paycall call pays a built-in and prints the answer with what was paid (--json)', async () => {
  const file = join(dir, 'doc.pdf');
  await writeFile(file, await makePdf(2, 'cli-json'));
  const r = await paycall(['call', '/v1/pdf-text', '--file', file, '--yes', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.status, 200);
  assert.deepEqual({ amount: out.paid.amount, network: out.paid.network }, { amount: '10000', network: 'base' });
  assert.match(out.paid.transaction, /^0x[0-9a-f]{64}$/);
  assert.match(out.body.text, /cli-json page 2/);
});

test('paycall call on Solana writes the answer to --out and shows progress on stderr', async () => {
  const file = join(dir, 'sol.pdf');
  const answer = join(dir, 'answer.json');
  await writeFile(file, await makePdf(1, 'cli-solana'));
  const r = await paycall(['call', '/v1/pdf-md', '--file', file, '--chain', 'solana', '--out', answer, '--yes']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /price: 10000 USDC atomic units .* on solana/);
  assert.match(r.stderr, /answer written to/);
  assert.match(JSON.parse(await readFile(answer, 'utf8')).markdown, /cli-solana page 1/);
});

test('above --max-amount nothing is paid (exit 3); without --yes off a terminal it refuses (exit 2); bad usage is exit 2', async () => {
  const file = join(dir, 'cap.pdf');
  await writeFile(file, await makePdf(3, 'cli-cap'));
  const capped = await paycall(['call', '/v1/pdf-text', '--file', file, '--max-amount', '14999', '--yes', '--json']);
  assert.equal(capped.code, 3);
  assert.deepEqual({ ...JSON.parse(capped.stdout), message: undefined }, { paid: false, reason: 'above_max_amount', message: undefined });
  const unasked = await paycall(['call', '/v1/pdf-text', '--file', file]);
  assert.equal(unasked.code, 2);
  assert.match(unasked.stderr, /pass --yes/);
  assert.equal((await paycall(['call', '/v1/pdf-text', '--chain', 'ethereum', '--yes'])).code, 2);
  assert.equal((await paycall(['call'])).code, 2);
  assert.equal((await paycall(['--help'])).code, 0);
});

test('paycall seller: register, publish, list, a paid call, stats, errors, update, delete, resume, end to end', async () => {
  const keyFile = join(dir, 'seller.key');
  await writeFile(keyFile, generatePrivateKey());
  const wallet = ['--key-file', keyFile];
  const registered = await paycallJson(['seller', 'register', 'cli-shop', ...wallet]);
  assert.equal(registered.status, 201, JSON.stringify(registered.body));
  await assertMatchesContract('registerSeller', 201, registered.body);
  assert.equal(registered.body.wallet, privateKeyToAccount((await readFile(keyFile, 'utf8')) as `0x${string}`).address);

  const published = await paycallJson(['seller', 'publish', 'echo', '--upstream', `${upstream.url}/echo`, '--price', '20000', '--desc', 'Echoes from the CLI test', '--sample-body', '{"q":"probe"}', ...wallet]);
  assert.equal(published.status, 201, JSON.stringify(published.body));
  await assertMatchesContract('addSellerEndpoint', 201, published.body);
  const id = String(published.body.id);

  // The service's probes make the endpoint active on their own.
  await eventually('the endpoint is active', async () => {
    await t.app.runScheduledJobs();
    const listed = await paycallJson(['seller', 'list', ...wallet]);
    return listed.body.endpoints[0]?.status === 'active';
  });
  const human = await paycall(['seller', 'list', ...wallet]);
  assert.equal(human.code, 0, human.stderr);
  const [header, row] = human.stdout.trimEnd().split('\n');
  assert.deepEqual(header.split(/ {2,}/), ['ID', 'STATUS', 'PATH', 'PRICE', 'UNIT', 'MODE', 'UPSTREAM']);
  assert.deepEqual(row.split(/ {2,}/), [id, 'active', '/v1/cli-shop/echo', '20000', 'request', 'proxy', `${upstream.url}/echo`]);

  // A buyer (the devnet's first account) pays for one call; the seller sees it in its stats.
  const paid = await paycall(['call', '/v1/cli-shop/echo', '--data', '{"q":1}', '--yes', '--json']);
  assert.equal(paid.code, 0, paid.stderr);
  assert.equal(JSON.parse(paid.stdout).paid.amount, '20000');
  const stats = await paycallJson(['seller', 'stats', ...wallet]);
  assert.equal(stats.status, 200);
  await assertMatchesContract('getSellerStats', 200, stats.body);
  assert.deepEqual({ calls: stats.body.calls, paid: stats.body.paid_atomic }, { calls: 1, paid: '20000' });
  const errors = await paycallJson(['seller', 'errors', '--since', String(Math.floor(Date.now() / 1000) - 3600), ...wallet]);
  assert.equal(errors.status, 200);
  await assertMatchesContract('getSellerErrors', 200, errors.body);
  // --since as people write it: a duration back from now, a date; the service counts from there.
  const before = Math.floor(Date.now() / 1000) - 3600;
  const lastHour = await paycallJson(['seller', 'stats', '--since', '1h', ...wallet]);
  const after = Math.floor(Date.now() / 1000) - 3600;
  assert.ok(lastHour.body.since >= before && lastHour.body.since <= after, `since ${lastHour.body.since} is an hour ago`);
  assert.equal(lastHour.body.calls, 1);
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const fromTomorrow = await paycallJson(['seller', 'stats', '--since', tomorrow, ...wallet]);
  assert.equal(fromTomorrow.body.since, Date.parse(tomorrow) / 1000);
  assert.equal(fromTomorrow.body.calls, 0);
  const humanStats = await paycall(['seller', 'stats', '--since', '2d', ...wallet]);
  assert.equal(humanStats.code, 0, humanStats.stderr);
  assert.match(humanStats.stdout, /^FIELD +VALUE\n/);
  assert.match(humanStats.stdout, /^earned \(net\) +0\.0192 USDC$/m);
  assert.match(humanStats.stdout, new RegExp(`^ID +PATH +STATUS +CALLS +PAID +EARNED +UNDELIVERED +ERRORS\\n${id} +/v1/cli-shop/echo +active +1 +0\\.02 USDC +0\\.0192 USDC +0 +\\d+$`, 'm'));

  // The seller's earnings (20000 paid, 4 % proxy take) and a payout of them now, sent on Base.
  const earned = await paycallJson(['account', ...wallet]);
  assert.equal(earned.status, 200);
  await assertMatchesContract('getAccount', 200, earned.body);
  assert.deepEqual({ earned: earned.body.earned_atomic, withdrawable: earned.body.withdrawable_atomic }, { earned: '19200', withdrawable: '19200' });
  const payout = await paycallJson(['payout', ...wallet]);
  assert.equal(payout.status, 202, JSON.stringify(payout.body));
  await assertMatchesContract('requestPayout', 202, payout.body);
  assert.deepEqual({ amount: payout.body.amount_atomic, chain: payout.body.chain, to: payout.body.to }, { amount: '19200', chain: 'base', to: registered.body.wallet });
  await eventually('the payout is confirmed', async () => {
    await t.app.runScheduledJobs();
    return (await paycallJson(['account', ...wallet])).body.withdrawable_atomic === '0';
  });
  const paidOut = await paycall(['payout', ...wallet]);
  assert.equal(paidOut.code, 1, 'nothing left to pay');
  assert.match(paidOut.stderr, /409 nothing_to_pay|429 rate_limited/);

  const updated = await paycallJson(['seller', 'update', id, '--price', '25000', '--desc', 'Echoes, dearer', ...wallet]);
  assert.equal(updated.status, 200, JSON.stringify(updated.body));
  assert.deepEqual({ price: updated.body.atomic_price, desc: updated.body.desc, upstream: updated.body.upstream_url }, { price: '25000', desc: 'Echoes, dearer', upstream: `${upstream.url}/echo` });

  const deleted = await paycallJson(['seller', 'delete', id, ...wallet]);
  assert.equal(deleted.status, 200);
  assert.deepEqual((await paycallJson(['seller', 'list', ...wallet])).body.endpoints, []);
  const resumed = await paycallJson(['seller', 'resume', ...wallet]);
  assert.equal(resumed.status, 200);
  assert.deepEqual(resumed.body.resumed_endpoint_ids, []);

  // The service's refusals: exit 1 with its error on stderr.
  const again = await paycall(['seller', 'register', 'cli-shop-2', ...wallet]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /409 wallet_already_registered/);
  const gone = await paycall(['seller', 'delete', id, ...wallet]);
  assert.equal(gone.code, 1);
  assert.equal(gone.stdout, '');
  // The service's refusal on stderr, with a hint that names the command to run, not an HTTP route.
  assert.match(gone.stderr, /^paycall: .+ \(404 endpoint_not_found\)\nhint: see the ids of your endpoints: paycall seller list\n$/);
  assert.match(again.stderr, /^hint: this wallet sells already: paycall seller list$/m);
  assert.doesNotMatch(again.stderr + gone.stderr + paidOut.stderr, /\/v1\/|POST |GET /);
});

test('paycall seller with a Solana wallet: the devnet account by default, or PAYCALL_WALLET_KEY', async () => {
  const fromDevnet = await paycallJson(['seller', 'register', 'cli-sol', '--chain', 'solana']);
  assert.equal(fromDevnet.status, 201, JSON.stringify(fromDevnet.body));
  assert.equal(fromDevnet.body.wallet, solanaActionSigner(devnet.info.accounts[0].solanaSecretKey).wallet);
  assert.equal(fromDevnet.body.payout_chain, 'solana');
  const other = devnet.info.accounts[1].solanaSecretKey;
  const fromEnv = await paycallJson(['seller', 'register', 'cli-sol-2'], { env: { PAYCALL_WALLET_KEY: other } });
  assert.equal(fromEnv.status, 201, JSON.stringify(fromEnv.body));
  assert.equal(fromEnv.body.wallet, solanaActionSigner(other).wallet);
});

test('paycall seller register with --add-wallet: shape A, every key signs the binding payload, paid on --payout-chain', async () => {
  const evmFile = join(dir, 'multi-evm.key');
  const solFile = join(dir, 'multi-sol.key');
  const evmKey = generatePrivateKey();
  const solKey = bs58.encode(nacl.sign.keyPair().secretKey);
  await writeFile(evmFile, evmKey);
  await writeFile(solFile, solKey);
  const evm = privateKeyToAccount(evmKey).address;
  const sol = solanaActionSigner(solKey).wallet;
  const registered = await paycallJson(['seller', 'register', 'cli-multi', '--key-file', evmFile, '--add-wallet', `polygon=${evmFile}`, '--add-wallet', `solana=${solFile}`, '--payout-chain', 'solana']);
  assert.equal(registered.status, 201, JSON.stringify(registered.body));
  await assertMatchesContract('registerSeller', 201, registered.body);
  assert.deepEqual({ wallet: registered.body.wallet, wallets: registered.body.wallets, payout_chain: registered.body.payout_chain }, { wallet: evm, wallets: { base: evm, polygon: evm, solana: sol }, payout_chain: 'solana' });
  // The Solana wallet acts for the seller with its own key.
  assert.equal((await paycallJson(['seller', 'list', '--key-file', solFile])).status, 200);

  const human = await paycall(['seller', 'register', 'cli-multi-2', '--key-file', solFile, '--payout-chain', 'solana']);
  assert.equal(human.code, 1, 'the Solana wallet owns cli-multi already');
  assert.match(human.stderr, /409 wallet_already_registered/);
  for (const [args, message] of [
    [['--add-wallet', `solana=${evmFile}`], /an EVM key cannot hold the solana wallet/],
    [['--add-wallet', `base=${evmFile}`], /base has a wallet already/],
    [['--add-wallet', `moon=${evmFile}`], /the chain must be one of/],
    [['--add-wallet', 'polygon'], /write <chain>=<key-file>/],
    [['--payout-chain', 'moon'], /--payout-chain must be one of/],
  ] as const) {
    const r = await paycall(['seller', 'register', 'cli-multi-3', '--key-file', evmFile, ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
});

test('wallet commands: --help everywhere, bad usage is exit 2', async () => {
  for (const cmd of [['seller', 'register'], ['seller', 'publish'], ['seller', 'list'], ['seller', 'update'], ['seller', 'delete'], ['seller', 'resume'], ['seller', 'stats'], ['seller', 'errors'], ['keys', 'issue'], ['keys', 'list'], ['keys', 'revoke'], ['account'], ['payout']]) {
    const r = await paycall([...cmd, '--help']);
    assert.equal(r.code, 0, cmd.join(' '));
    assert.match(r.stdout, /Exit codes:[\s\S]*4 {2}not offered/, cmd.join(' '));
  }
  assert.equal((await paycall(['seller', 'update', '1'])).code, 2, 'no change given');
  assert.equal((await paycall(['seller', 'publish', 'x', '--upstream', 'https://a.example', '--desc', 'd', '--price', '0'])).code, 2, 'price 0');
  assert.equal((await paycall(['seller', 'delete', 'one'])).code, 2, 'id not a number');
  // Without --api-key the listing is signed with the wallet key: a bad one is a usage error.
  assert.equal((await paycall(['keys', 'list'], { env: { PAYCALL_WALLET_KEY: 'not-a-key' } })).code, 2, 'no API key, a bad wallet key');
  const badKey = await paycall(['account'], { env: { PAYCALL_WALLET_KEY: 'not-a-key' } });
  assert.equal(badKey.code, 2);
  assert.match(badKey.stderr, /neither an EVM private key/);
});

/**
 * A stand-in for a service that records what the CLI sends: /v1/_meta names the service,
 * every other request is answered 501, as a deployment that does not offer an operation would
 * (an older version, say). The recorded requests are checked against the contract, as the server would.
 */
async function recordingService() {
  const seen: { req: IncomingMessage; url: URL; body: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/v1/_meta') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ service: 'paycall', version: '1.0.0', x402Version: 1, networks: [], signing_public_key: 'x', endpoints: [] }));
      seen.push({ req, url, body: Buffer.concat(chunks).toString() });
      res.writeHead(501, { 'content-type': 'application/json' }).end('{"error":"not_implemented","message":"not offered yet"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise((r) => server.close(r)) };
}

test('keys, account and payout send the requests of the contract, signed by the wallet (exit 4 while the service answers 501)', async () => {
  const rec = await recordingService();
  try {
    const key = generatePrivateKey();
    const wallet = privateKeyToAccount(key).address;
    const env = { PAYCALL_WALLET_KEY: key };
    for (const args of [['keys', 'issue', '--label', 'ci bot', '--scope', 'read', '--scope', 'balance:read'], ['keys', 'revoke', '7'], ['account'], ['payout'], ['keys', 'list', '--api-key', 'pc_live_abc'], ['keys', 'list']]) {
      const r = await paycall(args, { env, baseUrl: rec.url });
      assert.equal(r.code, 4, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /501 not_implemented/);
    }
    const contract = await testContract();
    const requests = rec.seen.map(({ req, url, body }) => {
      const match = contract.match(req.method!, url.pathname);
      assert.ok(match && match !== 'method_not_allowed', `${req.method} ${url.pathname} is an operation`);
      const parsed = body ? JSON.parse(body) : undefined;
      const issues = contract.validate(match.operation, { method: req.method!, path: url.pathname, headers: req.headers, query: Object.fromEntries(url.searchParams), body: parsed });
      assert.deepEqual(issues, [], `${match.operationId} is a valid request`);
      return { operationId: match.operationId, req, query: url.searchParams, body: parsed };
    });
    assert.deepEqual(requests.map((r) => r.operationId), ['issueApiKey', 'revokeApiKey', 'getAccount', 'requestPayout', 'listApiKeys', 'listApiKeys']);
    const [issue, revoke, account, payout, list, signedList] = requests;
    const verify = (action: string, payload: string, signature: string, timestamp: number) => verifyWalletSignature('paycall', { wallet, action, payload, signature, timestamp });
    assert.equal(issue.body.wallet, wallet);
    assert.deepEqual(issue.body.scopes, ['read', 'balance:read']);
    assert.ok(await verify('issue_api_key', JSON.stringify({ label: 'ci bot', scopes: ['read', 'balance:read'] }), issue.body.signature, issue.body.timestamp));
    assert.equal(revoke.req.headers['x-wallet'], wallet);
    assert.ok(await verify('revoke_api_key', '7', String(revoke.req.headers['x-signature']), Number(revoke.req.headers['x-timestamp'])));
    assert.equal(account.query.get('wallet'), wallet);
    assert.ok(await verify('read_account', wallet, account.query.get('sig')!, Number(account.query.get('ts'))));
    assert.ok(await verify('request_payout', wallet, payout.body.signature, payout.body.timestamp));
    assert.equal(list.req.headers.authorization, 'Bearer pc_live_abc');
    // Without --api-key the wallet signs the listing.
    assert.equal(signedList.req.headers.authorization, undefined);
    assert.equal(signedList.query.get('wallet'), wallet);
    assert.ok(await verify('list_api_keys', wallet, signedList.query.get('sig')!, Number(signedList.query.get('ts'))));
  } finally {
    await rec.close();
  }
});

test('keys and account against the service: issue, list with the key, the account by key and by signature, revoke', async () => {
  const key = generatePrivateKey();
  const env = { PAYCALL_WALLET_KEY: key };
  const issued = await paycallJson(['keys', 'issue', '--label', 'cli', '--scope', 'read', '--scope', 'balance:read'], { env });
  assert.equal(issued.status, 201, JSON.stringify(issued.body));
  await assertMatchesContract('issueApiKey', 201, issued.body);
  assert.match(issued.body.api_key, /^pc_live_[A-Za-z0-9_-]{43}$/);
  const listed = await paycallJson(['keys', 'list', '--api-key', issued.body.api_key]);
  assert.equal(listed.status, 200);
  await assertMatchesContract('listApiKeys', 200, listed.body);
  assert.deepEqual(listed.body.keys.map((k: { id: number }) => k.id), [issued.body.id]);
  assert.ok(!JSON.stringify(listed.body).includes(issued.body.api_key), 'the secret is never listed');
  const account = await paycallJson(['account'], { env });
  assert.equal(account.status, 200);
  await assertMatchesContract('getAccount', 200, account.body);
  assert.deepEqual({ wallet: account.body.wallet, earned: account.body.earned_atomic, spent: account.body.spent_atomic }, { wallet: privateKeyToAccount(key).address, earned: '0', spent: '0' });
  const notSeller = await paycall(['payout'], { env });
  assert.equal(notSeller.code, 1);
  assert.match(notSeller.stderr, /404 seller_not_found/);
  const revoked = await paycallJson(['keys', 'revoke', String(issued.body.id)], { env });
  assert.equal(revoked.status, 200);
  const dead = await paycall(['keys', 'list', '--api-key', issued.body.api_key]);
  assert.equal(dead.code, 1);
  assert.match(dead.stderr, /401 invalid_api_key/);
  // No live key left: the wallet's signature still lists them (PAYCALL_API_KEY unset).
  const signed = await paycallJson(['keys', 'list'], { env: { ...env, PAYCALL_API_KEY: '' } });
  assert.equal(signed.status, 200, JSON.stringify(signed.body));
  await assertMatchesContract('listApiKeys', 200, signed.body);
  assert.deepEqual(signed.body.keys.map((k: { id: number; revoked_at: number | null }) => [k.id, typeof k.revoked_at]), [[issued.body.id, 'number']]);
});

/** The devnet buyer's USDC per chain, from `paycall wallet --json`. */
async function usdcBalances(): Promise<string[]> {
  const r = await paycall(['wallet', '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).chains.map((c: { usdc_atomic: string }) => c.usdc_atomic);
}

test('--version, and usage errors as one line plus a hint: a missing file, a built-in without --file, an unknown option (exit 2, nothing paid)', async () => {
  const version = await paycall(['--version']);
  assert.equal(version.code, 0);
  assert.equal(version.stdout, `${JSON.parse(readFileSync('package.json', 'utf8')).version}\n`);
  const before = await usdcBalances();
  const missing = await paycall(['call', '/v1/pdf-text', '--file', join(dir, 'no-such.pdf'), '--yes']);
  assert.deepEqual({ code: missing.code, stdout: missing.stdout }, { code: 2, stdout: '' });
  assert.match(missing.stderr, /^paycall: --file .*no-such\.pdf: cannot read it \(no such file\)\nhint: /);
  const noFile = await paycall(['call', '/v1/pdf-md', '--yes']);
  assert.equal(noFile.code, 2);
  assert.equal(noFile.stderr, 'paycall: /v1/pdf-md needs a document: give --file <file>\nhint: paycall call /v1/pdf-md --file doc.pdf\n');
  const unknown = await paycall(['call', '/v1/pdf-md', '--flie', 'x.pdf']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /^paycall: unknown option '--flie'\n\(Did you mean --file\?\)\nhint: paycall call --help\n$/);
  const badSince = await paycall(['seller', 'errors', '--since', 'yesterday']);
  assert.equal(badSince.code, 2);
  assert.match(badSince.stderr, /^paycall: .*'yesterday' is invalid\. give a duration back from now .*\nhint: paycall seller errors --help\n$/);
  assert.equal((await paycall(['quote', '/v1/pdf-text'])).code, 2, 'a quote of a built-in needs the document too');
  assert.deepEqual(await usdcBalances(), before, 'nothing was paid');
});

test('paycall call prints the text of pdf-text and the Markdown of pdf-md, not their JSON', async () => {
  const file = join(dir, 'text.pdf');
  await writeFile(file, await makePdf(1, 'cli-plain'));
  const text = await paycall(['call', '/v1/pdf-text', '--file', file, '--yes']);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^cli-plain page 1/);
  assert.doesNotMatch(text.stdout, /^\{/);
  const md = await paycall(['call', '/v1/pdf-md', '--file', file, '--yes', '--chain', 'polygon']);
  assert.equal(md.code, 0, md.stderr);
  assert.match(md.stdout, /cli-plain page 1/);
  assert.doesNotMatch(md.stdout, /"markdown"/);
  assert.match(md.stderr, /price: 10000 USDC atomic units \(0\.01 USDC\) on polygon/);
});

test('paycall quote shows the price per chain from the 402 without paying; paycall wallet shows address, USDC and gas per chain', async () => {
  const file = join(dir, 'quote.pdf');
  await writeFile(file, await makePdf(3, 'cli-quote'));
  const wallet = await paycall(['wallet', '--json']);
  assert.equal(wallet.code, 0, wallet.stderr);
  const buyer = devnet.info.accounts[0];
  const evm = privateKeyToAccount(buyer.evmPrivateKey as `0x${string}`).address;
  const sol = solanaActionSigner(buyer.solanaSecretKey).wallet;
  const chains: { chain: string; address: string; usdc_atomic: string; gas: string }[] = JSON.parse(wallet.stdout).chains;
  assert.deepEqual(chains.map((c) => [c.chain, c.address]), [['base', evm], ['polygon', evm], ['solana', sol]]);
  for (const c of chains) {
    assert.match(c.usdc_atomic, /^\d+$/);
    assert.ok(BigInt(c.usdc_atomic) > 0n, `${c.chain}: the devnet funds its buyers with USDC`);
    assert.ok(Number(c.gas) > 0, `${c.chain}: and with gas`);
  }

  const q = await paycall(['quote', '/v1/pdf-md', '--file', file, '--json']);
  assert.equal(q.code, 0, q.stderr);
  const quoted = JSON.parse(q.stdout);
  assert.equal(quoted.status, 402);
  assert.deepEqual([...new Set(quoted.prices.map((p: { network: string }) => p.network))].sort(), ['base', 'polygon', 'solana']);
  for (const p of quoted.prices) assert.equal(p.amount, '30000', `3 pages at 10000 on ${p.network} ${p.scheme}`);
  const human = await paycall(['quote', '/v1/pdf-md', '--file', file]);
  assert.equal(human.code, 0, human.stderr);
  const [header, ...rows] = human.stdout.trimEnd().split('\n');
  assert.deepEqual(header.split(/ {2,}/), ['CHAIN', 'SCHEME', 'PRICE', 'ATOMIC', 'PAY TO']);
  assert.equal(rows.length, quoted.prices.length);
  assert.ok(rows.every((r) => / 0\.03 USDC +30000 /.test(r)), human.stdout);
  assert.deepEqual(await usdcBalances(), chains.map((c) => c.usdc_atomic), 'a quote pays nothing');

  const table = await paycall(['wallet']);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /^CHAIN +ADDRESS +USDC +GAS\nbase +0x[0-9a-fA-F]{40} +[\d.]+ USDC +[\d.]+ ETH\npolygon +0x[0-9a-fA-F]{40} +[\d.]+ USDC +[\d.]+ POL\nsolana +\w+ +[\d.]+ USDC +[\d.]+ SOL\n$/);
  const unknown = await paycall(['quote', '/v1/nobody/nothing']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^paycall: .+ \(404 [a-z_]+\)\n/);
});

test('paycall seller register --payout-chain on its own: one wallet, paid on the chain named', async () => {
  const keyFile = join(dir, 'payout-chain.key');
  await writeFile(keyFile, generatePrivateKey());
  const r = await paycallJson(['seller', 'register', 'cli-payout-chain', '--payout-chain', 'polygon', '--key-file', keyFile]);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(r.body.payout_chain, 'polygon');
  const human = await paycall(['account', '--key-file', keyFile]);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /^FIELD +VALUE\n/);
  assert.match(human.stdout, /^payout chain +polygon$/m);
  assert.match(human.stdout, /^withdrawable +0 USDC$/m);
  const noSolana = await paycall(['seller', 'register', 'cli-payout-sol', '--payout-chain', 'solana', '--key-file', keyFile]);
  assert.equal(noSolana.code, 2);
  assert.match(noSolana.stderr, /^paycall: --payout-chain solana: the wallet has no solana address\nhint: add one: paycall seller register cli-payout-sol --payout-chain solana --add-wallet solana=<key-file>\n$/);
});

test('on a terminal a paid call counts the seconds it waits; an upstream that fails ends with the error, a hint and what became of the payment', { skip: !existsSync('/usr/bin/script') && 'util-linux script is not installed' }, async () => {
  const keyFile = join(dir, 'flaky.key');
  await writeFile(keyFile, generatePrivateKey());
  assert.equal((await paycallJson(['seller', 'register', 'cli-flaky', '--key-file', keyFile])).status, 201);
  const published = await paycallJson(['seller', 'publish', 'flaky', '--upstream', `${upstream.url}/flaky`, '--price', '20000', '--desc', 'Fails once live', '--key-file', keyFile]);
  assert.equal(published.status, 201, JSON.stringify(published.body));
  await eventually('the endpoint is active', async () => {
    await t.app.runScheduledJobs();
    return (await paycallJson(['seller', 'list', '--key-file', keyFile])).body.endpoints[0]?.status === 'active';
  });
  upstream.rules.set('/flaky', 'fail');
  // util-linux `script` gives the command a terminal (stdin, stdout and stderr), as a person's shell would.
  const command = [process.execPath, 'cli/paycall.mjs', 'call', '/v1/cli-flaky/flaky', '--data', '{}', '--yes', '--base-url', t.baseUrl].map((a) => `'${a}'`).join(' ');
  const r = await new Promise<Run>((resolve) =>
    execFile('script', ['-qec', command, '/dev/null'], { env: { ...process.env, PAYCALL_DATA_DIR: devnet.dataDir, PAYCALL_WALLET_KEY: '' } }, (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr })),
  );
  const screen = r.stdout.replace(/\r\n/g, '\n');
  assert.equal(r.code, 1, screen);
  assert.match(screen, /payment sent; calling…\n/);
  assert.match(screen, /\rwaiting for the answer… 1 s/, 'the seconds waited, on one rewritten line');
  assert.match(screen, /paycall: The seller's upstream .* \(502 upstream_5xx\)\nhint: the seller’s upstream kept failing; try later/);
  assert.match(screen, /the payment of 0\.02 USDC on base was taken( \(transaction 0x[0-9a-f]{64}\))?; the seller is not paid for an undelivered call/);
});
