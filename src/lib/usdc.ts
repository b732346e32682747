/**
 * USDC atomic units (6 decimals) as text, exactly: integer arithmetic on the decimal string,
 * never a float (0.005 must not print as 0.004999...). One rule for the catalog page and the CLI.
 */

/** Whole units and the fraction's digits without trailing zeros ('' for none); the sign apart. */
function split(atomic: string | bigint | number): { sign: string; whole: bigint; fraction: string } {
  const a = BigInt(atomic);
  const abs = a < 0n ? -a : a;
  return { sign: a < 0n ? '-' : '', whole: abs / 1_000_000n, fraction: (abs % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '') };
}

/** As a price reads on a page, at least two decimals: `$0.01`, `$0.005`, `$1.00`, `$0.000001`. */
export function dollars(atomic: string | bigint): string {
  const { sign, whole, fraction } = split(atomic);
  return `${sign}$${whole}.${fraction.padEnd(2, '0')}`;
}

/** As the CLI prints an amount, no more decimals than it has: `0.005 USDC`, `1 USDC`. */
export function usdcText(atomic: string | bigint | number): string {
  const { sign, whole, fraction } = split(atomic);
  return `${sign}${whole}${fraction ? `.${fraction}` : ''} USDC`;
}
