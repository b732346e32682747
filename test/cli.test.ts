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
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { startUpstream, eventually, type TestUpstream } from './helpers/sellers.ts';
import { assertMatchesContract, testContract } from './helpers/contract.ts';
import { verifyWalletSignature } from '../src/http/wallet-signature.ts';
import { solanaActionSigner } from '../sdk/action-signer.ts';
import type { TestDevnet } from './helpers/devnet.ts';
import { makePdf, startPaidTestEnv, type PaidTestEnv } from './helpers/paid.ts';

let env: PaidTestEnv;
let devnet: TestDevnet;
let t: PaidTestEnv['t'];
let dir: string;
let upstream: TestUpstream;

before(async () => {
  env = await startPaidTestEnv('cli', { TOOL_WORKERS: '1' });
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
    execFile(process.execPath, ['cli/paycall.mjs', ...args, '--base-url', opts.baseUrl ?? t.baseUrl], { env: { ...process.env, PAYCALL_DATA_DIR: devnet.dataDir, PAYCALL_WALLET_KEY: '', PAYCALL_API_KEY: '', ...opts.env } }, (err, stdout, stderr) =>
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
  assert.match(human.stdout, new RegExp(`^${id}\tactive\t/v1/cli-shop/echo\t20000 per request\t`, 'm'));

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
  assert.match(gone.stderr, /404 endpoint_not_found/);
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
  assert.equal((await paycall(['keys', 'list'])).code, 2, 'no API key');
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
    for (const args of [['keys', 'issue', '--label', 'ci bot', '--scope', 'read', '--scope', 'balance:read'], ['keys', 'revoke', '7'], ['account'], ['payout'], ['keys', 'list', '--api-key', 'pc_live_abc']]) {
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
    assert.deepEqual(requests.map((r) => r.operationId), ['issueApiKey', 'revokeApiKey', 'getAccount', 'requestPayout', 'listApiKeys']);
    const [issue, revoke, account, payout, list] = requests;
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
});
