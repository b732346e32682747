/**
 * A ledger around LiteSVM with what an RPC node has and LiteSVM lacks: slots that advance,
 * a blockhash per slot that expires after 150 blocks, block times, and a record of every
 * landed transaction (including failed ones, with their error, fee and pre/post balances),
 * so getTransaction can answer like a validator.
 *
 * LiteSVM's own blockhash check only accepts its single latest blockhash, which would make
 * two clients fetching a blockhash and sending concurrently fail; it is switched off and the
 * ledger checks recent blockhashes itself.
 */
import { createHash } from 'node:crypto';
import { AccountLayout, ACCOUNT_SIZE, MintLayout, MINT_SIZE } from '@solana/spl-token';
import { Keypair, PublicKey, SystemProgram, Transaction, VersionedMessage, VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { Clock, FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm';
import type { Logger } from '../../src/log.ts';
import { describeTransactionError, isLandedError, transactionErrorToJson, type TransactionErrorJson } from './transaction-errors.ts';

type SvmAddress = Parameters<LiteSVM['getAccount']>[0];
type SvmTransaction = Parameters<LiteSVM['sendTransaction']>[0];
type SvmAccount = Parameters<LiteSVM['setAccount']>[0];

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
const LAMPORTS_PER_SIGNATURE = 5000;
/** Agave: a blockhash stays valid for 150 blocks. */
const BLOCKHASH_VALIDITY = 150;
const DEFAULT_COMPUTE_UNITS_PER_INSTRUCTION = 200_000;
const MAX_COMPUTE_UNITS = 1_400_000;
export const SLOTS_PER_EPOCH = 432_000;

/** A JSON-RPC error the server passes on as it is. */
export class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcFailure';
  }
}

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  amount: bigint;
  decimals: number;
}

export interface CompiledInnerInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
  stackHeight: number;
}

export interface RecordedTransaction {
  signature: string;
  slot: number;
  blockTime: number;
  transaction: VersionedTransaction;
  meta: {
    err: TransactionErrorJson | null;
    fee: number;
    preBalances: number[];
    postBalances: number[];
    preTokenBalances: TokenBalance[];
    postTokenBalances: TokenBalance[];
    logMessages: string[];
    innerInstructions: { index: number; instructions: CompiledInnerInstruction[] }[];
    computeUnitsConsumed: number;
  };
}

export interface SimulationResult {
  err: TransactionErrorJson | null;
  logs: string[];
  unitsConsumed: number;
  accounts: ({ lamports: number; owner: string; data: Uint8Array; executable: boolean } | null)[] | null;
}

export interface DecodedAccount {
  lamports: number;
  owner: string;
  data: Uint8Array;
  executable: boolean;
}

export interface SvmLedger {
  readonly genesisHash: string;
  slot(): number;
  /** One block per slot here, so block height and slot are the same number. */
  blockHeight(): number;
  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number };
  isBlockhashValid(blockhash: string): boolean;
  blockTimeOf(slot: number): number | null;
  transactionCount(): number;
  /** Runs a serialized transaction; returns its signature or throws RpcFailure like a validator's preflight. */
  submit(wire: Uint8Array, opts: { skipPreflight: boolean }): string;
  simulate(wire: Uint8Array, opts: { sigVerify: boolean; replaceRecentBlockhash: boolean; accounts?: string[] }): SimulationResult;
  getTransaction(signature: string): RecordedTransaction | undefined;
  /** Recorded transactions touching `address`, newest first. */
  signaturesFor(address: string): RecordedTransaction[];
  getAccount(address: string): DecodedAccount | null;
  setAccount(address: string, account: DecodedAccount): void;
  programAccounts(programId: string): { pubkey: string; account: DecodedAccount }[];
  minimumBalanceForRentExemption(size: number): number;
  /** Sends lamports from the devnet faucet through a real recorded transaction. */
  airdrop(to: string, lamports: bigint): string;
  feeForMessage(message: Uint8Array): number;
  onTransaction(listener: (tx: RecordedTransaction) => void): () => void;
  advanceSlot(): void;
  close(): void;
}

export interface SvmLedgerOptions {
  log: Logger;
  /** How often a slot passes without traffic (a validator: 400 ms). 0 disables the timer. */
  slotMs?: number;
  /** Seeds the genesis hash and the blockhashes, so they differ between devnets. */
  seed?: string;
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();
const toNumber = (v: bigint | null | undefined): number => (v === null || v === undefined ? 0 : Number(v));

export function createSvmLedger(opts: SvmLedgerOptions): SvmLedger {
  const log = opts.log;
  const seed = opts.seed ?? `${process.pid}-${Date.now()}`;
  const svm = new LiteSVM().withBlockhashCheck(false).withTransactionHistory(0n);
  // A faucet for requestAirdrop: sending from a real account keeps airdrops ordinary, recorded transactions.
  const faucet = Keypair.fromSeed(sha256(`paycall devnet solana faucet ${seed}`));
  const FAUCET_LAMPORTS = 1_000_000_000_000_000n;

  const records = new Map<string, RecordedTransaction>();
  const ordered: RecordedTransaction[] = [];
  const listeners = new Set<(tx: RecordedTransaction) => void>();
  const blockhashBySlot = new Map<number, string>();
  const slotByBlockhash = new Map<string, number>();
  const blockTimes = new Map<number, number>();
  let slot = 0;

  const addr = (a: string) => a as unknown as SvmAddress;

  const getAccount = (address: string): DecodedAccount | null => {
    const a = svm.getAccount(addr(address));
    if (!a.exists) return null;
    return { lamports: toNumber(a.lamports), owner: String(a.programAddress), data: a.data as Uint8Array, executable: a.executable };
  };
  const setAccount = (address: string, account: DecodedAccount): void => {
    svm.setAccount({
      address: addr(address),
      lamports: BigInt(account.lamports),
      data: account.data,
      programAddress: account.owner,
      executable: account.executable,
      space: BigInt(account.data.length),
    } as unknown as SvmAccount);
  };

  const enterSlot = (next: number) => {
    slot = next;
    svm.warpToSlot(BigInt(slot));
    const clock = svm.getClock();
    const previous = toNumber(clock.unixTimestamp);
    const now = Math.max(previous, Math.floor(Date.now() / 1000));
    svm.setClock(new Clock(BigInt(slot), clock.epochStartTimestamp, BigInt(Math.floor(slot / SLOTS_PER_EPOCH)), clock.leaderScheduleEpoch, BigInt(now)));
    const blockhash = bs58.encode(sha256(`paycall devnet blockhash ${seed} ${slot}`));
    blockhashBySlot.set(slot, blockhash);
    slotByBlockhash.set(blockhash, slot);
    blockTimes.set(slot, now);
    const expired = slot - 2 * BLOCKHASH_VALIDITY;
    const old = blockhashBySlot.get(expired);
    if (old !== undefined) {
      blockhashBySlot.delete(expired);
      slotByBlockhash.delete(old);
    }
  };

  setAccount(faucet.publicKey.toBase58(), { lamports: Number(FAUCET_LAMPORTS), owner: SystemProgram.programId.toBase58(), data: new Uint8Array(0), executable: false });
  enterSlot(1);

  const isBlockhashValid = (blockhash: string): boolean => {
    const s = slotByBlockhash.get(blockhash);
    return s !== undefined && slot - s <= BLOCKHASH_VALIDITY;
  };

  const decode = (wire: Uint8Array): VersionedTransaction => {
    try {
      return VersionedTransaction.deserialize(wire);
    } catch (e) {
      throw new RpcFailure(-32602, `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${(e as Error).message}`);
    }
  };

  const toSvmTransaction = (tx: VersionedTransaction): SvmTransaction => {
    const signers = tx.message.staticAccountKeys.slice(0, tx.message.header.numRequiredSignatures);
    const signatures: Record<string, Uint8Array | null> = {};
    signers.forEach((key, i) => {
      const sig = tx.signatures[i];
      signatures[key.toBase58()] = sig && sig.some((b) => b !== 0) ? sig : null;
    });
    return { messageBytes: tx.message.serialize(), signatures } as unknown as SvmTransaction;
  };

  const hasAllSignatures = (tx: VersionedTransaction): boolean =>
    tx.signatures.length >= tx.message.header.numRequiredSignatures && tx.signatures.slice(0, tx.message.header.numRequiredSignatures).every((s) => s.some((b) => b !== 0));

  const mintDecimals = (mint: string): number => {
    const a = getAccount(mint);
    if (!a || a.data.length < MINT_SIZE) return 0;
    return MintLayout.decode(a.data.subarray(0, MINT_SIZE)).decimals;
  };

  const tokenBalances = (keys: PublicKey[]): TokenBalance[] => {
    const out: TokenBalance[] = [];
    keys.forEach((key, accountIndex) => {
      const a = getAccount(key.toBase58());
      if (!a || (a.owner !== TOKEN_PROGRAM && a.owner !== TOKEN_2022_PROGRAM) || a.data.length < ACCOUNT_SIZE) return;
      // A mint account is 82 bytes (or extended token-2022 mint with account type 1 at offset 165).
      if (a.owner === TOKEN_2022_PROGRAM && a.data.length > ACCOUNT_SIZE && a.data[ACCOUNT_SIZE] !== 2) return;
      const acc = AccountLayout.decode(a.data.subarray(0, ACCOUNT_SIZE));
      if (acc.state === 0) return;
      const mint = acc.mint.toBase58();
      out.push({ accountIndex, mint, owner: acc.owner.toBase58(), programId: a.owner, amount: acc.amount, decimals: mintDecimals(mint) });
    });
    return out;
  };

  const lamportBalances = (keys: PublicKey[]): number[] => keys.map((k) => toNumber(svm.getBalance(addr(k.toBase58()))));

  const computeBudget = (tx: VersionedTransaction): { limit: number; microLamports: bigint } => {
    const keys = tx.message.staticAccountKeys;
    let limit: number | null = null;
    let microLamports = 0n;
    let others = 0;
    for (const ix of tx.message.compiledInstructions) {
      const program = keys[ix.programIdIndex]?.toBase58();
      const data = Buffer.from(ix.data);
      if (program === 'ComputeBudget111111111111111111111111111111') {
        if (data[0] === 2 && data.length >= 5) limit = data.readUInt32LE(1);
        if (data[0] === 3 && data.length >= 9) microLamports = data.readBigUInt64LE(1);
      } else {
        others += 1;
      }
    }
    return { limit: Math.min(limit ?? DEFAULT_COMPUTE_UNITS_PER_INSTRUCTION * others, MAX_COMPUTE_UNITS), microLamports };
  };

  const feeOf = (tx: VersionedTransaction): number => {
    const { limit, microLamports } = computeBudget(tx);
    const priority = (BigInt(limit) * microLamports + 999_999n) / 1_000_000n;
    return LAMPORTS_PER_SIGNATURE * tx.message.header.numRequiredSignatures + Number(priority);
  };

  const innerInstructionsOf = (meta: TransactionMetadata): RecordedTransaction['meta']['innerInstructions'] =>
    meta
      .innerInstructions()
      .map((list, index) => ({
        index,
        instructions: list.map((inner) => {
          const ci = inner.instruction();
          return { programIdIndex: ci.programIdIndex(), accounts: Array.from(ci.accounts()), data: ci.data(), stackHeight: inner.stackHeight() };
        }),
      }))
      .filter((entry) => entry.instructions.length > 0);

  const preflightFailure = (err: TransactionErrorJson, logs: string[], unitsConsumed = 0) =>
    new RpcFailure(-32002, `Transaction simulation failed: ${describeTransactionError(err)}`, {
      err,
      logs,
      accounts: null,
      unitsConsumed,
      returnData: null,
      innerInstructions: null,
    });

  const simulateDecoded = (tx: VersionedTransaction, sigVerify: boolean, accounts?: string[]): SimulationResult => {
    if (!sigVerify) svm.withSigverify(false);
    try {
      const result = svm.simulateTransaction(toSvmTransaction(tx));
      if (result instanceof FailedTransactionMetadata) {
        const meta = result.meta();
        return { err: transactionErrorToJson(result.err()), logs: meta.logs(), unitsConsumed: toNumber(meta.computeUnitsConsumed()), accounts: null };
      }
      const meta = result.meta();
      let post: SimulationResult['accounts'] = null;
      if (accounts) {
        const byAddress = new Map(result.postAccounts().map((a) => [String(a.address), a]));
        post = accounts.map((address) => {
          const a = byAddress.get(address);
          if (a) return { lamports: toNumber(a.lamports), owner: String(a.programAddress), data: a.data as Uint8Array, executable: a.executable };
          return getAccount(address);
        });
      }
      return { err: null, logs: meta.logs(), unitsConsumed: toNumber(meta.computeUnitsConsumed()), accounts: post };
    } catch (e) {
      // kit refuses unsigned transactions before LiteSVM sees them.
      log.debug('simulation refused', { error: e });
      return { err: 'SignatureFailure', logs: [], unitsConsumed: 0, accounts: null };
    } finally {
      if (!sigVerify) svm.withSigverify(true);
    }
  };

  const submit = (wire: Uint8Array, { skipPreflight }: { skipPreflight: boolean }): string => {
    const tx = decode(wire);
    const signature = bs58.encode(tx.signatures[0] ?? new Uint8Array(64));
    if (records.has(signature)) {
      // Like a validator: a resend of a landed transaction is a no-op, preflight says so.
      if (skipPreflight) return signature;
      throw preflightFailure('AlreadyProcessed', []);
    }
    if (tx.message.addressTableLookups.length > 0) {
      throw new RpcFailure(-32602, 'address lookup tables are not supported by the paycall devnet');
    }
    if (!hasAllSignatures(tx)) throw new RpcFailure(-32003, 'Transaction signature verification failure');
    if (!isBlockhashValid(tx.message.recentBlockhash)) throw preflightFailure('BlockhashNotFound', []);
    if (!skipPreflight) {
      const sim = simulateDecoded(tx, true);
      if (sim.err !== null) {
        if (sim.err === 'SignatureFailure') throw new RpcFailure(-32003, 'Transaction signature verification failure');
        throw preflightFailure(sim.err, sim.logs, sim.unitsConsumed);
      }
    }

    const keys = tx.message.staticAccountKeys;
    const preBalances = lamportBalances(keys);
    const preTokenBalances = tokenBalances(keys);
    const result = svm.sendTransaction(toSvmTransaction(tx));
    let err: TransactionErrorJson | null = null;
    let meta: TransactionMetadata;
    if (result instanceof FailedTransactionMetadata) {
      const raw = result.err();
      err = transactionErrorToJson(raw);
      meta = result.meta();
      // Errors found before execution (bad blockhash, unfunded fee payer...) never land on a real
      // cluster; only execution failures are recorded, with the fee charged.
      if (!isLandedError(raw)) {
        if (err === 'SignatureFailure') throw new RpcFailure(-32003, 'Transaction signature verification failure');
        throw preflightFailure(err, meta.logs());
      }
    } else {
      meta = result;
    }
    const postBalances = lamportBalances(keys);
    const postTokenBalances = tokenBalances(keys);
    // When the fee payer is in no instruction its balance moves by the fee alone: exact.
    // Otherwise fall back to the fee formula (signatures + compute-unit price).
    const feePayerInInstruction = tx.message.compiledInstructions.some((ix) => ix.accountKeyIndexes.includes(0));
    const fee = feePayerInInstruction ? feeOf(tx) : preBalances[0] - postBalances[0];

    const record: RecordedTransaction = {
      signature,
      slot,
      blockTime: blockTimes.get(slot) ?? Math.floor(Date.now() / 1000),
      transaction: tx,
      meta: {
        err,
        fee,
        preBalances,
        postBalances,
        preTokenBalances,
        postTokenBalances,
        logMessages: meta.logs(),
        innerInstructions: innerInstructionsOf(meta),
        computeUnitsConsumed: toNumber(meta.computeUnitsConsumed()),
      },
    };
    records.set(signature, record);
    ordered.push(record);
    log.debug('solana transaction', { signature, slot, err });
    enterSlot(slot + 1);
    for (const listener of listeners) {
      try {
        listener(record);
      } catch (e) {
        log.warn('transaction listener failed', { error: e });
      }
    }
    return signature;
  };

  const timer = opts.slotMs === 0 ? null : setInterval(() => enterSlot(slot + 1), opts.slotMs ?? 400);
  timer?.unref();

  return {
    genesisHash: bs58.encode(sha256(`paycall devnet genesis ${seed}`)),
    slot: () => slot,
    blockHeight: () => slot,
    latestBlockhash: () => ({ blockhash: blockhashBySlot.get(slot)!, lastValidBlockHeight: slot + BLOCKHASH_VALIDITY }),
    isBlockhashValid,
    blockTimeOf: (s) => blockTimes.get(s) ?? null,
    transactionCount: () => ordered.length,
    submit,
    simulate(wire, { sigVerify, replaceRecentBlockhash, accounts }) {
      const tx = decode(wire);
      if (!replaceRecentBlockhash && !isBlockhashValid(tx.message.recentBlockhash)) return { err: 'BlockhashNotFound', logs: [], unitsConsumed: 0, accounts: null };
      if (sigVerify && !hasAllSignatures(tx)) return { err: 'SignatureFailure', logs: [], unitsConsumed: 0, accounts: null };
      return simulateDecoded(tx, sigVerify, accounts);
    },
    getTransaction: (signature) => records.get(signature),
    signaturesFor(address) {
      const out: RecordedTransaction[] = [];
      for (let i = ordered.length - 1; i >= 0; i--) {
        if (ordered[i].transaction.message.staticAccountKeys.some((k) => k.toBase58() === address)) out.push(ordered[i]);
      }
      return out;
    },
    getAccount,
    setAccount,
    programAccounts(programId) {
      return svm.getProgramAccounts(addr(programId)).map((a) => ({
        pubkey: String(a.address),
        account: { lamports: toNumber(a.lamports), owner: programId, data: a.data as Uint8Array, executable: a.executable },
      }));
    },
    minimumBalanceForRentExemption: (size) => toNumber(svm.minimumBalanceForRentExemption(BigInt(size))),
    airdrop(to, lamports) {
      const faucetBalance = svm.getBalance(addr(faucet.publicKey.toBase58())) ?? 0n;
      if (BigInt(faucetBalance) < lamports + 1_000_000n) {
        setAccount(faucet.publicKey.toBase58(), { lamports: Number(FAUCET_LAMPORTS + lamports), owner: SystemProgram.programId.toBase58(), data: new Uint8Array(0), executable: false });
      }
      const tx = new Transaction({ feePayer: faucet.publicKey, blockhash: blockhashBySlot.get(slot)!, lastValidBlockHeight: slot + BLOCKHASH_VALIDITY }).add(
        SystemProgram.transfer({ fromPubkey: faucet.publicKey, toPubkey: new PublicKey(to), lamports }),
      );
      tx.sign(faucet);
      return submit(tx.serialize(), { skipPreflight: false });
    },
    feeForMessage(message) {
      let decoded;
      try {
        decoded = VersionedMessage.deserialize(message);
      } catch (e) {
        throw new RpcFailure(-32602, `invalid message: ${(e as Error).message}`);
      }
      return feeOf(new VersionedTransaction(decoded));
    },
    onTransaction(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    advanceSlot: () => enterSlot(slot + 1),
    close() {
      if (timer) clearInterval(timer);
      listeners.clear();
    },
  };
}
