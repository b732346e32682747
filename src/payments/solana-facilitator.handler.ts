/**
 * POST /v1/_facilitator/solana: the buyer sends a partially signed USDC transfer; the
 * service checks it pays only USDC to payTo (the fee payer in no instruction), co-signs as
 * fee payer, broadcasts and answers the signature, which the buyer then presents in
 * X-Payment {signature, from, to, amount, mint}.
 */
import { AppError } from '../http/app-error.ts';
import type { Handler } from '../http/server.ts';
import { ChainError } from '../chains/chain-adapter.ts';
import type { ChainAdapterSet } from '../chains/create-chain-adapters.ts';
import { requireChains } from './require-chains.ts';

export const solanaFacilitatorHandler =
  (adapters: ChainAdapterSet | null): Handler =>
  async (ctx) => {
    const solana = requireChains(adapters).solana;
    const { transaction } = ctx.body as { transaction: string };
    try {
      const prepared = await solana.prepareTransfer(transaction);
      await prepared.broadcast();
      ctx.log.info('facilitator broadcast', { signature: prepared.signature, payer: prepared.from, amount: prepared.amount });
      return { status: 200, body: { signature: prepared.signature, network: 'solana', payer: prepared.from, amount: prepared.amount.toString() } };
    } catch (e) {
      if (!(e instanceof ChainError)) throw e;
      const refusedBeforeSending = e.reason !== 'reverted' && e.reason !== 'confirmation_timeout';
      if (refusedBeforeSending) throw new AppError('invalid_transaction', 400, `The transaction was refused: ${e.reason}: ${e.message}`, { hint: 'Only compute-budget, memo and one USDC TransferChecked to payTo are co-signed; the fee payer may appear in no instruction.', body: { reason: e.reason } });
      throw new AppError('broadcast_failed', 502, `The transaction did not land: ${e.reason}: ${e.message}`, { body: { reason: e.reason } });
    }
  };
