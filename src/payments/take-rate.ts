/**
 * The take rate: the one place that decides what share of a payment the service keeps.
 * Money rules (spec): a seller's paywall endpoint pays 3 %, a proxied endpoint 4 %; a
 * built-in tool is the service's own, so it keeps all of it. Rates are basis points and
 * money is bigint atomic units; the seller's net rounds down, so the fee never loses a unit
 * to rounding and fee + net always equals the amount paid.
 */

export type SellerMode = 'paywall' | 'proxy';

/** Take rates in basis points: 3 % paywall, 4 % proxy (spec). */
export const TAKE_BPS = { paywall: 300, proxy: 400 } as const satisfies Record<SellerMode, number>;

/** A built-in tool: the whole amount is the service's. */
export const BUILTIN_TAKE_BPS = 10_000;

/** The rate for who is paid: the service (a built-in) keeps all; a seller's endpoint pays its mode's rate. */
export const takeBpsFor = (payee: { kind: 'service' } | { kind: 'seller'; mode: SellerMode }): number => (payee.kind === 'seller' ? TAKE_BPS[payee.mode] : BUILTIN_TAKE_BPS);

/** What the seller keeps of `amount` at `takeBps` (rounded down). */
export const net = (amount: bigint, takeBps: number): bigint => (amount * BigInt(10_000 - takeBps)) / 10_000n;

/** The service's share: always amount - net, so the two add up exactly. */
export const fee = (amount: bigint, takeBps: number): bigint => amount - net(amount, takeBps);
