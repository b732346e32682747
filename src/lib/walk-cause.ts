/**
 * walkCause(err, match): the first error of `err`'s cause chain (`err` itself first) that
 * `match` accepts, or null. Errors here wrap what they caught (`{ cause }`), as viem's do, so
 * a question about the root (is this a connection refused? a contract revert?) walks the chain
 * instead of reading messages. Bounded: a cause cycle cannot loop.
 */
const MAX_DEPTH = 16;

export function walkCause(err: unknown, match: (e: unknown) => boolean): unknown {
  const seen = new Set<unknown>();
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < MAX_DEPTH && !seen.has(e); depth++) {
    if (match(e)) return e;
    seen.add(e);
    e = typeof e === 'object' ? (e as { cause?: unknown }).cause : undefined;
  }
  return null;
}
