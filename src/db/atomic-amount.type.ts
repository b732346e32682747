import { BigIntType } from '@mikro-orm/core';

/**
 * USDC atomic amounts: numeric(78,0) in SQL (room for any uint256), bigint in code.
 * Never a float anywhere between the chain and the database.
 */
export class AtomicAmountType extends BigIntType<'bigint'> {
  constructor() {
    super('bigint');
  }
  override getColumnType(): string {
    return 'numeric(78,0)';
  }
  override convertToJSValue(value: string | bigint | null | undefined): bigint | null | undefined {
    if (value === null || value === undefined) return value;
    return BigInt(value);
  }
}
