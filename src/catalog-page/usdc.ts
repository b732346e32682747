/**
 * USDC atomic units (6 decimals) as dollars, exactly: integer arithmetic on the decimal
 * string, never a float (0.005 must not print as 0.004999...). At least two decimals, as a
 * price reads: `$0.01`, `$0.005`, `$1.00`, `$0.000001`.
 */
export function dollars(atomic: string | bigint): string {
  const a = BigInt(atomic);
  const sign = a < 0n ? '-' : '';
  const abs = a < 0n ? -a : a;
  const whole = abs / 1_000_000n;
  const fraction = (abs % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${sign}$${whole}.${fraction}`;
}
