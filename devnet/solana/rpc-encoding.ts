/**
 * Account and transaction encodings as Agave's JSON-RPC returns them (`base64`, `base58`,
 * `json`, `jsonParsed`), limited to the shapes @solana/web3.js 1.x and the SPL token
 * helpers read. Unknown programs fall back to partially decoded instructions / raw data,
 * which is also what a validator does for programs it cannot parse.
 */
import { AccountLayout, ACCOUNT_SIZE, MintLayout, MINT_SIZE } from '@solana/spl-token';
import type { PublicKey, VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { RpcFailure, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, type DecodedAccount, type RecordedTransaction, type TokenBalance } from './svm-ledger.ts';

const SYSTEM_PROGRAM = '11111111111111111111111111111111';
/** Agave reports u64::MAX for rent-exempt accounts; JSON numbers round it the same way. */
const RENT_EPOCH = 18446744073709551615;

export type AccountEncoding = 'base58' | 'base64' | 'base64+zstd' | 'jsonParsed';

export function uiAmount(amount: bigint, decimals: number) {
  const negative = amount < 0n;
  const abs = negative ? -amount : amount;
  const scale = 10n ** BigInt(decimals);
  const whole = abs / scale;
  const frac = (abs % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  const uiAmountString = `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

function parseTokenAccountData(account: DecodedAccount, decimalsOf: (mint: string) => number): unknown | null {
  if (account.owner !== TOKEN_PROGRAM && account.owner !== TOKEN_2022_PROGRAM) return null;
  const program = account.owner === TOKEN_PROGRAM ? 'spl-token' : 'spl-token-2022';
  if (account.data.length === MINT_SIZE || (account.owner === TOKEN_2022_PROGRAM && account.data.length > ACCOUNT_SIZE && account.data[ACCOUNT_SIZE] === 1)) {
    const m = MintLayout.decode(account.data.subarray(0, MINT_SIZE));
    return {
      program,
      parsed: {
        type: 'mint',
        info: {
          decimals: m.decimals,
          freezeAuthority: m.freezeAuthorityOption ? m.freezeAuthority.toBase58() : null,
          isInitialized: m.isInitialized,
          mintAuthority: m.mintAuthorityOption ? m.mintAuthority.toBase58() : null,
          supply: m.supply.toString(),
        },
      },
      space: account.data.length,
    };
  }
  if (account.data.length >= ACCOUNT_SIZE) {
    const a = AccountLayout.decode(account.data.subarray(0, ACCOUNT_SIZE));
    const mint = a.mint.toBase58();
    const decimals = decimalsOf(mint);
    return {
      program,
      parsed: {
        type: 'account',
        info: {
          isNative: a.isNativeOption === 1,
          mint,
          owner: a.owner.toBase58(),
          state: a.state === 2 ? 'frozen' : a.state === 1 ? 'initialized' : 'uninitialized',
          tokenAmount: uiAmount(a.amount, decimals),
          ...(a.delegateOption ? { delegate: a.delegate.toBase58(), delegatedAmount: uiAmount(a.delegatedAmount, decimals) } : {}),
          ...(a.closeAuthorityOption ? { closeAuthority: a.closeAuthority.toBase58() } : {}),
        },
      },
      space: account.data.length,
    };
  }
  return null;
}

export function encodeAccount(
  account: DecodedAccount | null,
  encoding: AccountEncoding | undefined,
  dataSlice: { offset: number; length: number } | undefined,
  decimalsOf: (mint: string) => number,
) {
  if (!account) return null;
  const base = { executable: account.executable, lamports: account.lamports, owner: account.owner, rentEpoch: RENT_EPOCH, space: account.data.length };
  if (encoding === 'jsonParsed') {
    const parsed = parseTokenAccountData(account, decimalsOf);
    if (parsed) return { ...base, data: parsed };
    return { ...base, data: [Buffer.from(account.data).toString('base64'), 'base64'] };
  }
  const data = dataSlice ? account.data.subarray(dataSlice.offset, dataSlice.offset + dataSlice.length) : account.data;
  if (encoding === 'base64+zstd') throw new RpcFailure(-32602, 'Invalid params: base64+zstd encoding is not supported by the paycall devnet');
  if (encoding === 'base58') {
    if (data.length > 128) throw new RpcFailure(-32600, 'Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.');
    return { ...base, data: [bs58.encode(data), 'base58'] };
  }
  return { ...base, data: [Buffer.from(data).toString('base64'), 'base64'] };
}

function encodeTokenBalance(b: TokenBalance) {
  return { accountIndex: b.accountIndex, mint: b.mint, owner: b.owner, programId: b.programId, uiTokenAmount: uiAmount(b.amount, b.decimals) };
}

function parseInstruction(programId: string, accounts: string[], data: Uint8Array, stackHeight: number | null) {
  const buf = Buffer.from(data);
  if ((programId === TOKEN_PROGRAM || programId === TOKEN_2022_PROGRAM) && buf.length > 0) {
    const program = programId === TOKEN_PROGRAM ? 'spl-token' : 'spl-token-2022';
    if (buf[0] === 3 && buf.length >= 9 && accounts.length >= 3) {
      return {
        program,
        programId,
        parsed: { type: 'transfer', info: { source: accounts[0], destination: accounts[1], authority: accounts[2], amount: buf.readBigUInt64LE(1).toString() } },
        stackHeight,
      };
    }
    if (buf[0] === 12 && buf.length >= 10 && accounts.length >= 4) {
      return {
        program,
        programId,
        parsed: {
          type: 'transferChecked',
          info: { source: accounts[0], mint: accounts[1], destination: accounts[2], authority: accounts[3], tokenAmount: uiAmount(buf.readBigUInt64LE(1), buf[9]) },
        },
        stackHeight,
      };
    }
  }
  if (programId === SYSTEM_PROGRAM && buf.length >= 12 && buf.readUInt32LE(0) === 2 && accounts.length >= 2) {
    return { program: 'system', programId, parsed: { type: 'transfer', info: { source: accounts[0], destination: accounts[1], lamports: Number(buf.readBigUInt64LE(4)) } }, stackHeight };
  }
  return { programId, accounts, data: bs58.encode(data), stackHeight };
}

export interface TransactionEncodingOptions {
  encoding: 'json' | 'jsonParsed' | 'base64' | 'base58';
  maxSupportedTransactionVersion: number | undefined;
}

function versionOf(tx: VersionedTransaction): 'legacy' | 0 {
  return tx.version === 'legacy' ? 'legacy' : 0;
}

export function encodeTransaction(record: RecordedTransaction, opts: TransactionEncodingOptions) {
  const tx = record.transaction;
  const version = versionOf(tx);
  if (version !== 'legacy' && opts.maxSupportedTransactionVersion === undefined) {
    throw new RpcFailure(
      -32015,
      'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
    );
  }
  const message = tx.message;
  const keys: PublicKey[] = message.staticAccountKeys;
  const keyStrings = keys.map((k) => k.toBase58());
  const signatures = tx.signatures.map((s) => bs58.encode(s));
  const m = record.meta;
  const parsed = opts.encoding === 'jsonParsed';

  let transaction: unknown;
  if (opts.encoding === 'base64') transaction = [Buffer.from(tx.serialize()).toString('base64'), 'base64'];
  else if (opts.encoding === 'base58') transaction = [bs58.encode(tx.serialize()), 'base58'];
  else if (parsed) {
    transaction = {
      signatures,
      message: {
        accountKeys: keyStrings.map((pubkey, i) => ({ pubkey, signer: message.isAccountSigner(i), writable: message.isAccountWritable(i), source: 'transaction' })),
        recentBlockhash: message.recentBlockhash,
        instructions: message.compiledInstructions.map((ix) =>
          parseInstruction(
            keyStrings[ix.programIdIndex],
            ix.accountKeyIndexes.map((i) => keyStrings[i]),
            ix.data,
            null,
          ),
        ),
        ...(version === 0 ? { addressTableLookups: [] } : {}),
      },
    };
  } else {
    transaction = {
      signatures,
      message: {
        accountKeys: keyStrings,
        header: message.header,
        recentBlockhash: message.recentBlockhash,
        instructions: message.compiledInstructions.map((ix) => ({
          programIdIndex: ix.programIdIndex,
          accounts: ix.accountKeyIndexes,
          data: bs58.encode(ix.data),
          stackHeight: null,
        })),
        ...(version === 0 ? { addressTableLookups: [] } : {}),
      },
    };
  }

  const innerInstructions = m.innerInstructions.map((entry) => ({
    index: entry.index,
    instructions: entry.instructions.map((ix) =>
      parsed
        ? parseInstruction(
            keyStrings[ix.programIdIndex],
            ix.accounts.map((i) => keyStrings[i]),
            ix.data,
            ix.stackHeight,
          )
        : { programIdIndex: ix.programIdIndex, accounts: ix.accounts, data: bs58.encode(ix.data), stackHeight: ix.stackHeight },
    ),
  }));

  return {
    slot: record.slot,
    blockTime: record.blockTime,
    version,
    transaction,
    meta: {
      err: m.err,
      status: m.err === null ? { Ok: null } : { Err: m.err },
      fee: m.fee,
      preBalances: m.preBalances,
      postBalances: m.postBalances,
      innerInstructions,
      logMessages: m.logMessages,
      preTokenBalances: m.preTokenBalances.map(encodeTokenBalance),
      postTokenBalances: m.postTokenBalances.map(encodeTokenBalance),
      rewards: [],
      loadedAddresses: { writable: [], readonly: [] },
      computeUnitsConsumed: m.computeUnitsConsumed,
    },
  };
}
