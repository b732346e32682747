/**
 * PayoutSender for EVM chains (Base, Polygon, Arbitrum, Optimism, Avalanche): a USDC
 * `transfer(to, amount)` signed locally by the treasury with an explicit nonce, gas limit and
 * fees, so the signed bytes (and their hash) exist before anything reaches the chain. The
 * nonce is what makes recovery safe: a transaction with nonce N lands at most once, and once
 * the treasury's mined nonce has passed N without it, it never will (PayoutTxState 'expired').
 */
import {
  BaseError,
  createPublicClient,
  decodeFunctionData,
  encodeFunctionData,
  getAddress,
  http,
  isAddress,
  keccak256,
  parseTransaction,
  recoverTransactionAddress,
  type Address,
  type Hash,
  type Hex,
  type TransactionReceipt,
  type TransactionSerialized,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Logger } from '../log.ts';
import { ChainError } from './chain-error.ts';
import { evmTransactionState } from './evm-transaction-state.ts';
import { chainFor, decodeTransferLogs } from './evm-adapter.ts';
import type { PayoutChain, PayoutSender, PayoutTxState, PreparedPayout } from './payout-sender.ts';
import { createSerialQueue } from './serial-queue.ts';
import { usdcAbi } from './usdc-abi.ts';

export type EvmPayoutChain = Exclude<PayoutChain, 'solana'>;

export interface EvmPayoutSenderOptions {
  chain: EvmPayoutChain;
  rpcUrl: string;
  chainId: number;
  usdc: string;
  /** 0x private key of the treasury on this chain. */
  treasuryKey: string;
  log: Logger;
  /** Blocks, the transaction's own included, before lookup says confirmed (default 1). */
  confirmations?: number;
  /**
   * How long a nonce taken by a prepared, not yet broadcast payout stays reserved in this
   * process (default 2 min). Past it the nonce is handed out again (see the note at `reserved`).
   */
  nonceReservationMs?: number;
  /** Timeout of one RPC call (default 10 s). */
  rpcTimeoutMs?: number;
}

/**
 * Gas headroom over the estimate (+25 %), and a floor: a transfer to an address that holds no
 * USDC yet writes a fresh storage slot, and on Arbitrum the limit also pays the L1 data, whose
 * price moves between estimate and inclusion.
 */
const GAS_HEADROOM_PERCENT = 125n;
const MIN_GAS = 65_000n;
const HASH = /^0x[0-9a-fA-F]{64}$/;

const rpcText = (e: unknown): string => (e instanceof BaseError ? `${e.shortMessage} ${e.details ?? ''}` : e instanceof Error ? e.message : String(e));

export function createEvmPayoutSender(opts: EvmPayoutSenderOptions): PayoutSender {
  const log = opts.log.child({ chain: opts.chain, role: 'payout' });
  const chain = chainFor(opts.chainId, opts.chain, opts.rpcUrl);
  const client = createPublicClient({ chain, transport: http(opts.rpcUrl, { timeout: opts.rpcTimeoutMs ?? 10_000, retryCount: 2 }) });
  const treasury = privateKeyToAccount(opts.treasuryKey as Hex);
  const usdc = getAddress(opts.usdc);
  const confirmations = Math.max(1, opts.confirmations ?? 1);
  // Two prepares in one process must not pick the same nonce: the chain's pending nonce does
  // not count a transaction that is signed but not yet broadcast, so the nonces handed out are
  // also reserved here, and prepares run one at a time. A reservation lapses: a payout
  // prepared and then abandoned (never recorded, never broadcast) would otherwise leave a gap
  // that holds every later payout back for good. Reusing a nonce is safe by construction: of
  // two transactions with one nonce at most one lands, the other ends 'expired'.
  const queue = createSerialQueue();
  const reservationMs = opts.nonceReservationMs ?? 120_000;
  const reserved = new Map<number, number>(); // nonce -> reserved until (ms)
  const freeNonce = (pending: number): number => {
    const now = Date.now();
    for (const [n, until] of reserved) if (n < pending || until <= now) reserved.delete(n);
    let nonce = pending;
    while (reserved.has(nonce)) nonce++;
    return nonce;
  };

  const balance = () => client.readContract({ address: usdc, abi: usdcAbi, functionName: 'balanceOf', args: [treasury.address], blockTag: 'latest' });

  /**
   * What a prepared transaction does, read back from its own signed bytes (nothing else is
   * trusted). Its signer, not the configured treasury, is whose nonce decides 'expired': after a
   * treasury key rotation, a payout signed by the old key is still judged by the old key's nonce.
   */
  const decode = async (p: PreparedPayout) => {
    const tx = parseTransaction(p.raw as Hex);
    const refuse = (why: string) => new ChainError('invalid_payout', `${p.tx} is not a USDC transfer prepared on ${opts.chain}: ${why}`);
    if (keccak256(p.raw as Hex) !== p.tx.toLowerCase()) throw refuse('the id is not the hash of the raw transaction');
    // A payout of another chain would be judged by this chain's nonces.
    if (tx.chainId !== opts.chainId) throw refuse(`it is signed for chain ${tx.chainId}`);
    if (!tx.to || getAddress(tx.to) !== usdc || tx.nonce === undefined || !tx.data) throw refuse('it does not call this USDC');
    const call = decodeFunctionData({ abi: usdcAbi, data: tx.data });
    if (call.functionName !== 'transfer') throw refuse('it does not call transfer');
    const [to, amount] = call.args;
    const from = await recoverTransactionAddress({ serializedTransaction: p.raw as TransactionSerialized });
    return { from, nonce: tx.nonce, to: getAddress(to), amount };
  };

  /** confirmed only when the receipt shows the USDC leaving the treasury for the destination, in full. */
  const stateOfReceipt = (receipt: TransactionReceipt, payout: { from: Address; to: Address; amount: bigint }): PayoutTxState => {
    if (receipt.status !== 'success') return 'failed';
    const { from, to, amount } = payout;
    const moved = decodeTransferLogs(receipt.logs).some((t) => t.token === usdc && t.from === from && t.to === to && t.value === amount);
    return moved ? 'confirmed' : 'failed';
  };

  const lookup = async (p: PreparedPayout): Promise<PayoutTxState> => {
    if (!HASH.test(p.tx)) throw new ChainError('invalid_payout', `${p.tx} is not a transaction hash`);
    const payout = await decode(p);
    const hash = p.tx as Hash;
    // The mined nonce is read first: if it is past this nonce and the receipt (read after)
    // is still missing, another transaction took the nonce, so this one can never land.
    const minedNonce = await client.getTransactionCount({ address: payout.from, blockTag: 'latest' });
    const found = await evmTransactionState(client, hash, confirmations);
    if (found.state === 'mined') return stateOfReceipt(found.receipt, payout);
    if (found.state === 'pending') return 'pending';
    return minedNonce > payout.nonce ? 'expired' : 'not_found';
  };

  return {
    chain: opts.chain,
    treasury: treasury.address,

    prepare(to: string, amount: bigint): Promise<PreparedPayout> {
      if (!isAddress(to, { strict: false })) return Promise.reject(new ChainError('invalid_address', `${to} is not an EVM address`));
      if (amount <= 0n) return Promise.reject(new ChainError('invalid_amount', 'the amount must be positive'));
      const recipient: Address = getAddress(to);
      const data = encodeFunctionData({ abi: usdcAbi, functionName: 'transfer', args: [recipient, amount] });
      return queue(async () => {
        // Refused here, nothing signed: a payout the treasury cannot cover would only burn gas.
        // (Two prepares that each fit but not together still can: the later one reverts, 'failed'.)
        const held = await balance();
        if (held < amount) throw new ChainError('insufficient_funds', `the treasury holds ${held} USDC atomic units on ${opts.chain}, the payout is ${amount}`);
        const [pendingNonce, gas, block, priority] = await Promise.all([
          client.getTransactionCount({ address: treasury.address, blockTag: 'pending' }),
          client.estimateGas({ account: treasury.address, to: usdc, data }),
          client.getBlock({ blockTag: 'latest' }),
          client.estimateMaxPriorityFeePerGas(),
        ]);
        const nonce = freeNonce(pendingNonce);
        const gasLimit = (gas * GAS_HEADROOM_PERCENT) / 100n;
        // Twice the current base fee: the transaction stays includable while the base fee rises
        // for a while, e.g. when it is broadcast again after a restart.
        const baseFee = block.baseFeePerGas ?? 0n;
        const serialized = await treasury.signTransaction({
          type: 'eip1559',
          chainId: opts.chainId,
          to: usdc,
          data,
          nonce,
          gas: gasLimit > MIN_GAS ? gasLimit : MIN_GAS,
          maxFeePerGas: baseFee * 2n + priority,
          maxPriorityFeePerGas: priority,
        });
        // Reserved once signed (inside the queue): a prepare that failed holds no nonce back.
        reserved.set(nonce, Date.now() + reservationMs);
        const tx = keccak256(serialized);
        log.info('payout prepared', { tx, to: recipient, amount, nonce });
        return { tx, raw: serialized, validUntil: String(nonce) };
      });
    },

    async broadcast(p: PreparedPayout): Promise<void> {
      const { nonce } = await decode(p);
      try {
        await client.sendRawTransaction({ serializedTransaction: p.raw as Hex });
        log.info('payout broadcast', { tx: p.tx, nonce });
      } catch (e) {
        const text = rpcText(e);
        // The same bytes again (a retry, or a restart after sending): the node has them already.
        if (/already known|known transaction|already imported|already exists|already in (the )?mempool/i.test(text)) return;
        // The nonce is used: fine if by this very transaction, otherwise it can never land.
        if (/nonce too low|nonce has already been used|nonce.*(lower|less) than/i.test(text)) {
          const state = await lookup(p);
          if (state === 'confirmed' || state === 'failed' || state === 'pending') return;
          throw new ChainError('nonce_used', `nonce ${nonce} of its signer on ${opts.chain} was used by another transaction: ${p.tx} can never land (prepare anew)`, { cause: e });
        }
        throw e;
      }
    },

    lookup,

    treasuryBalance: balance,
  };
}
