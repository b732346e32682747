/**
 * PayoutSender against the devnet: a payout lands once however often it is broadcast, a
 * prepared transaction that never went out is not_found and later provably expired, and a
 * payout the treasury cannot cover is refused before signing (or, when two prepared payouts
 * together overdraw it, the later one lands failed). The devnet's payout-only chains start on
 * demand and carry payouts too.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { createPublicClient, http, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { evmTokenBalance, solanaTokenBalance } from '../../devnet/buyer.ts';
import { createEvmPayoutSender } from '../../src/chains/evm-payout-sender.ts';
import { configuredPayoutChains, createPayoutSenders, warmPayoutChain } from '../../src/chains/create-payout-senders.ts';
import type { PayoutSender, PayoutSenders } from '../../src/chains/payout-sender.ts';
import { createSolanaPayoutSender } from '../../src/chains/solana-payout-sender.ts';
import { PAYOUT_ONLY_USDC_ADDRESSES } from '../../src/chains/usdc-addresses.ts';
import { loadConfig } from '../../src/config.ts';
import { devnetChains } from '../../src/devnet-profile.ts';
import { silentLogger } from '../../src/log.ts';
import { createDependencyProbe } from '../../src/metrics/dependency-probe.ts';
import { startTestApp, testConfig } from '../helpers/app.ts';
import { refusal } from '../helpers/chains.ts';
import { call, eventually, evmSigner } from '../helpers/sellers.ts';
import { multiChainRegistrationBody } from '../../sdk/wallet-actions.ts';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.ts';

let devnet: TestDevnet;
let senders: PayoutSenders;
before(async () => {
  devnet = await startTestDevnet();
  senders = createPayoutSenders(devnet.chains, silentLogger);
});
after(async () => {
  if (!devnet) return;
  const lazyPids = [devnet.pids.arbitrum, devnet.pids.optimism, devnet.pids.avalanche].filter((pid) => pid !== undefined);
  await devnet.stop();
  // The lazily started nodes stop with the devnet, and none starts after it.
  for (const pid of lazyPids) assert.throws(() => process.kill(pid, 0), /ESRCH/);
  await assert.rejects(devnet.ensureChain('arbitrum'), /stopped/);
});

const freshEvm = () => privateKeyToAccount(generatePrivateKey()).address;
const freshSolana = () => Keypair.generate().publicKey.toBase58();

/** USDC of `owner` on `chain`, read independently of the sender. */
function usdcOf(chain: 'base' | 'polygon' | 'solana', owner: string): Promise<bigint> {
  if (chain === 'solana') return solanaTokenBalance({ rpcUrl: devnet.chains.solana.rpcUrl, mint: devnet.chains.solana.usdcMint, owner });
  const c = devnet.chains[chain];
  return evmTokenBalance({ rpcUrl: c.rpcUrl, chainId: c.chainId, token: c.usdc, owner });
}

/** A sender on `chain` paying from a buyer account: tests that drain a treasury leave the real one alone. */
function senderFrom(chain: 'base' | 'solana', buyer: number): PayoutSender {
  const account = devnet.info.accounts[buyer];
  if (chain === 'solana') return createSolanaPayoutSender({ ...devnet.chains.solana, treasuryKey: account.solanaSecretKey, log: silentLogger });
  return createEvmPayoutSender({ chain: 'base', ...devnet.chains.base, treasuryKey: account.evmPrivateKey, log: silentLogger });
}

test('the factory builds a sender per payout chain; the devnet payout-only chains are not started by it', () => {
  assert.deepEqual(Object.keys(senders).sort(), ['arbitrum', 'avalanche', 'base', 'optimism', 'polygon', 'solana']);
  assert.equal(senders.base!.treasury, devnet.extras.addresses.evmTreasury);
  assert.equal(senders.arbitrum!.treasury, devnet.extras.addresses.evmTreasury);
  assert.equal(senders.solana!.treasury, devnet.extras.addresses.solanaTreasury);
  assert.equal(devnet.info.payoutChains, undefined);
  assert.equal(devnet.pids.arbitrum, undefined);
});

for (const chain of ['base', 'polygon', 'solana'] as const) {
  test(`${chain}: prepare, broadcast, lookup confirmed; the USDC arrives at a fresh destination`, async () => {
    const sender = senders[chain]!;
    const to = chain === 'solana' ? freshSolana() : freshEvm();
    const before = await sender.treasuryBalance();
    assert.equal(before, await usdcOf(chain, sender.treasury));
    const p = await sender.prepare(to, 12_345n);
    assert.equal(await sender.lookup(p), 'not_found');
    await sender.broadcast(p);
    assert.equal(await sender.lookup(p), 'confirmed');
    assert.equal(await usdcOf(chain, to), 12_345n);
    assert.equal(await sender.treasuryBalance(), before - 12_345n);
  });
}

for (const chain of ['base', 'solana'] as const) {
  test(`${chain}: broadcasting the same prepared payout twice moves the money once`, async () => {
    const sender = senders[chain]!;
    const to = chain === 'solana' ? freshSolana() : freshEvm();
    const p = await sender.prepare(to, 7_000n);
    await sender.broadcast(p);
    await sender.broadcast(p);
    assert.equal(await sender.lookup(p), 'confirmed');
    await sender.broadcast(p);
    assert.equal(await usdcOf(chain, to), 7_000n);
  });
}

test('base: two prepares in one process take consecutive nonces and both land', async () => {
  const sender = senders.base!;
  const [a, b] = await Promise.all([sender.prepare(freshEvm(), 1n), sender.prepare(freshEvm(), 2n)]);
  assert.equal(BigInt(b.validUntil) - BigInt(a.validUntil), 1n);
  await sender.broadcast(a);
  await sender.broadcast(b);
  assert.deepEqual([await sender.lookup(a), await sender.lookup(b)], ['confirmed', 'confirmed']);
});

test('base: the nonce of a payout prepared and abandoned is handed out again once its reservation lapses', async () => {
  const sender = createEvmPayoutSender({ chain: 'base', ...devnet.chains.base, treasuryKey: devnet.info.accounts[3].evmPrivateKey, log: silentLogger, nonceReservationMs: 200 });
  const abandoned = await sender.prepare(freshEvm(), 1n);
  const next = await sender.prepare(freshEvm(), 2n);
  assert.equal(BigInt(next.validUntil), BigInt(abandoned.validUntil) + 1n);
  await new Promise((r) => setTimeout(r, 250));
  // Both lapsed and neither went out: the chain's next nonce is free again, no gap is left.
  const later = await sender.prepare(freshEvm(), 3n);
  assert.equal(later.validUntil, abandoned.validUntil);
  await sender.broadcast(later);
  assert.equal(await sender.lookup(later), 'confirmed');
  assert.equal(await sender.lookup(abandoned), 'expired');
});

test('base: after a treasury key rotation, a payout signed by the old key is judged by its own signer', async () => {
  const to = freshEvm();
  const old = senderFrom('base', 2);
  const p = await old.prepare(to, 4_242n);
  // The service restarted with another treasury; the recorded payout is looked up and sent.
  const rotated = createEvmPayoutSender({ chain: 'base', ...devnet.chains.base, treasuryKey: devnet.info.accounts[1].evmPrivateKey, log: silentLogger });
  assert.notEqual(rotated.treasury, old.treasury);
  assert.equal(await rotated.lookup(p), 'not_found');
  await rotated.broadcast(p);
  assert.equal(await rotated.lookup(p), 'confirmed');
  assert.equal(await usdcOf('base', to), 4_242n);
});

test('base: a payout never broadcast is not_found, then expired once another transaction took its nonce', async () => {
  const to = freshEvm();
  const orphan = await senders.base!.prepare(to, 5_000n);
  assert.equal(await senders.base!.lookup(orphan), 'not_found');
  // A restarted process (nothing tracked locally) prepares with the chain's nonce: the same one.
  const restarted = createPayoutSenders(devnet.chains, silentLogger).base!;
  // (Another amount: the same transfer would sign to the very same bytes, hence the same hash.)
  const replacement = await restarted.prepare(to, 5_001n);
  assert.equal(replacement.validUntil, orphan.validUntil);
  await restarted.broadcast(replacement);
  assert.equal(await restarted.lookup(replacement), 'confirmed');
  assert.equal(await senders.base!.lookup(orphan), 'expired');
  assert.equal(await refusal(senders.base!.broadcast(orphan)), 'nonce_used');
  assert.equal(await usdcOf('base', to), 5_001n);
});

test('solana: a payout never broadcast is not_found, then expired once its blockhash is past', async () => {
  const sender = senders.solana!;
  const p = await sender.prepare(freshSolana(), 5_000n);
  assert.equal(await sender.lookup(p), 'not_found');
  devnet.advanceSolanaSlots(151);
  assert.equal(await sender.lookup(p), 'expired');
  assert.equal(await refusal(sender.broadcast(p)), 'blockhash_expired');
});

for (const chain of ['base', 'solana'] as const) {
  test(`${chain}: a payout above the treasury balance is refused before signing; two that overdraw together: the later one fails`, async () => {
    const sender = senderFrom(chain, 4);
    const held = await sender.treasuryBalance();
    assert.ok(held > 0n);
    assert.equal(await refusal(sender.prepare(chain === 'solana' ? freshSolana() : freshEvm(), held + 1n)), 'insufficient_funds');

    const share = (held * 6n) / 10n;
    const [toA, toB] = chain === 'solana' ? [freshSolana(), freshSolana()] : [freshEvm(), freshEvm()];
    const a = await sender.prepare(toA, share);
    const b = await sender.prepare(toB, share);
    await sender.broadcast(a);
    await sender.broadcast(b);
    assert.equal(await sender.lookup(a), 'confirmed');
    assert.equal(await sender.lookup(b), 'failed');
    assert.equal(await usdcOf(chain, toA), share);
    assert.equal(await usdcOf(chain, toB), 0n);
    assert.equal(await sender.treasuryBalance(), held - share);
  });
}

test('lookup refuses a prepared payout whose id does not match its bytes, or of another chain', async () => {
  const p = await senders.base!.prepare(freshEvm(), 1n);
  assert.equal(await refusal(senders.base!.lookup({ ...p, tx: `0x${'0'.repeat(64)}` })), 'invalid_payout');
  assert.equal(await refusal(senders.polygon!.lookup(p)), 'invalid_payout');
  const s = await senders.solana!.prepare(freshSolana(), 1n);
  assert.equal(await refusal(senders.solana!.lookup({ ...s, tx: bs58.encode(new Uint8Array(64).fill(1)) })), 'invalid_payout');
});

test('devnet: a payout-only chain starts once on demand, at its chain id, with USDC at the native address and the treasury funded', async () => {
  const [a, b] = await Promise.all([devnet.ensureChain('arbitrum'), devnet.ensureChain('arbitrum')]);
  assert.equal(a, b);
  assert.deepEqual(Object.keys(devnet.pids).sort(), ['arbitrum', 'base', 'polygon']);
  const client = createPublicClient({ transport: http(a.rpcUrl) });
  assert.equal(await client.getChainId(), 42161);
  assert.equal(a.usdc, '0xaf88d065e77c8cC2239327C5EDb3A432268e5831');
  assert.ok(((await client.getCode({ address: a.usdc as Address })) ?? '0x').length > 2);
  assert.equal(await evmTokenBalance({ rpcUrl: a.rpcUrl, chainId: 42161, token: a.usdc, owner: devnet.extras.addresses.evmTreasury }), 1_000_000n * 10n ** 6n);
  assert.ok((await client.getBalance({ address: devnet.extras.addresses.evmTreasury as Address })) > 10n ** 18n);
  // Recorded for outside readers, the rest of devnet.json untouched.
  const written = JSON.parse(await readFile(devnet.files.devnetJson, 'utf8'));
  assert.deepEqual(written.payoutChains, { arbitrum: { rpcUrl: a.rpcUrl, chainId: 42161, usdc: a.usdc } });
  assert.deepEqual(Object.keys(written.chains), ['base', 'polygon', 'solana']);
  assert.ok(JSON.parse(await readFile(devnet.files.signersJson, 'utf8')).extras.fakeUsdc.arbitrum);
});

test('devnet: a seller registering with a payout-only chain as payout_chain starts that chain in the background', async () => {
  assert.equal(devnet.pids.avalanche, undefined);
  const t = await startTestApp({ ...testConfig({ PAYCALL_DATA_DIR: devnet.dataDir, PGLITE_DIR: join(devnet.dataDir, 'pglite'), SCHEDULER_TICK_MS: '0' }), chains: devnet.chains });
  try {
    const seller = evmSigner();
    // Paid on avalanche, not on the wallet's shape-B chain: the wallets sign the binding payload.
    const body = await multiChainRegistrationBody({ slug: 'paid-on-avalanche', primary: seller, wallets: { avalanche: seller }, payoutChain: 'avalanche' });
    const answer = await call(t.baseUrl, 'registerSeller', 'POST', '/v1/_seller/register', { body });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.equal(answer.body.payout_chain, 'avalanche');
    await eventually('the avalanche node starts', async () => devnet.info.payoutChains?.avalanche !== undefined, 60_000);
    assert.ok(devnet.pids.avalanche);
    // Concurrent callers share that one start.
    assert.equal((await devnet.ensureChain('avalanche')).chainId, 43114);
    warmPayoutChain(devnet.chains, 'base', silentLogger);
  } finally {
    await t.close();
  }
});

for (const [chain, chainId] of [['arbitrum', 42161], ['optimism', 10], ['avalanche', 43114]] as const) {
  test(`${chain}: a payout through the lazily started chain arrives`, async () => {
    const sender = senders[chain]!;
    const to = freshEvm();
    const p = await sender.prepare(to, 31_337n);
    await sender.broadcast(p);
    assert.equal(await sender.lookup(p), 'confirmed');
    const c = devnet.info.payoutChains![chain]!;
    assert.equal(c.chainId, chainId);
    assert.equal(await evmTokenBalance({ rpcUrl: c.rpcUrl, chainId, token: c.usdc, owner: to }), 31_337n);
    assert.equal(await sender.treasuryBalance(), 1_000_000n * 10n ** 6n - 31_337n);
  });
}

test('metrics: the treasury gauge covers payout-only chains with an RPC URL, and never starts a lazy one', async () => {
  const arbitrum = devnet.info.payoutChains!.arbitrum!;
  const lazyStarts: string[] = [];
  const probe = createDependencyProbe({
    pingDatabase: async () => ({ ok: true }),
    adapters: null,
    chains: {
      ...devnet.chains,
      payoutChains: {
        arbitrum: { chainId: arbitrum.chainId, usdc: arbitrum.usdc, rpcUrl: arbitrum.rpcUrl },
        optimism: { chainId: 10, usdc: PAYOUT_ONLY_USDC_ADDRESSES.optimism, rpcUrl: async () => (lazyStarts.push('optimism'), 'http://127.0.0.1:9') },
      },
    },
    maxAgeMs: 0,
    timeoutMs: 5_000,
  });
  const { balances } = await probe();
  const usdc = (chain: string) => balances.find((b) => b.chain === chain && b.role === 'treasury' && b.asset === 'usdc')?.value;
  assert.equal(usdc('arbitrum'), Number(await senders.arbitrum!.treasuryBalance()) / 1e6);
  assert.ok(balances.some((b) => b.chain === 'arbitrum' && b.asset === 'native' && b.value > 0));
  assert.equal(usdc('optimism'), undefined);
  assert.deepEqual(lazyStarts, []);
  assert.ok(usdc('base')! > 0);
});

test('a service using this devnet from another process pays out on the payout-only chains started, with static URLs', async () => {
  const config = loadConfig({ PAYCALL_START_DEVNET: '0', PAYCALL_DATA_DIR: devnet.dataDir, LOG_LEVEL: 'silent' });
  const { chains } = await devnetChains(config, silentLogger);
  assert.deepEqual(chains?.payoutChains, devnet.info.payoutChains);
  assert.deepEqual(configuredPayoutChains(chains), ['base', 'polygon', 'arbitrum', 'optimism', 'avalanche', 'solana']);
  const p = await createPayoutSenders(chains!, silentLogger).optimism!.prepare(freshEvm(), 1n);
  assert.equal(await senders.optimism!.lookup(p), 'not_found');
});
