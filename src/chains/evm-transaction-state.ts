/**
 * Where one transaction stands on an EVM node, read the same way for a buyer's receipt
 * (evm-adapter.ts) and for our own payouts (evm-payout-sender.ts): viem answers "no receipt"
 * and "no transaction" by throwing, which here become states, and any other error (the node is
 * unreachable) is thrown as it is, so an outage is never read as "not found".
 */
import { TransactionNotFoundError, TransactionReceiptNotFoundError, type Hash, type PublicClient, type TransactionReceipt } from 'viem';

export type EvmTransactionState =
  /** Mined with at least the wanted confirmations (successful or reverted: read `receipt.status`). */
  | { state: 'mined'; receipt: TransactionReceipt }
  /** In the mempool, or mined with fewer confirmations than wanted. */
  | { state: 'pending' }
  /** Unknown to this node. */
  | { state: 'not_found' };

type Reader = Pick<PublicClient, 'getTransactionReceipt' | 'getTransaction' | 'getBlockNumber'>;

export async function evmTransactionState(client: Reader, hash: Hash, confirmations: number): Promise<EvmTransactionState> {
  const receipt = await client.getTransactionReceipt({ hash }).catch((e: unknown) => {
    if (e instanceof TransactionReceiptNotFoundError) return null;
    throw e;
  });
  if (receipt) {
    if (confirmations > 1) {
      const head = await client.getBlockNumber({ cacheTime: 0 });
      if (head - receipt.blockNumber + 1n < BigInt(confirmations)) return { state: 'pending' };
    }
    return { state: 'mined', receipt };
  }
  const known = await client.getTransaction({ hash }).then(
    () => true,
    (e: unknown) => {
      if (e instanceof TransactionNotFoundError) return false;
      throw e;
    },
  );
  return known ? { state: 'pending' } : { state: 'not_found' };
}
