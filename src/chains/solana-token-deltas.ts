/**
 * Token transfers of a Solana transaction, from the validator's pre/post token balances
 * rather than from instructions: balances also capture CPI transfers and cannot be forged
 * by an instruction layout the parser does not know.
 */
import type { TokenTransfer } from './chain-adapter.ts';

export interface TokenBalanceEntry {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string };
}

/**
 * Nets each owner's balance change per mint, then pairs the owners who lost tokens with those
 * who gained them, in order. One sender and one receiver (every payment) pair exactly; with
 * several on either side the split is one valid reading of the movement.
 */
export function transfersFromTokenBalances(pre: readonly TokenBalanceEntry[], post: readonly TokenBalanceEntry[]): TokenTransfer[] {
  const deltas = new Map<string, Map<string, bigint>>();
  const add = (e: TokenBalanceEntry, sign: 1n | -1n) => {
    if (!e.owner) return;
    const perOwner = deltas.get(e.mint) ?? new Map<string, bigint>();
    deltas.set(e.mint, perOwner);
    perOwner.set(e.owner, (perOwner.get(e.owner) ?? 0n) + sign * BigInt(e.uiTokenAmount.amount));
  };
  for (const e of pre) add(e, -1n);
  for (const e of post) add(e, 1n);

  const transfers: TokenTransfer[] = [];
  for (const [mint, perOwner] of deltas) {
    const senders = [...perOwner].filter(([, d]) => d < 0n).map(([owner, d]) => ({ owner, left: -d }));
    const receivers = [...perOwner].filter(([, d]) => d > 0n).map(([owner, d]) => ({ owner, left: d }));
    let s = 0;
    for (const r of receivers) {
      while (r.left > 0n && s < senders.length) {
        const moved = r.left < senders[s].left ? r.left : senders[s].left;
        transfers.push({ from: senders[s].owner, to: r.owner, value: moved, token: mint });
        r.left -= moved;
        senders[s].left -= moved;
        if (senders[s].left === 0n) s++;
      }
    }
  }
  return transfers;
}
