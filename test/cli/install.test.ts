/**
 * The `paycall` command installed as a user installs it outside the checkout (README, "Install
 * it"): `npm pack` of the checkout, `npm install -g --prefix <temp>` of the tarball, then the
 * installed `paycall` run from another folder, with the machine's `node` (not the checkout's
 * pinned one): `--version`, and a paid call of a built-in against a service started here on the
 * devnet, found through PAYCALL_URL and paid with PAYCALL_WALLET_KEY (no .data/devnet.json
 * there). Also the README's client generation, `npx openapi-typescript <url>/openapi.yaml -o`,
 * run as written inside the checkout against the same service.
 *
 * The install fetches the command's dependencies (about 500 packages) from npm's cache or the
 * registry: it is the slow part of this file.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { makePdf, startPaidTestEnv, type PaidTestEnv } from '../helpers/paid.ts';

const root = new URL('../..', import.meta.url).pathname;
let env: PaidTestEnv;
let started: Promise<PaidTestEnv> | undefined;
let dir: string;
let prefix: string;
let elsewhere: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** PATH as a user's shell has it: without the checkout's node_modules/.bin (the pinned Node 24 that npm scripts put first). */
const userPath = () => (process.env.PATH ?? '').split(delimiter).filter((p) => !p.includes('node_modules')).join(delimiter);

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paycall-install-'));
  prefix = join(dir, 'prefix');
  elsewhere = join(dir, 'elsewhere');
  // The service (devnet, database, tool pool) starts while npm packs and installs: both are
  // mostly waiting (npm on its cache, the service on its chains), so they overlap well.
  started = startPaidTestEnv('cli_install', { TOOL_WORKERS: '1' });
  started.catch(() => undefined); // awaited below; a failed install must not leave it unhandled
  const packed = await run('npm', ['pack', '--pack-destination', dir, '--loglevel=error'], { cwd: root });
  assert.equal(packed.code, 0, packed.stderr);
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball, `npm pack wrote a tarball: ${packed.stdout}`);
  const installed = await run('npm', ['install', '-g', '--prefix', prefix, join(dir, tarball), '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir });
  assert.equal(installed.code, 0, installed.stderr);
  await import('node:fs/promises').then((fs) => fs.mkdir(elsewhere));
  env = await started;
});
after(async () => {
  // Closed even when the install failed before the start was awaited.
  await (await started?.catch(() => undefined))?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The installed command, from a folder that is not the checkout, with the user's PATH. */
const paycall = (args: string[], extra: Record<string, string> = {}) =>
  run(join(prefix, 'bin', 'paycall'), args, { cwd: elsewhere, env: { HOME: process.env.HOME, PATH: userPath(), PAYCALL_WALLET_KEY: '', PAYCALL_URL: '', ...extra } });

test('the installed paycall prints its version from another folder', async () => {
  const r = await paycall(['--version']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `${JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version}\n`);
  assert.equal(r.stderr, '');
});

test('the installed paycall pays for a call from another folder (PAYCALL_URL, PAYCALL_WALLET_KEY) and prints the text', async () => {
  await writeFile(join(elsewhere, 'doc.pdf'), await makePdf(2, 'installed-cli'));
  const noWallet = await paycall(['call', '/v1/pdf-text', '--file', 'doc.pdf', '--yes'], { PAYCALL_URL: env.t.baseUrl });
  assert.equal(noWallet.code, 2, 'no devnet.json here, no key given');
  assert.match(noWallet.stderr, /^paycall: no wallet\nhint: set PAYCALL_WALLET_KEY/);
  const r = await paycall(['call', '/v1/pdf-text', '--file', 'doc.pdf', '--yes'], { PAYCALL_URL: env.t.baseUrl, PAYCALL_WALLET_KEY: env.devnet.info.accounts[2].evmPrivateKey });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^installed-cli page 1[\s\S]*installed-cli page 2/);
  assert.match(r.stderr, /price: 10000 USDC atomic units \(0\.01 USDC\) on base/);
  assert.match(r.stderr, /paid: transaction 0x[0-9a-f]{64}/);
});

test("the README's client generation works as written inside the checkout: npx openapi-typescript <service>/openapi.yaml -o ...", async () => {
  const out = join(dir, 'paycall-api.ts');
  const r = await run('npx', ['openapi-typescript', `${env.t.baseUrl}/openapi.yaml`, '-o', out], { cwd: root });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const types = await readFile(out, 'utf8');
  assert.match(types, /export interface paths \{/);
  assert.match(types, /"\/v1\/\{slug\}\/\{path_suffix\}": \{/);
});
