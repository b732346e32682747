/**
 * PayoutSender against the devnet: a payout lands once however often it is broadcast, a
 * prepared transaction that never went out is not_found and later provably expired, and a
 * payout the treasury cannot cover is refused before signing (or, when two prepared payouts
 * together overdraw it, the later one lands failed).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { evmTokenBalance, solanaTokenBalance } from '../devnet/buyer.ts';
import { createEvmPayoutSender } from '../src/chains/evm-payout-sender.ts';
import { createPayoutSenders } from '../src/chains/create-payout-senders.ts';
import type { PayoutSender, PayoutSenders } from '../src/chains/payout-sender.ts';
import { createSolanaPayoutSender } from '../src/chains/solana-payout-sender.ts';
import { silentLogger } from '../src/log.ts';
import { refusal } from './helpers/chains.ts';
import { startTestDevnet, type TestDevnet } from './helpers/devnet.ts';

let devnet: TestDevnet;
let senders: PayoutSenders;
before(async () => {
  devnet = await startTestDevnet();
  senders = createPayoutSenders(devnet.chains, silentLogger);
});
after(async () => {
  await devnet?.stop();
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

test('the factory builds senders for the payment chains only when no payout-only chain is configured', () => {
  assert.deepEqual(Object.keys(senders).sort(), ['base', 'polygon', 'solana']);
  assert.equal(senders.base!.treasury, devnet.extras.addresses.evmTreasury);
  assert.equal(senders.solana!.treasury, devnet.extras.addresses.solanaTreasury);
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

test('lookup refuses a prepared payout whose id does not match its bytes', async () => {
  const p = await senders.base!.prepare(freshEvm(), 1n);
  assert.equal(await refusal(senders.base!.lookup({ ...p, tx: `0x${'0'.repeat(64)}` })), 'invalid_payout');
  const s = await senders.solana!.prepare(freshSolana(), 1n);
  assert.equal(await refusal(senders.solana!.lookup({ ...s, tx: bs58.encode(new Uint8Array(64).fill(1)) })), 'invalid_payout');
});

