/**
 * The `paycall` command as a child process against the real service on the devnet: it quotes,
 * pays from the devnet's first account (found through devnet.json), and writes the answer;
 * the spend cap, the confirmation and bad usage each end with their own exit code.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestDevnet } from './helpers/devnet.ts';
import { makePdf, startPaidTestEnv, type PaidTestEnv } from './helpers/paid.ts';

let env: PaidTestEnv;
let devnet: TestDevnet;
let t: PaidTestEnv['t'];
let dir: string;

before(async () => {
  env = await startPaidTestEnv('cli', { TOOL_WORKERS: '1' });
  ({ devnet, t } = env);
  dir = await mkdtemp(join(tmpdir(), 'paycall-cli-'));
});
after(async () => {
  await env?.close();
  await rm(dir, { recursive: true, force: true });
});

function paycall(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['cli/paycall.mjs', ...args, '--base-url', t.baseUrl], { env: { ...process.env, PAYCALL_DATA_DIR: devnet.dataDir, PAYCALL_WALLET_KEY: '' } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
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
