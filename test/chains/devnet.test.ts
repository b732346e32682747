/**
 * The devnet as a whole: devnet.json in DESIGN.md's shape with funded accounts, secrets kept
 * out of it, the committed USDC artifact matching its source, and no process left behind —
 * after stop(), after Ctrl-C of `npm run devnet`, and when its parent is killed outright.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Connection, PublicKey } from '@solana/web3.js';
import { createPublicClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { evmTokenBalance, evmTransferUsdc, solanaKeypair, solanaTokenBalance } from '../../devnet/buyer.ts';
import { compileTestUsdc, readTestUsdcArtifact } from '../../devnet/contracts/compile-test-usdc.ts';
import { USDC_ADDRESSES } from '../../src/chains/usdc-addresses.ts';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.ts';

let devnet: TestDevnet;
before(async () => {
  devnet = await startTestDevnet({ baseUrl: 'http://127.0.0.1:4999' });
});
after(async () => {
  await devnet?.stop();
});

/** A zombie (exited, not yet reaped: an orphan's new parent in a container may never reap it) counts as gone. */
const alive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

/** Polls a condition with a generous bound: a liveness wait, not a timing assertion. */
async function eventually(what: string, check: () => boolean | Promise<boolean>, boundMs = 20_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`${what} did not happen within ${boundMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The hardhat nodes among the processes whose parent chain leads to `root` (from /proc).
 * Filtered by command line: short-lived helpers (hardhat and EDR run e.g. `ldd` while
 * starting) may show up at any moment and are not what this file is about.
 */
async function descendants(root: number): Promise<number[]> {
  const all = await allDescendants(root);
  const hardhat: number[] = [];
  for (const pid of all) {
    try {
      if ((await readFile(`/proc/${pid}/cmdline`, 'utf8')).includes('hardhat')) hardhat.push(pid);
    } catch {
      // exited meanwhile
    }
  }
  return hardhat;
}

async function allDescendants(root: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      // The command may contain spaces and parentheses: the ppid is the 2nd field after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // exited meanwhile
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const [child, parent] of parents) if (parent === pid) (out.push(child), walk(child));
  };
  walk(root);
  return out;
}

test('devnet.json has exactly the DESIGN.md shape', async () => {
  const info = JSON.parse(await readFile(devnet.files.devnetJson, 'utf8'));
  assert.deepEqual(info, devnet.info);
  assert.deepEqual(Object.keys(info), ['baseUrl', 'chains', 'accounts']);
  assert.equal(info.baseUrl, 'http://127.0.0.1:4999');
  assert.deepEqual(Object.keys(info.chains), ['base', 'polygon', 'solana']);
  assert.deepEqual(Object.keys(info.chains.base), ['rpcUrl', 'chainId', 'usdc', 'payTo']);
  assert.deepEqual(Object.keys(info.chains.polygon), ['rpcUrl', 'chainId', 'usdc', 'payTo']);
  assert.deepEqual(Object.keys(info.chains.solana), ['rpcUrl', 'usdcMint', 'payTo', 'feePayer']);
  assert.deepEqual([info.chains.base.chainId, info.chains.polygon.chainId], [8453, 137]);
  assert.deepEqual([info.chains.base.usdc, info.chains.polygon.usdc, info.chains.solana.usdcMint], [USDC_ADDRESSES.base, USDC_ADDRESSES.polygon, USDC_ADDRESSES.solana]);
  for (const url of [info.chains.base.rpcUrl, info.chains.polygon.rpcUrl, info.chains.solana.rpcUrl]) assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.ok(info.accounts.length >= 5);
  for (const a of info.accounts) {
    assert.deepEqual(Object.keys(a), ['evmPrivateKey', 'solanaSecretKey']);
    assert.match(a.evmPrivateKey, /^0x[0-9a-f]{64}$/);
    assert.equal(solanaKeypair(a.solanaSecretKey).secretKey.length, 64);
  }
});

test('service secrets are in devnet-signers.json only', async () => {
  const text = await readFile(devnet.files.devnetJson, 'utf8');
  for (const secret of Object.values(devnet.signers)) assert.ok(!text.includes(secret), 'a signer secret leaked into devnet.json');
  const signers = JSON.parse(await readFile(devnet.files.signersJson, 'utf8'));
  assert.deepEqual(signers.signers, devnet.signers);
  assert.deepEqual(signers.extras.fakeUsdc, devnet.extras.fakeUsdc);
  assert.equal(privateKeyToAccount(devnet.signers.evmTreasuryKey as Hex).address, devnet.info.chains.base.payTo);
  assert.equal(solanaKeypair(devnet.signers.solanaFeePayerKey).publicKey.toBase58(), devnet.info.chains.solana.feePayer);
  assert.equal(solanaKeypair(devnet.signers.solanaTreasuryKey).publicKey.toBase58(), devnet.info.chains.solana.payTo);
  assert.deepEqual(devnet.chains.base, { ...devnet.info.chains.base });
});

test('every account has gas and USDC on every chain; relayer, treasury and fee payer have gas', async () => {
  const { base, polygon, solana } = devnet.info.chains;
  const connection = new Connection(solana.rpcUrl, 'confirmed');
  for (const c of [base, polygon]) {
    const client = createPublicClient({ transport: http(c.rpcUrl) });
    for (const a of devnet.info.accounts) {
      const address = privateKeyToAccount(a.evmPrivateKey as Hex).address;
      assert.ok((await client.getBalance({ address })) >= 10n ** 18n);
      assert.ok((await evmTokenBalance({ rpcUrl: c.rpcUrl, chainId: c.chainId, token: c.usdc, owner: address })) >= 1_000n * 10n ** 6n);
    }
    for (const address of [devnet.extras.addresses.evmRelayer, devnet.extras.addresses.evmTreasury] as Hex[]) assert.ok((await client.getBalance({ address })) >= 10n ** 18n);
  }
  for (const a of devnet.info.accounts) {
    const owner = solanaKeypair(a.solanaSecretKey).publicKey;
    assert.ok((await connection.getBalance(owner)) >= 1_000_000_000);
    assert.ok((await solanaTokenBalance({ rpcUrl: solana.rpcUrl, mint: solana.usdcMint, owner: owner.toBase58() })) >= 1_000n * 10n ** 6n);
  }
  for (const who of [solana.feePayer, solana.payTo]) assert.ok((await connection.getBalance(new PublicKey(who))) >= 1_000_000_000);
  // The treasury can receive USDC: its token account exists.
  assert.ok(await connection.getAccountInfo(new PublicKey(devnet.extras.addresses.solanaTreasuryUsdcAccount)));
});

test('the committed USDC artifact is what the source compiles to, and is what runs at the USDC address', async () => {
  const artifact = readTestUsdcArtifact();
  const fresh = compileTestUsdc();
  assert.equal(artifact.sourceSha256, fresh.sourceSha256, 'test-usdc.sol changed: run npx tsx devnet/contracts/compile-test-usdc.ts');
  assert.equal(artifact.deployedBytecode, fresh.deployedBytecode);
  assert.equal(artifact.bytecode, fresh.bytecode);
  assert.deepEqual(artifact.abi, fresh.abi);
  for (const c of [devnet.info.chains.base, devnet.info.chains.polygon]) {
    const client = createPublicClient({ transport: http(c.rpcUrl) });
    assert.equal(await client.getCode({ address: c.usdc as Hex }), artifact.deployedBytecode);
  }
});

test('a burst of transactions keeps the EVM chain clocks with the wall clock', async () => {
  // Automine gives each transaction its own block; with one second forced between blocks, 100
  // payments would push the chain 100 s ahead and honest payments would look late. The payment
  // code also refuses a block time before the quote, so the clock must not lag either.
  const TXS = 100;
  for (const c of [devnet.info.chains.base, devnet.info.chains.polygon]) {
    const client = createPublicClient({ transport: http(c.rpcUrl) });
    const startBlock = await client.getBlockNumber();
    // One sequential stream per buyer (nonces stay in order), all buyers at once.
    const perBuyer = Math.ceil(TXS / devnet.info.accounts.length);
    const hashes = (
      await Promise.all(
        devnet.info.accounts.map(async (a) => {
          const out: Hex[] = [];
          for (let i = 0; i < perBuyer; i++) {
            out.push(await evmTransferUsdc({ rpcUrl: c.rpcUrl, chainId: c.chainId, privateKey: a.evmPrivateKey, usdc: c.usdc, to: c.payTo, amount: 1n }));
          }
          return out;
        }),
      )
    ).flat();
    const wallNow = Date.now() / 1000;
    const latest = await client.getBlock();
    assert.ok(latest.number - startBlock >= BigInt(hashes.length), 'automine: one block per transaction');
    const drift = Number(latest.timestamp) - wallNow;
    // Block timestamps are whole seconds: up to 1 s behind by truncation, plus scheduling slack.
    assert.ok(drift <= 2 && drift >= -2, `chain ${c.chainId}: latest block is ${drift.toFixed(1)} s off the wall clock after ${hashes.length} transactions`);
  }
});

test('stop() ends the hardhat nodes and closes the Solana server', async () => {
  const other = await startTestDevnet();
  const { base, polygon } = other.pids;
  try {
    assert.ok(alive(base) && alive(polygon));
    const running = await descendants(process.pid);
    // Other hardhat-named helpers may come and go while nodes start; these two must be ours.
    assert.ok(running.includes(base) && running.includes(polygon), `hardhat nodes ${base}, ${polygon} among ${running}`);
  } finally {
    await other.stop();
  }
  assert.equal(alive(base), false);
  assert.equal(alive(polygon), false);
  await assert.rejects(fetch(other.info.chains.solana.rpcUrl, { method: 'POST', body: '{}' }));
  const left = await descendants(process.pid);
  assert.ok(!left.includes(base) && !left.includes(polygon), `stopped nodes still listed: ${left}`);
  // This file's own devnet is untouched.
  for (const pid of Object.values(devnet.pids)) assert.ok(alive(pid));
});

const MAIN = fileURLToPath(new URL('../../devnet/main.ts', import.meta.url));

async function runStandalone(): Promise<{ child: ReturnType<typeof spawn>; dataDir: string; output: () => string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'paycall-devnet-main-'));
  // node --import tsx runs main.ts in this one process (the tsx CLI would add a wrapper process).
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], { env: { ...process.env, PAYCALL_DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  await eventually('the standalone devnet start', () => output.includes('Ctrl-C to stop') || child.exitCode !== null, 60_000);
  assert.equal(child.exitCode, null, output);
  return { child, dataDir, output: () => output };
}

test('npm run devnet: prints where devnet.json is and stops cleanly on Ctrl-C', async () => {
  const { child, dataDir, output } = await runStandalone();
  try {
    assert.match(output(), new RegExp(`devnet.json +${join(dataDir, 'devnet.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    const info = JSON.parse(await readFile(join(dataDir, 'devnet.json'), 'utf8'));
    assert.ok(output().includes(info.chains.base.rpcUrl) && output().includes(info.chains.solana.rpcUrl));
    const children = await descendants(child.pid!);
    assert.equal(children.length, 2);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    assert.equal(await exited, 0);
    for (const pid of children) assert.equal(alive(pid), false);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('the hardhat nodes exit by themselves when the devnet process is killed', async () => {
  const { child, dataDir } = await runStandalone();
  try {
    const children = await descendants(child.pid!);
    assert.equal(children.length, 2);
    child.kill('SIGKILL');
    await eventually('the orphaned hardhat nodes exiting', () => children.every((pid) => !alive(pid)));
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
