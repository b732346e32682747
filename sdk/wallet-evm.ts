/**
 * What a buyer's EVM wallet does, against any RPC URL (the devnet or mainnet): pay USDC, sign
 * an EIP-3009 authorization or submit one, read a balance, and produce the failure cases
 * (another token, a reverted transaction). The Solana half is sdk/wallet-solana.ts.
 */
import { randomBytes } from 'node:crypto';
import { createPublicClient, createWalletClient, defineChain, getAddress, http, parseAbi, parseSignature, toHex, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '../src/chains/usdc-abi.ts';

const erc20Abi = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'function balanceOf(address account) view returns (uint256)',
]);

const chainOf = (chainId: number, rpcUrl: string) =>
  defineChain({ id: chainId, name: `chain-${chainId}`, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });

function evmClients(rpcUrl: string, chainId: number, privateKey: string) {
  const chain = chainOf(chainId, rpcUrl);
  const transport = http(rpcUrl);
  const account = privateKeyToAccount(privateKey as Hex);
  return {
    account,
    client: createPublicClient({ chain, transport, pollingInterval: 50 }),
    wallet: createWalletClient({ account, chain, transport }),
  };
}

export interface EvmTransferInput {
  rpcUrl: string;
  chainId: number;
  privateKey: string;
  to: string;
  amount: bigint;
}

/** ERC-20 transfer of any token; waits for the receipt and throws if it reverted. */
export async function evmTransferToken(input: EvmTransferInput & { token: string }): Promise<Hex> {
  const { client, wallet } = evmClients(input.rpcUrl, input.chainId, input.privateKey);
  const hash = await wallet.writeContract({ address: getAddress(input.token), abi: erc20Abi, functionName: 'transfer', args: [getAddress(input.to), input.amount] });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`transfer ${hash} reverted`);
  return hash;
}

/** A plain USDC payment (`exact` scheme with a tx hash). */
export async function evmTransferUsdc(input: EvmTransferInput & { usdc: string }): Promise<Hex> {
  return evmTransferToken({ ...input, token: input.usdc });
}

/**
 * A transaction that is mined and reverts: a transfer of more than the balance, with a fixed gas
 * limit so that no gas estimation refuses it first. Returns the hash once mined.
 */
export async function evmRevertedTransfer(input: Omit<EvmTransferInput, 'amount'> & { token: string }): Promise<Hex> {
  const { account, client, wallet } = evmClients(input.rpcUrl, input.chainId, input.privateKey);
  const balance = await client.readContract({ address: getAddress(input.token), abi: erc20Abi, functionName: 'balanceOf', args: [account.address] });
  const hash = await wallet.writeContract({
    address: getAddress(input.token),
    abi: erc20Abi,
    functionName: 'transfer',
    args: [getAddress(input.to), balance + 1n],
    gas: 100_000n,
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'reverted') throw new Error(`transfer ${hash} was expected to revert`);
  return hash;
}

export async function evmTokenBalance(input: { rpcUrl: string; chainId: number; token: string; owner: string }): Promise<bigint> {
  const client = createPublicClient({ chain: chainOf(input.chainId, input.rpcUrl), transport: http(input.rpcUrl) });
  return client.readContract({ address: getAddress(input.token), abi: erc20Abi, functionName: 'balanceOf', args: [getAddress(input.owner)] });
}

export interface SignedAuthorization {
  authorization: { from: string; to: string; value: string; validAfter: string; validBefore: string; nonce: string };
  signature: Hex;
}

/**
 * Signs an EIP-3009 TransferWithAuthorization (the x402 `exact` EVM payload, and the
 * X-Session-Token rail). Defaults: valid from 0 until one hour from now, random nonce.
 */
export async function signEip3009Authorization(input: {
  chainId: number;
  usdc: string;
  privateKey: string;
  to: string;
  value: bigint;
  validAfter?: bigint;
  validBefore?: bigint;
  nonce?: Hex;
  /** EIP-712 domain of the token (USDC: "USD Coin", "2"). */
  name?: string;
  version?: string;
}): Promise<SignedAuthorization> {
  const account = privateKeyToAccount(input.privateKey as Hex);
  const message = {
    from: account.address,
    to: getAddress(input.to),
    value: input.value,
    validAfter: input.validAfter ?? 0n,
    validBefore: input.validBefore ?? BigInt(Math.floor(Date.now() / 1000) + 3600),
    nonce: input.nonce ?? toHex(randomBytes(32)),
  };
  const signature = await account.signTypedData({
    domain: { name: input.name ?? 'USD Coin', version: input.version ?? '2', chainId: input.chainId, verifyingContract: getAddress(input.usdc) },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message,
  });
  return {
    authorization: {
      from: message.from,
      to: message.to,
      value: message.value.toString(),
      validAfter: message.validAfter.toString(),
      validBefore: message.validBefore.toString(),
      nonce: message.nonce,
    },
    signature,
  };
}

/**
 * Anyone holding a signed authorization can submit it: `privateKey` pays the gas. Used to
 * front-run the service, or to spend an authorization on something unrelated to it.
 */
export async function evmSubmitAuthorization(input: { rpcUrl: string; chainId: number; usdc: string; privateKey: string; signed: SignedAuthorization }): Promise<Hex> {
  const { client, wallet } = evmClients(input.rpcUrl, input.chainId, input.privateKey);
  const a = input.signed.authorization;
  const sig = parseSignature(input.signed.signature);
  const v = sig.v !== undefined ? Number(sig.v) : 27 + (sig.yParity ?? 0);
  const hash = await wallet.writeContract({
    address: getAddress(input.usdc),
    abi: parseAbi(['function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)']),
    functionName: 'transferWithAuthorization',
    args: [getAddress(a.from), getAddress(a.to), BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce as Hex, v, sig.r, sig.s],
  });
  const receipt = await client.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`transferWithAuthorization ${hash} reverted`);
  return hash;
}
