/**
 * Prepares one hardhat node: the test USDC's runtime code at the mainnet USDC address
 * (hardhat_setCode runs no constructor, hence the masterMinter slot is written by hand),
 * a second copy deployed normally as the "fake USDC", gas for every actor and minted USDC
 * (real Mint/Transfer events, like on a real chain) for buyers and the treasury.
 */
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
  pad,
  type Abi,
  type Address,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Logger } from '../../src/log.ts';
import type { TestUsdcArtifact } from '../contracts/compile-test-usdc.ts';

export interface EvmChainSetup {
  rpcUrl: string;
  chainId: number;
  name: string;
  usdc: Address;
  artifact: TestUsdcArtifact;
  minterKey: Hex;
  /** Addresses that get native gas. */
  gasFor: Address[];
  /** Addresses that get USDC (and fake USDC). */
  usdcFor: Address[];
  nativeEach: bigint;
  usdcEach: bigint;
  log: Logger;
}

export function devnetChain(chainId: number, name: string, rpcUrl: string) {
  return defineChain({ id: chainId, name, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });
}

export async function setupEvmChain(s: EvmChainSetup): Promise<{ fakeUsdc: Address }> {
  const chain = devnetChain(s.chainId, s.name, s.rpcUrl);
  const transport = http(s.rpcUrl);
  const test = createTestClient({ mode: 'hardhat', chain, transport });
  const client = createPublicClient({ chain, transport });
  const minter = privateKeyToAccount(s.minterKey);
  const wallet = createWalletClient({ account: minter, chain, transport });
  const abi = s.artifact.abi as Abi;

  await test.setCode({ address: s.usdc, bytecode: s.artifact.deployedBytecode });
  await test.setStorageAt({ address: s.usdc, index: 0, value: pad(minter.address) });
  await Promise.all([...s.gasFor, minter.address].map((address) => test.setBalance({ address, value: s.nativeEach })));

  // Explicit nonces: the node mines each transaction on arrival (automine), so none is pending.
  let nonce = await client.getTransactionCount({ address: minter.address });
  const deployHash = await wallet.deployContract({ abi, bytecode: s.artifact.bytecode, nonce: nonce++ });
  const deployReceipt = await client.waitForTransactionReceipt({ hash: deployHash });
  if (!deployReceipt.contractAddress) throw new Error(`${s.name}: fake USDC deployment failed`);
  const fakeUsdc = getAddress(deployReceipt.contractAddress);

  let last: Hex = deployHash;
  for (const to of s.usdcFor) {
    for (const token of [s.usdc, fakeUsdc]) {
      last = await wallet.writeContract({ address: token, abi, functionName: 'mint', args: [to, s.usdcEach], nonce: nonce++, gas: 120_000n });
    }
  }
  const receipt = await client.waitForTransactionReceipt({ hash: last });
  if (receipt.status !== 'success') throw new Error(`${s.name}: minting test USDC failed`);
  s.log.debug('evm chain ready', { chain: s.name, usdc: s.usdc, fakeUsdc });
  return { fakeUsdc };
}
