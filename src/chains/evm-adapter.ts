/**
 * EVM chain adapter over JSON-RPC with viem: the same code reads the devnet's hardhat nodes
 * and Base / Polygon mainnet, only the configuration differs.
 */
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  getAddress,
  keccak256,
  toBytes,
  http,
  isAddress,
  parseSignature,
  recoverTypedDataAddress,
  WaitForTransactionReceiptTimeoutError,
  type Address,
  type Chain,
  type Hash,
  type Hex,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { chainConfig as opStackChainConfig } from 'viem/op-stack';
import type { EvmChainConfig } from '../config.ts';
import type { Logger } from '../log.ts';
import {  type AuthorizationTransfer, type ChainHealth, type Eip3009Authorization, type EvmChainAdapter, type EvmNetwork, type TokenTransfer, type TxLookup } from './chain-adapter.ts';
import { ChainError, type ChainErrorReason } from './chain-error.ts';
import { evmTransactionState } from './evm-transaction-state.ts';
import { createSerialQueue } from './serial-queue.ts';
import { createLru } from '../lib/lru.ts';
import { createJsonRpc } from './json-rpc.ts';
import { TRANSFER_WITH_AUTHORIZATION_TYPES, usdcAbi } from './usdc-abi.ts';
import { USDC_EIP712_NAME, USDC_EIP712_VERSION } from './usdc-addresses.ts';

export interface EvmAdapterOptions {
  network: EvmNetwork;
  config: EvmChainConfig;
  /** Pays gas for transferWithAuthorization (EIP-3009 settlement). */
  relayerKey: string;
  /** Holds the USDC that payouts send. */
  treasuryKey: string;
  log: Logger;
  /** Bound on waiting for our own transactions to be mined (default 30 s). */
  receiptTimeoutMs?: number;
  /** Receipt polling interval (default 1 s; the devnet mines at once, so tests pass less). */
  pollingIntervalMs?: number;
  /** Blocks including the transaction's own before it counts as confirmed (default 1). */
  confirmations?: number;
  /** Timeout of one RPC call (default 10 s). */
  rpcTimeoutMs?: number;
}

/** The fields of an eth_getTransactionReceipt answer that a payment's check reads (hex strings, as the node sends them). */
interface RawReceipt {
  status: string;
  blockHash: string;
  blockNumber: string;
  from: string;
  logs: { address: string; topics: string[]; data: string }[];
}

/** OP-stack chains (Base mainnet and Sepolia) need viem's OP formatters for deposit transactions. */
const OP_STACK_CHAIN_IDS = new Set([8453, 84532]);

// keccak256("Transfer(address,address,uint256)")
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
// keccak256("AuthorizationUsed(address,bytes32)")
const AUTHORIZATION_USED_TOPIC = keccak256(toBytes('AuthorizationUsed(address,bytes32)'));
const HASH = /^0x[0-9a-fA-F]{64}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const UINT = /^\d{1,78}$/;

/** A viem chain for `chainId` at `rpcUrl` (also used by the payout sender, for every EVM payout chain). */
export function chainFor(chainId: number, network: string, rpcUrl: string): Chain {
  // Not viem/chains: importing it loads every chain definition (about half a second at start).
  const nativeCurrency = network === 'polygon' ? { name: 'POL', symbol: 'POL', decimals: 18 } : { name: 'Ether', symbol: 'ETH', decimals: 18 };
  const chain = { id: chainId, name: network, nativeCurrency, rpcUrls: { default: { http: [rpcUrl] } } };
  return defineChain(OP_STACK_CHAIN_IDS.has(chainId) ? { ...opStackChainConfig, ...chain } : chain);
}

/** Maps FiatToken revert strings (identical on mainnet USDC and the devnet copy) to stable reasons. */
export function reasonFromRevert(text: string): ChainErrorReason | null {
  if (/authorization is expired/i.test(text)) return 'authorization_expired';
  if (/authorization is not yet valid/i.test(text)) return 'authorization_not_yet_valid';
  if (/authorization is used or canceled/i.test(text)) return 'authorization_used';
  if (/invalid signature/i.test(text)) return 'invalid_signature';
  if (/exceeds balance/i.test(text)) return 'insufficient_funds';
  if (/blacklisted/i.test(text)) return 'account_blacklisted';
  if (/paused/i.test(text)) return 'token_paused';
  return null;
}

function revertText(e: unknown): string {
  if (e instanceof BaseError) {
    const reverted = e.walk((err) => err instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError) return reverted.reason ?? reverted.shortMessage;
    return `${e.shortMessage} ${e.details ?? ''}`;
  }
  return e instanceof Error ? e.message : String(e);
}

/** A simulation that reverted: the contract refused, as opposed to an unreachable node. */
function isRevert(e: unknown): boolean {
  return e instanceof BaseError && e.walk((err) => err instanceof ContractFunctionRevertedError) !== null;
}

export function decodeTransferLogs(logs: readonly { address: string; topics: readonly string[]; data: string }[]): TokenTransfer[] {
  const out: TokenTransfer[] = [];
  for (const log of logs) {
    // ERC-721 Transfer has the same topic but a third indexed argument (4 topics) and no data.
    if (log.topics[0]?.toLowerCase() !== TRANSFER_TOPIC || log.topics.length !== 3 || log.data.length !== 66) continue;
    out.push({
      from: getAddress(`0x${log.topics[1].slice(26)}`),
      to: getAddress(`0x${log.topics[2].slice(26)}`),
      value: BigInt(log.data),
      token: getAddress(log.address),
    });
  }
  return out;
}

interface ParsedAuthorization {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
}

function parseAuthorization(a: Eip3009Authorization): ParsedAuthorization {
  const bad = (field: string) => new ChainError('invalid_authorization', `authorization.${field} is malformed`);
  if (!isAddress(a.from, { strict: false })) throw bad('from');
  if (!isAddress(a.to, { strict: false })) throw bad('to');
  for (const f of ['value', 'validAfter', 'validBefore'] as const) if (!UINT.test(String(a[f]))) throw bad(f);
  if (!BYTES32.test(a.nonce)) throw bad('nonce');
  return {
    from: getAddress(a.from),
    to: getAddress(a.to),
    value: BigInt(a.value),
    validAfter: BigInt(a.validAfter),
    validBefore: BigInt(a.validBefore),
    nonce: a.nonce as Hex,
  };
}

export function createEvmAdapter(opts: EvmAdapterOptions): EvmChainAdapter {
  const { network, config } = opts;
  const log = opts.log.child({ chain: network });
  const chain = chainFor(config.chainId, network, config.rpcUrl);
  const transport = http(config.rpcUrl, { timeout: opts.rpcTimeoutMs ?? 10_000, retryCount: 2 });
  const pollingInterval = opts.pollingIntervalMs ?? 1_000;
  const client = createPublicClient({ chain, transport, pollingInterval });
  // A buyer's receipt and its block's time, read on every paid call: the lean client (json-rpc.ts).
  const rpc = createJsonRpc(config.rpcUrl, { timeoutMs: opts.rpcTimeoutMs ?? 10_000, retryCount: 2 });
  const relayer = privateKeyToAccount(opts.relayerKey as Hex);
  const treasury = privateKeyToAccount(opts.treasuryKey as Hex);
  const relayerWallet = createWalletClient({ account: relayer, chain, transport, pollingInterval });
  const treasuryWallet = createWalletClient({ account: treasury, chain, transport, pollingInterval });
  const relayerQueue = createSerialQueue();
  const treasuryQueue = createSerialQueue();
  const usdc = getAddress(config.usdc);
  const payTo = getAddress(config.payTo);
  const receiptTimeoutMs = opts.receiptTimeoutMs ?? 30_000;
  const confirmations = Math.max(1, opts.confirmations ?? 1);

  let domainPromise: Promise<{ name: string; version: string }> | null = null;
  // The token's own name()/version() is the EIP-712 domain; read once, with USDC's as fallback.
  const domain = () =>
    (domainPromise ??= Promise.all([
      client.readContract({ address: usdc, abi: usdcAbi, functionName: 'name' }),
      client.readContract({ address: usdc, abi: usdcAbi, functionName: 'version' }),
    ]).then(
      ([name, version]) => ({ name, version }),
      (e: unknown) => {
        domainPromise = null;
        log.warn('reading the USDC EIP-712 domain failed; using USD Coin / 2', { error: e });
        return { name: USDC_EIP712_NAME, version: USDC_EIP712_VERSION };
      },
    ));

  // A block's time by its hash: a hash names one block for good (a reorged height has another
  // hash), so a time read once is kept. Payments in the same block (a busy chain's 2-second block
  // holds many) then cost one JSON-RPC call each instead of two.
  const blockTimes = createLru<string, number>(256);
  const blockTime = async ({ blockHash }: { blockHash: string }) => {
    let time = blockTimes.get(blockHash);
    if (time === undefined) {
      const block = await rpc<{ timestamp: string } | null>('eth_getBlockByHash', [blockHash, false]);
      if (!block) throw new Error(`block ${blockHash} is not known to the ${network} node (reorganised away?)`);
      blockTimes.set(blockHash, (time = Number(BigInt(block.timestamp))));
    }
    return time;
  };

  /** Waits (bounded) for one of our transactions and turns its fate into a result or a ChainError. */
  const awaitMined = async (hash: Hash, what: string): Promise<{ receipt: TransactionReceipt; blockTime: number }> => {
    let receipt: TransactionReceipt;
    try {
      receipt = await client.waitForTransactionReceipt({ hash, timeout: receiptTimeoutMs, pollingInterval, confirmations });
    } catch (e) {
      if (e instanceof WaitForTransactionReceiptTimeoutError) {
        throw new ChainError('confirmation_timeout', `${what} ${hash} was not mined within ${receiptTimeoutMs} ms on ${network}; it may still land`, { cause: e });
      }
      throw e;
    }
    if (receipt.status !== 'success') throw new ChainError('reverted', `${what} ${hash} reverted on ${network}`);
    return { receipt, blockTime: await blockTime(receipt) };
  };

  const refuseFromRevert = (e: unknown, fallback: ChainErrorReason): never => {
    const text = revertText(e);
    throw new ChainError(reasonFromRevert(text) ?? fallback, text.trim(), { cause: e });
  };

  /**
   * The EIP-712 signature must recover to `from` before anything is reserved or spent on an
   * authorization. Contract wallets sign with ERC-1271: the chain checks those (eth_call).
   */
  const verifyAuthorizationSignature = async (a: ParsedAuthorization, signature: string): Promise<void> => {
    if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) throw new ChainError('invalid_signature', 'the signature is not a 65-byte hex string');
    const dom = await domain();
    const typed = {
      domain: { name: dom.name, version: dom.version, chainId: config.chainId, verifyingContract: usdc },
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: 'TransferWithAuthorization' as const,
      message: { from: a.from, to: a.to, value: a.value, validAfter: a.validAfter, validBefore: a.validBefore, nonce: a.nonce },
      signature: signature as Hex,
    };
    let signer: Address | null = null;
    try {
      signer = await recoverTypedDataAddress(typed);
    } catch {
      signer = null;
    }
    if (signer === a.from) return;
    const code = await client.getCode({ address: a.from });
    if (code && code !== '0x' && (await client.verifyTypedData({ address: a.from, ...typed }).catch(() => false))) return;
    throw new ChainError('invalid_signature', signer ? `the signature is by ${signer}, not ${a.from}` : 'the signature does not recover to an address');
  };

  /** What an authorization's verdict depends on, read together at `latest`: its nonce's state, the chain time and the payer's balance. */
  const authorizationAtLatest = async (a: ParsedAuthorization) => {
    const [used, latest, balance] = await Promise.all([
      client.readContract({ address: usdc, abi: usdcAbi, functionName: 'authorizationState', args: [a.from, a.nonce], blockTag: 'latest' }),
      client.getBlock({ blockTag: 'latest' }),
      client.readContract({ address: usdc, abi: usdcAbi, functionName: 'balanceOf', args: [a.from], blockTag: 'latest' }),
    ]);
    return { used, latest, balance };
  };

  /** The contract wants validAfter < t < validBefore for the block that includes the transfer. */
  const checkValidityWindow = (a: ParsedAuthorization, chainNow: bigint) => {
    const wallNow = BigInt(Math.floor(Date.now() / 1000));
    const now = chainNow > wallNow ? chainNow : wallNow;
    if (a.validBefore <= now + 1n) throw new ChainError('authorization_expired', `validBefore ${a.validBefore} is not after the chain time ${chainNow}`);
    if (a.validAfter >= chainNow + 1n && a.validAfter >= wallNow) {
      throw new ChainError('authorization_not_yet_valid', `validAfter ${a.validAfter} is not before the chain time ${chainNow}`);
    }
  };

  async function findAuthorizationTransfer(authorizer: string, nonce: string, lookbackBlocks = 50_000n): Promise<AuthorizationTransfer | null> {
    if (!isAddress(authorizer, { strict: false }) || !BYTES32.test(nonce)) return null;
    const from = getAddress(authorizer);
    const latest = await client.getBlockNumber({ cacheTime: 0 });
    const logs = await client.getContractEvents({
      address: usdc,
      abi: usdcAbi,
      eventName: 'AuthorizationUsed',
      args: { authorizer: from, nonce: nonce as Hex },
      fromBlock: latest > lookbackBlocks ? latest - lookbackBlocks : 0n,
      toBlock: latest,
    });
    const txHash = logs[0]?.transactionHash;
    if (!txHash) return null;
    const receipt = await client.getTransactionReceipt({ hash: txHash });
    if (receipt.status !== 'success') return null;
    const moved = authorizationTransferIn(receipt.logs, from, nonce as Hex);
    return moved ? { txHash, blockTime: await blockTime(receipt), ...moved } : null;
  }

  /**
   * The Transfer that an authorization moved: FiatToken emits AuthorizationUsed(from, nonce)
   * and then, as the very next log of the token, Transfer(from, to, value). Reading that pair
   * (not any transfer in the transaction) ties the amount to this authorization.
   */
  const authorizationTransferIn = (logs: readonly { address: string; topics: readonly string[]; data: string }[], from: Address, nonce: Hex) => {
    const fromTopic = `0x${from.slice(2).toLowerCase().padStart(64, '0')}`;
    const i = logs.findIndex(
      (l) => l.address.toLowerCase() === usdc.toLowerCase() && l.topics[0]?.toLowerCase() === AUTHORIZATION_USED_TOPIC && l.topics[1]?.toLowerCase() === fromTopic && l.topics[2]?.toLowerCase() === nonce.toLowerCase(),
    );
    const next = i >= 0 ? logs.slice(i + 1).find((l) => l.address.toLowerCase() === usdc.toLowerCase()) : undefined;
    const [transfer] = next ? decodeTransferLogs([next]) : [];
    if (!transfer || transfer.from !== from) return null;
    return { from: transfer.from, to: transfer.to, value: transfer.value };
  };

  return {
    network,
    chainId: config.chainId,
    usdc,
    payTo,

    async getTransaction(id: string): Promise<TxLookup> {
      if (!HASH.test(id)) return { status: 'not_found' };
      // The common case, a mined transaction, in one lean call (json-rpc.ts); a receipt not there
      // (pending, unknown, or mined just now) is read again through viem, as before.
      const raw = await rpc<RawReceipt | null>('eth_getTransactionReceipt', [id]);
      let mined: { success: boolean; blockHash: string; from: string; logs: readonly { address: string; topics: readonly string[]; data: string }[] };
      if (raw) {
        if (confirmations > 1 && (await client.getBlockNumber({ cacheTime: 0 })) - BigInt(raw.blockNumber) + 1n < BigInt(confirmations)) return { status: 'pending' };
        mined = { success: raw.status === '0x1', blockHash: raw.blockHash, from: raw.from, logs: raw.logs };
      } else {
        const found = await evmTransactionState(client, id as Hash, confirmations);
        if (found.state !== 'mined') return { status: found.state };
        mined = { success: found.receipt.status === 'success', blockHash: found.receipt.blockHash, from: found.receipt.from, logs: found.receipt.logs };
      }
      const time = await blockTime(mined);
      if (!mined.success) return { status: 'reverted', blockTime: time };
      const viaAuthorization = mined.logs.some((l) => l.address.toLowerCase() === usdc.toLowerCase() && l.topics[0]?.toLowerCase() === AUTHORIZATION_USED_TOPIC);
      return { status: 'confirmed', blockTime: time, transfers: decodeTransferLogs(mined.logs), sender: getAddress(mined.from), viaAuthorization };
    },

    async authorizationUsed(authorizer: string, nonce: string): Promise<boolean> {
      if (!isAddress(authorizer, { strict: false })) throw new ChainError('invalid_authorization', 'authorizer is not an address');
      if (!BYTES32.test(nonce)) throw new ChainError('invalid_authorization', 'nonce is not 32 bytes of hex');
      return client.readContract({ address: usdc, abi: usdcAbi, functionName: 'authorizationState', args: [getAddress(authorizer), nonce as Hex] });
    },

    findAuthorizationTransfer,

    async checkAuthorization(auth: Eip3009Authorization, signature: string) {
      const a = parseAuthorization(auth);
      await verifyAuthorizationSignature(a, signature);
      const { used, latest, balance } = await authorizationAtLatest(a);
      if (used) return { state: 'used', transfer: await findAuthorizationTransfer(a.from, a.nonce) };
      checkValidityWindow(a, latest.timestamp);
      return { state: 'unused', balance, chainTime: Number(latest.timestamp) };
    },

    async submitAuthorization(auth: Eip3009Authorization, signature: string, hooks: { beforeBroadcast?: (txHash: string) => Promise<void> } = {}) {
      const a = parseAuthorization(auth);
      // The relayer pays gas: it settles only authorizations that pay this service.
      if (a.to !== payTo) throw new ChainError('wrong_recipient', `the authorization pays ${a.to}, not ${payTo}`);
      if (a.value <= 0n) throw new ChainError('invalid_authorization', 'authorization.value must be positive');
      // Settlement verifies again: nothing reaches the relayer on the strength of an earlier check.
      await verifyAuthorizationSignature(a, signature);
      const { used, latest, balance } = await authorizationAtLatest(a);
      if (used) throw new ChainError('authorization_used', `nonce ${a.nonce} of ${a.from} is already used or cancelled`);
      checkValidityWindow(a, latest.timestamp);
      if (balance < a.value) throw new ChainError('insufficient_funds', `${a.from} holds ${balance}, the authorization moves ${a.value}`);

      const sig = parseSignature(signature as Hex);
      const v = sig.v !== undefined ? Number(sig.v) : 27 + (sig.yParity ?? 0);
      const args = [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, v, sig.r, sig.s] as const;
      const hash = await relayerQueue(async () => {
        let gas: bigint;
        try {
          // eth_call at `latest` first (its revert reason is the clearest), then the estimate:
          // a relayer transaction is only ever sent for a transfer the chain would accept now.
          await client.simulateContract({ account: relayer, address: usdc, abi: usdcAbi, functionName: 'transferWithAuthorization', args, blockTag: 'latest' });
          gas = await client.estimateContractGas({ account: relayer, address: usdc, abi: usdcAbi, functionName: 'transferWithAuthorization', args });
        } catch (e) {
          if (isRevert(e)) refuseFromRevert(e, 'reverted');
          throw e;
        }
        const nonce = await client.getTransactionCount({ address: relayer.address, blockTag: 'pending' });
        // Sign first: the hash is known before the transaction exists anywhere but here, so
        // the caller can record it as consumed before anyone could present it as a receipt.
        // 20 % gas headroom: gas use can shift between estimate and inclusion.
        const request = await relayerWallet.prepareTransactionRequest({
          account: relayer,
          chain,
          to: usdc,
          data: encodeFunctionData({ abi: usdcAbi, functionName: 'transferWithAuthorization', args }),
          nonce,
          gas: (gas * 12n) / 10n,
        });
        const serialized = await relayer.signTransaction(request as Parameters<typeof relayer.signTransaction>[0]);
        const txHash = keccak256(serialized);
        await hooks.beforeBroadcast?.(txHash);
        return client.sendRawTransaction({ serializedTransaction: serialized });
      });
      log.info('authorization submitted', { tx: hash, from: a.from, value: a.value });
      const mined = await awaitMined(hash, 'transferWithAuthorization');
      const moved = authorizationTransferIn(mined.receipt.logs, a.from, a.nonce);
      if (!moved) throw new ChainError('reverted', `transferWithAuthorization ${hash} emitted no transfer for nonce ${a.nonce}`);
      return { txHash: hash, blockTime: mined.blockTime, ...moved };
    },

    async sendUsdc(to: string, amount: bigint): Promise<string> {
      if (!isAddress(to, { strict: false })) throw new ChainError('invalid_address', `${to} is not an EVM address`);
      if (amount <= 0n) throw new ChainError('invalid_amount', 'the amount must be positive');
      const recipient = getAddress(to);
      const hash = await treasuryQueue(async () => {
        try {
          await client.simulateContract({ account: treasury, address: usdc, abi: usdcAbi, functionName: 'transfer', args: [recipient, amount] });
        } catch (e) {
          if (isRevert(e)) refuseFromRevert(e, 'reverted');
          throw e;
        }
        const nonce = await client.getTransactionCount({ address: treasury.address, blockTag: 'pending' });
        return treasuryWallet.writeContract({ address: usdc, abi: usdcAbi, functionName: 'transfer', args: [recipient, amount], nonce });
      });
      log.info('usdc sent', { tx: hash, to: recipient, amount });
      await awaitMined(hash, 'USDC transfer');
      return hash;
    },

    async facilitatorHealth() {
      const started = performance.now();
      try {
        const wei = await client.getBalance({ address: relayer.address });
        const latencyMs = Math.round(performance.now() - started);
        // 0.001 native covers many transferWithAuthorization settlements on an L2.
        const ok = wei >= 10n ** 15n;
        return { ok, latencyMs, address: relayer.address, balance: wei.toString(), ...(ok ? {} : { error: 'the relayer holds less than 0.001 native gas token' }) };
      } catch (e) {
        return { ok: false, latencyMs: Math.round(performance.now() - started), address: relayer.address, error: e instanceof BaseError ? e.shortMessage : String(e) };
      }
    },

    async health(): Promise<ChainHealth> {
      const started = performance.now();
      try {
        const [chainId, blockNumber] = await Promise.all([client.getChainId(), client.getBlockNumber({ cacheTime: 0 })]);
        const latencyMs = Math.round(performance.now() - started);
        if (chainId !== config.chainId) return { ok: false, latencyMs, blockNumber: blockNumber.toString(), error: `RPC serves chain ${chainId}, configured ${config.chainId}` };
        return { ok: true, latencyMs, blockNumber: blockNumber.toString() };
      } catch (e) {
        return { ok: false, latencyMs: Math.round(performance.now() - started), error: e instanceof BaseError ? e.shortMessage : String(e) };
      }
    },
  };
}
