/**
 * POST /v1/_facilitator/solana: the buyer sends a partially signed USDC transfer; the
 * service checks it pays only USDC to payTo (the fee payer and one transfer authority the only
 * signers, the fee payer in no instruction, compute price and limit capped), co-signs as fee
 * payer, broadcasts and answers the signature, which the buyer then presents in
 * X-Payment {signature, from, to, amount, mint} (for a request quoted before it).
 *
 * The fee payer's SOL is what this spends, on anyone's behalf and without a quote, so a
 * transfer must move at least `minAtomic` USDC to the service: with the fee payer's spend per
 * transaction bounded (two signatures plus the capped priority fee), every co-signed
 * transaction brings in several times what it costs.
 */
import { AppError } from '../http/app-error.ts';
import type { Handler } from '../http/server.ts';
import { ChainError } from '../chains/chain-error.ts';
import type { ChainAdapterSet } from '../chains/create-chain-adapters.ts';
import { requireChains } from './require-chains.ts';

const HINT = 'Only compute-budget, memo and one USDC TransferChecked to payTo are co-signed, signed by the fee payer and the transfer authority only; the fee payer may appear in no instruction.';

const refused = (reason: string, message: string, cause?: unknown) =>
  new AppError('invalid_transaction', 400, `The transaction was refused: ${reason}: ${message}`, { hint: HINT, body: { reason }, cause });

export const solanaFacilitatorHandler =
  (adapters: ChainAdapterSet | null, policy: { minAtomic: bigint }): Handler =>
  async (ctx) => {
    const solana = requireChains(adapters).solana;
    const { transaction } = ctx.body as { transaction: string };
    try {
      const prepared = await solana.prepareTransfer(transaction);
      if (prepared.amount < policy.minAtomic) throw refused('amount_below_minimum', `the transfer moves ${prepared.amount}; the facilitator co-signs transfers of at least ${policy.minAtomic} USDC atomic units`);
      await prepared.broadcast();
      ctx.log.info('facilitator broadcast', { signature: prepared.signature, payer: prepared.from, amount: prepared.amount });
      return { status: 200, body: { signature: prepared.signature, network: 'solana', payer: prepared.from, amount: prepared.amount.toString() } };
    } catch (e) {
      if (!(e instanceof ChainError)) throw e;
      // Only an unanswered broadcast is the service's side; every other refusal (including a
      // transfer that landed and failed) comes from the transaction itself.
      if (e.reason === 'confirmation_timeout') throw new AppError('broadcast_failed', 502, `The transaction was sent but not confirmed in time: ${e.message}`, { body: { reason: e.reason }, cause: e });
      throw refused(e.reason, e.message, e);
    }
  };
