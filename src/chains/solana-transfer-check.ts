/**
 * What the service agrees to co-sign as fee payer. A partially signed transaction from a buyer
 * is a request to spend the fee payer's SOL, so anything beyond "pay USDC to the service" is
 * refused: only compute-budget and memo instructions plus exactly one TransferChecked of the
 * USDC mint into the payTo token account, and the fee payer referenced by no instruction (it
 * could otherwise be the source of funds, a rent payer or a signer of something else).
 */
import type { PublicKey, VersionedTransaction } from '@solana/web3.js';
import nacl from 'tweetnacl';
import { ChainError, type ChainErrorReason } from './chain-error.ts';

export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
export const MEMO_PROGRAMS = ['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', 'Memo1UhkJRfHyvLMcVucJwxXeuD6YAXCuDcuK6Bmpnf'];
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const TRANSFER_CHECKED = 12;
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000n;
const MAX_UNITS = 1_400_000n;

export interface FacilitatorPolicy {
  feePayer: PublicKey;
  usdcMint: PublicKey;
  /** The associated token account of payTo for the USDC mint. */
  payToTokenAccount: PublicKey;
  /** The fee payer's own USDC account: never an acceptable source. */
  feePayerTokenAccount: PublicKey;
  /**
   * Upper bound on compute-unit price x limit the buyer may make the fee payer pay. With the two
   * signatures allowed (5,000 lamports each) it bounds what one co-signed transaction can cost.
   */
  maxPriorityFeeLamports: bigint;
  /** Upper bound on the compute-unit limit (a TransferChecked needs about 6,000). */
  maxComputeUnits: bigint;
}

export interface CheckedTransfer {
  /** The signer moving the tokens: the buyer's wallet. */
  authority: PublicKey;
  source: PublicKey;
  amount: bigint;
}

const refuse = (reason: ChainErrorReason, message: string): never => {
  throw new ChainError(reason, message);
};

export function checkFacilitatorTransaction(tx: VersionedTransaction, policy: FacilitatorPolicy): CheckedTransfer {
  const message = tx.message;
  if (message.addressTableLookups.length > 0) refuse('address_lookup_tables_not_allowed', 'address lookup tables are not accepted; list every account in the transaction');
  const keys = message.staticAccountKeys;
  if (keys.length === 0 || !keys[0].equals(policy.feePayer)) {
    refuse('wrong_fee_payer', `the fee payer must be ${policy.feePayer.toBase58()}, got ${keys[0]?.toBase58() ?? 'none'}`);
  }
  if (message.header.numRequiredSignatures > keys.length) refuse('invalid_transaction', 'the transaction names more signers than accounts');

  let unitLimit: bigint | null = null;
  let microLamports = 0n;
  let nonBudget = 0n;
  const transfers: { source: PublicKey; mint: PublicKey; destination: PublicKey; authorityIndex: number; amount: bigint }[] = [];

  message.compiledInstructions.forEach((ix, i) => {
    // The wire format allows any index; an index outside the account list is malformed input.
    if (ix.programIdIndex >= keys.length || ix.accountKeyIndexes.some((k) => k >= keys.length)) {
      refuse('invalid_transaction', `instruction ${i} names an account index outside the ${keys.length} accounts of the transaction`);
    }
    if (ix.programIdIndex === 0 || ix.accountKeyIndexes.includes(0)) {
      refuse('fee_payer_in_instruction', `instruction ${i} references the fee payer; it may only pay the fee`);
    }
    const program = keys[ix.programIdIndex].toBase58();
    const data = Buffer.from(ix.data);
    if (program === COMPUTE_BUDGET_PROGRAM) {
      if (data[0] === 2 && data.length === 5) unitLimit = BigInt(data.readUInt32LE(1));
      else if (data[0] === 3 && data.length === 9) microLamports = data.readBigUInt64LE(1);
      else if (!(data[0] === 4 && data.length === 5)) refuse('unexpected_instruction', `instruction ${i}: only compute unit limit / price / loaded-data-size compute-budget instructions are accepted`);
      return;
    }
    nonBudget += 1n;
    if (MEMO_PROGRAMS.includes(program)) return;
    if (program === TOKEN_PROGRAM && data[0] === TRANSFER_CHECKED && data.length === 10 && ix.accountKeyIndexes.length === 4) {
      const [source, mint, destination, authorityIndex] = ix.accountKeyIndexes;
      transfers.push({ source: keys[source], mint: keys[mint], destination: keys[destination], authorityIndex, amount: data.readBigUInt64LE(1) });
      return;
    }
    refuse('unexpected_instruction', `instruction ${i} (program ${program}) is not a compute-budget, memo or single-signer TransferChecked instruction`);
  });

  if (transfers.length === 0) refuse('missing_transfer', 'the transaction contains no TransferChecked instruction');
  if (transfers.length > 1) refuse('multiple_transfers', `the transaction contains ${transfers.length} transfers; exactly one is accepted`);
  // Each extra signer costs the fee payer another signature fee: the fee payer and the one
  // transfer authority are the only signers accepted.
  if (message.header.numRequiredSignatures !== 2 || tx.signatures.length !== 2) {
    refuse('unexpected_signers', `exactly two signers are accepted (the fee payer and the transfer authority), the transaction has ${message.header.numRequiredSignatures}`);
  }
  const t = transfers[0];
  if (!t.mint.equals(policy.usdcMint)) refuse('wrong_mint', `the transfer moves mint ${t.mint.toBase58()}, not USDC ${policy.usdcMint.toBase58()}`);
  if (!t.destination.equals(policy.payToTokenAccount)) {
    refuse('wrong_destination', `the transfer goes to ${t.destination.toBase58()}, not the payTo token account ${policy.payToTokenAccount.toBase58()}`);
  }
  if (t.source.equals(policy.feePayerTokenAccount)) refuse('fee_payer_in_instruction', 'the transfer spends from the fee payer’s token account');
  if (t.amount <= 0n) refuse('invalid_amount', 'the transfer amount must be positive');
  if (t.authorityIndex !== 1) refuse('missing_signature', 'the transfer authority must be the one signer besides the fee payer');

  const units = (unitLimit as bigint | null) ?? (nonBudget * DEFAULT_UNITS_PER_INSTRUCTION < MAX_UNITS ? nonBudget * DEFAULT_UNITS_PER_INSTRUCTION : MAX_UNITS);
  const priorityFee = (units * microLamports + 999_999n) / 1_000_000n;
  if (priorityFee > policy.maxPriorityFeeLamports) {
    refuse('priority_fee_too_high', `the compute-unit price would cost the fee payer ${priorityFee} lamports; at most ${policy.maxPriorityFeeLamports} is accepted`);
  }
  if (unitLimit !== null && (unitLimit as bigint) > policy.maxComputeUnits) {
    refuse('compute_limit_too_high', `a compute-unit limit of ${unitLimit} is over the ${policy.maxComputeUnits} accepted`);
  }

  // The transfer authority must already have signed, with a valid signature.
  const messageBytes = message.serialize();
  const sig = tx.signatures[1];
  if (!sig || sig.every((b) => b === 0)) refuse('missing_signature', `signer ${keys[1].toBase58()} has not signed`);
  if (!nacl.sign.detached.verify(messageBytes, sig, keys[1].toBytes())) refuse('invalid_signature', `the signature of ${keys[1].toBase58()} does not verify`);
  return { authority: keys[1], source: t.source, amount: t.amount };
}
