/**
 * The EVM adapter against the devnet's hardhat nodes: reading payments (right, wrong token,
 * wrong recipient, reverted, pending, unknown), EIP-3009 settlement and its refusals,
 * payouts and health. The same assertions run on Base and on Polygon.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPublicClient, createTestClient, createWalletClient, getAddress, hashDomain, http, parseAbi, toHex, type Abi, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { evmRevertedTransfer, evmTokenBalance, evmTransferToken, evmTransferUsdc, signEip3009Authorization } from '../../devnet/buyer.ts';
import { readTestUsdcArtifact } from '../../devnet/contracts/compile-test-usdc.ts';
import type { EvmChainAdapter } from '../../src/chains/chain-adapter.ts';
import { createChainAdapters } from '../../src/chains/create-chain-adapters.ts';
import { createEvmAdapter } from '../../src/chains/evm-adapter.ts';
import { USDC_ADDRESSES } from '../../src/chains/usdc-addresses.ts';
import { silentLogger } from '../../src/log.ts';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.ts';
import { confirmed, refusal } from '../helpers/chains.ts';

let devnet: TestDevnet;
let adapters: { base: EvmChainAdapter; polygon: EvmChainAdapter };

before(async () => {
  devnet = await startTestDevnet();
  const all = createChainAdapters(devnet.chains, silentLogger, { pollIntervalMs: 50, confirmTimeoutMs: 20_000 });
  adapters = { base: all.base, polygon: all.polygon };
});
after(async () => {
  await devnet?.stop();
});


for (const network of ['base', 'polygon'] as const) {
  describe(network, () => {
    const chain = () => devnet.info.chains[network];
    const buyer = (i: number) => devnet.info.accounts[i].evmPrivateKey;
    const buyerAddress = (i: number) => privateKeyToAccount(buyer(i) as Hex).address;
    const adapter = () => adapters[network];

    test('the test USDC sits at the mainnet address with the USDC EIP-712 domain', async () => {
      const c = chain();
      assert.equal(c.usdc, USDC_ADDRESSES[network]);
      assert.equal(c.chainId, network === 'base' ? 8453 : 137);
      const client = createPublicClient({ transport: http(c.rpcUrl) });
      assert.equal(await client.getChainId(), c.chainId);
      const abi = readTestUsdcArtifact().abi as Abi;
      const read = (functionName: string) => client.readContract({ address: c.usdc as Hex, abi, functionName });
      assert.equal(await read('name'), 'USD Coin');
      assert.equal(await read('version'), '2');
      assert.equal(await read('decimals'), 6);
      // Computed at run time from chainid and address(this), not frozen by a constructor.
      assert.equal(await read('DOMAIN_SEPARATOR'), hashDomain({ domain: { name: 'USD Coin', version: '2', chainId: BigInt(c.chainId), verifyingContract: c.usdc as Hex }, types: { EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ] } }));
    });

    test('a USDC payment is found with its amount, token, payer and block time', async () => {
      const c = chain();
      const hash = await evmTransferUsdc({ rpcUrl: c.rpcUrl, chainId: c.chainId, usdc: c.usdc, privateKey: buyer(0), to: c.payTo, amount: 1_234_567n });
      const found = confirmed(await adapter().getTransaction(hash));
      assert.deepEqual(found.transfers, [{ from: buyerAddress(0), to: getAddress(c.payTo), value: 1_234_567n, token: getAddress(c.usdc) }]);
      assert.equal(found.sender, buyerAddress(0));
      assert.ok(Number.isInteger(found.blockTime) && found.blockTime > 1_600_000_000);
    });

    test('a payment in another token reports that token', async () => {
      const c = chain();
      const fake = devnet.extras.fakeUsdc[network];
      const hash = await evmTransferToken({ rpcUrl: c.rpcUrl, chainId: c.chainId, token: fake, privateKey: buyer(1), to: c.payTo, amount: 5_000n });
      const found = confirmed(await adapter().getTransaction(hash));
      assert.deepEqual(found.transfers, [{ from: buyerAddress(1), to: getAddress(c.payTo), value: 5_000n, token: getAddress(fake) }]);
      assert.notEqual(found.transfers[0].token, adapter().usdc);
    });

    test('a payment to another address reports that recipient', async () => {
      const c = chain();
      const other = privateKeyToAccount(generatePrivateKey()).address;
      const hash = await evmTransferUsdc({ rpcUrl: c.rpcUrl, chainId: c.chainId, usdc: c.usdc, privateKey: buyer(1), to: other, amount: 7n });
      const found = confirmed(await adapter().getTransaction(hash));
      assert.deepEqual(found.transfers, [{ from: buyerAddress(1), to: other, value: 7n, token: getAddress(c.usdc) }]);
    });

    test('a reverted transaction is reported as reverted', async () => {
      const c = chain();
      const hash = await evmRevertedTransfer({ rpcUrl: c.rpcUrl, chainId: c.chainId, token: c.usdc, privateKey: buyer(2), to: c.payTo });
      const found = await adapter().getTransaction(hash);
      assert.equal(found.status, 'reverted');
      assert.ok(found.status === 'reverted' && found.blockTime > 1_600_000_000);
    });

    test('unknown and malformed hashes are not found', async () => {
      assert.deepEqual(await adapter().getTransaction(toHex(crypto.getRandomValues(new Uint8Array(32)))), { status: 'not_found' });
      assert.deepEqual(await adapter().getTransaction('0x1234'), { status: 'not_found' });
      assert.deepEqual(await adapter().getTransaction('not a hash'), { status: 'not_found' });
    });

    test('a transaction waiting in the mempool is pending, then confirmed once mined', async () => {
      const c = chain();
      const testClient = createTestClient({ mode: 'hardhat', transport: http(c.rpcUrl) });
      const account = privateKeyToAccount(buyer(3) as Hex);
      const wallet = createWalletClient({ account, transport: http(c.rpcUrl), chain: { id: c.chainId, name: network, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [c.rpcUrl] } } } });
      await testClient.setAutomine(false);
      try {
        const hash = await wallet.writeContract({ address: c.usdc as Hex, abi: parseAbi(['function transfer(address,uint256) returns (bool)']), functionName: 'transfer', args: [c.payTo as Hex, 11n], gas: 100_000n });
        assert.deepEqual(await adapter().getTransaction(hash), { status: 'pending' });
        await testClient.mine({ blocks: 1 });
        assert.equal(confirmed(await adapter().getTransaction(hash)).transfers[0].value, 11n);
      } finally {
        await testClient.setAutomine(true);
      }
    });

    test('an EIP-3009 authorization is settled by the relayer and its nonce is then used', async () => {
      const c = chain();
      const signed = await signEip3009Authorization({ chainId: c.chainId, usdc: c.usdc, privateKey: buyer(0), to: c.payTo, value: 250_000n });
      assert.equal(await adapter().authorizationUsed(signed.authorization.from, signed.authorization.nonce), false);
      const before = await evmTokenBalance({ rpcUrl: c.rpcUrl, chainId: c.chainId, token: c.usdc, owner: c.payTo });

      const settled = await adapter().submitAuthorization(signed.authorization, signed.signature);
      assert.match(settled.txHash, /^0x[0-9a-f]{64}$/);
      assert.ok(settled.blockTime > 1_600_000_000);
      assert.equal(await adapter().authorizationUsed(signed.authorization.from, signed.authorization.nonce), true);
      assert.equal(await evmTokenBalance({ rpcUrl: c.rpcUrl, chainId: c.chainId, token: c.usdc, owner: c.payTo }), before + 250_000n);

      const found = confirmed(await adapter().getTransaction(settled.txHash));
      assert.deepEqual(found.transfers, [{ from: buyerAddress(0), to: getAddress(c.payTo), value: 250_000n, token: getAddress(c.usdc) }]);
      assert.equal(found.sender, devnet.extras.addresses.evmRelayer);

      assert.equal(await refusal(adapter().submitAuthorization(signed.authorization, signed.signature)), 'authorization_used');
    });

    test('authorizations that cannot settle are refused with their reason', async () => {
      const c = chain();
      const now = BigInt(Math.floor(Date.now() / 1000));
      const base = { chainId: c.chainId, usdc: c.usdc, privateKey: buyer(4), to: c.payTo, value: 1_000n };

      const expired = await signEip3009Authorization({ ...base, validBefore: now - 10n });
      assert.equal(await refusal(adapter().submitAuthorization(expired.authorization, expired.signature)), 'authorization_expired');

      const early = await signEip3009Authorization({ ...base, validAfter: now + 3_600n });
      assert.equal(await refusal(adapter().submitAuthorization(early.authorization, early.signature)), 'authorization_not_yet_valid');

      // Signed by someone else than `from`.
      const forged = await signEip3009Authorization({ ...base, privateKey: buyer(3) });
      const claimed = { ...forged.authorization, from: buyerAddress(4) };
      assert.equal(await refusal(adapter().submitAuthorization(claimed, forged.signature)), 'invalid_signature');

      // Signed for another chain: the domain's chainId differs.
      const otherChain = await signEip3009Authorization({ ...base, chainId: c.chainId === 8453 ? 137 : 8453 });
      assert.equal(await refusal(adapter().submitAuthorization(otherChain.authorization, otherChain.signature)), 'invalid_signature');

      const broke = await signEip3009Authorization({ ...base, privateKey: generatePrivateKey() });
      assert.equal(await refusal(adapter().submitAuthorization(broke.authorization, broke.signature)), 'insufficient_funds');

      const elsewhere = await signEip3009Authorization({ ...base, to: buyerAddress(0) });
      assert.equal(await refusal(adapter().submitAuthorization(elsewhere.authorization, elsewhere.signature)), 'wrong_recipient');

      const ok = await signEip3009Authorization(base);
      assert.equal(await refusal(adapter().submitAuthorization(ok.authorization, '0xdeadbeef')), 'invalid_signature');
      assert.equal(await refusal(adapter().submitAuthorization({ ...ok.authorization, nonce: '0x12' }, ok.signature)), 'invalid_authorization');
      // None of them consumed the nonce of the valid one.
      assert.equal(await adapter().authorizationUsed(ok.authorization.from, ok.authorization.nonce), false);
    });

    test('a cancelled authorization counts as used; receiveWithAuthorization is payee-only', async () => {
      const c = chain();
      const abi = readTestUsdcArtifact().abi as Abi;
      const account = privateKeyToAccount(buyer(2) as Hex);
      const viemChain = { id: c.chainId, name: network, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [c.rpcUrl] } } };
      const client = createPublicClient({ chain: viemChain, transport: http(c.rpcUrl) });
      const wallet = createWalletClient({ account, chain: viemChain, transport: http(c.rpcUrl) });
      const nonce = toHex(crypto.getRandomValues(new Uint8Array(32)));
      const cancelSig = await account.signTypedData({
        domain: { name: 'USD Coin', version: '2', chainId: c.chainId, verifyingContract: c.usdc as Hex },
        types: { CancelAuthorization: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }] },
        primaryType: 'CancelAuthorization',
        message: { authorizer: account.address, nonce },
      });
      const cancel = await wallet.writeContract({ address: c.usdc as Hex, abi, functionName: 'cancelAuthorization', args: [account.address, nonce, cancelSig] });
      assert.equal((await client.waitForTransactionReceipt({ hash: cancel })).status, 'success');
      assert.equal(await adapter().authorizationUsed(account.address, nonce), true);
      const signed = await signEip3009Authorization({ chainId: c.chainId, usdc: c.usdc, privateKey: buyer(2), to: c.payTo, value: 1n, nonce });
      assert.equal(await refusal(adapter().submitAuthorization(signed.authorization, signed.signature)), 'authorization_used');

      // receiveWithAuthorization: only the payee may submit it.
      const receive = await account.signTypedData({
        domain: { name: 'USD Coin', version: '2', chainId: c.chainId, verifyingContract: c.usdc as Hex },
        types: {
          ReceiveWithAuthorization: [
            { name: 'from', type: 'address' },
            { name: 'to', type: 'address' },
            { name: 'value', type: 'uint256' },
            { name: 'validAfter', type: 'uint256' },
            { name: 'validBefore', type: 'uint256' },
            { name: 'nonce', type: 'bytes32' },
          ],
        },
        primaryType: 'ReceiveWithAuthorization',
        message: { from: account.address, to: getAddress(c.payTo), value: 3n, validAfter: 0n, validBefore: 2n ** 40n, nonce: toHex(crypto.getRandomValues(new Uint8Array(32))) },
      });
      void receive;
      await assert.rejects(
        client.simulateContract({
          account,
          address: c.usdc as Hex,
          abi,
          functionName: 'receiveWithAuthorization',
          args: [account.address, getAddress(c.payTo), 3n, 0n, 2n ** 40n, toHex(crypto.getRandomValues(new Uint8Array(32))), receive],
        }),
        /caller must be the payee/,
      );
    });

    test('the treasury pays out USDC', async () => {
      const c = chain();
      const seller = privateKeyToAccount(generatePrivateKey()).address;
      const hash = await adapter().sendUsdc(seller, 4_200_000n);
      assert.equal(await evmTokenBalance({ rpcUrl: c.rpcUrl, chainId: c.chainId, token: c.usdc, owner: seller }), 4_200_000n);
      const found = confirmed(await adapter().getTransaction(hash));
      assert.deepEqual(found.transfers, [{ from: getAddress(c.payTo), to: seller, value: 4_200_000n, token: getAddress(c.usdc) }]);
      assert.equal(await refusal(adapter().sendUsdc(seller, 10n ** 30n)), 'insufficient_funds');
      assert.equal(await refusal(adapter().sendUsdc('0xnope', 1n)), 'invalid_address');
      assert.equal(await refusal(adapter().sendUsdc(seller, 0n)), 'invalid_amount');
    });

    test('health reports the block number, and a chain id mismatch', async () => {
      const h = await adapter().health();
      assert.equal(h.ok, true);
      assert.match(h.blockNumber ?? '', /^\d+$/);
      assert.ok(h.latencyMs >= 0);
      const wrong = createEvmAdapter({
        network,
        config: { ...devnet.chains[network], chainId: 1 },
        relayerKey: devnet.signers.evmRelayerKey,
        treasuryKey: devnet.signers.evmTreasuryKey,
        log: silentLogger,
      });
      const bad = await wrong.health();
      assert.equal(bad.ok, false);
      assert.match(bad.error ?? '', /chain/);
    });
  });
}

test('health reports an unreachable RPC as not ok', async () => {
  const dead = createEvmAdapter({
    network: 'base',
    config: { ...devnet.chains.base, rpcUrl: 'http://127.0.0.1:9' },
    relayerKey: devnet.signers.evmRelayerKey,
    treasuryKey: devnet.signers.evmTreasuryKey,
    log: silentLogger,
    rpcTimeoutMs: 2_000,
  });
  const h = await dead.health();
  assert.equal(h.ok, false);
  assert.ok(h.error);
});
