/**
 * LiteSVM reports errors as napi objects; RPC clients expect the JSON shapes Agave serializes
 * (`"BlockhashNotFound"`, `{"InstructionError":[0,{"Custom":1}]}`, ...) and its messages.
 * The class names are not exported by litesvm, so the shapes are recognised by their toString().
 */
export type TransactionErrorJson = string | Record<string, unknown>;

const TRANSACTION_ERRORS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
];

const INSTRUCTION_ERRORS = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
];

interface NapiError {
  toString(): string;
  index?: number;
  accountIndex?: number;
  code?: number;
  msg?: string;
  err?: () => unknown;
}

function instructionErrorToJson(raw: unknown): TransactionErrorJson {
  if (typeof raw === 'number') return INSTRUCTION_ERRORS[raw] ?? `InstructionError${raw}`;
  const e = raw as NapiError;
  const text = String(e);
  if (text.startsWith('InstructionErrorCustom')) return { Custom: Number(e.code) };
  if (text.startsWith('InstructionErrorBorshIo')) return { BorshIoError: String(e.msg ?? '') };
  return text;
}

export function transactionErrorToJson(raw: unknown): TransactionErrorJson {
  if (typeof raw === 'number') return TRANSACTION_ERRORS[raw] ?? `TransactionError${raw}`;
  const e = raw as NapiError;
  const text = String(e);
  if (text.startsWith('TransactionErrorInstructionError')) return { InstructionError: [Number(e.index), instructionErrorToJson(e.err?.())] };
  if (text.startsWith('TransactionErrorDuplicateInstruction')) return { DuplicateInstruction: Number(e.index) };
  if (text.startsWith('TransactionErrorInsufficientFundsForRent')) return { InsufficientFundsForRent: { account_index: Number(e.accountIndex) } };
  if (text.startsWith('TransactionErrorProgramExecutionTemporarilyRestricted')) {
    return { ProgramExecutionTemporarilyRestricted: { account_index: Number(e.accountIndex) } };
  }
  return text;
}

/** Execution failures land on chain (fee charged, recorded with meta.err); the others are rejected before. */
export function isLandedError(raw: unknown): boolean {
  if (typeof raw === 'number') return false;
  const text = String(raw);
  return text.startsWith('TransactionErrorInstructionError') || text.startsWith('TransactionErrorInsufficientFundsForRent');
}

const TRANSACTION_MESSAGES: Record<string, string> = {
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  SignatureFailure: 'Transaction did not pass signature verification',
  ProgramAccountNotFound: 'Attempt to load a program that does not exist',
};

const INSTRUCTION_MESSAGES: Record<string, string> = {
  InsufficientFunds: 'insufficient funds for instruction',
  InvalidAccountData: 'invalid account data for instruction',
  InvalidInstructionData: 'invalid instruction data',
  MissingRequiredSignature: 'missing required signature for instruction',
  IncorrectProgramId: 'incorrect program id for instruction',
  UninitializedAccount: 'instruction requires an initialized account',
};

/** The text Agave puts after "Transaction simulation failed: ". */
export function describeTransactionError(err: TransactionErrorJson): string {
  if (typeof err === 'string') return TRANSACTION_MESSAGES[err] ?? err;
  if ('InstructionError' in err) {
    const [index, inner] = err.InstructionError as [number, TransactionErrorJson];
    let text: string;
    if (typeof inner === 'string') text = INSTRUCTION_MESSAGES[inner] ?? inner;
    else if ('Custom' in inner) text = `custom program error: 0x${Number(inner.Custom).toString(16)}`;
    else text = JSON.stringify(inner);
    return `Error processing Instruction ${index}: ${text}`;
  }
  if ('InsufficientFundsForRent' in err) {
    const { account_index } = err.InsufficientFundsForRent as { account_index: number };
    return `Transaction results in an account (${account_index}) with insufficient funds for rent`;
  }
  return JSON.stringify(err);
}
