/**
 * Which addresses an upstream may resolve to. Only globally routable unicast addresses pass:
 * ipaddr.js names every special range (loopback, private, link-local with the cloud metadata
 * address 169.254.169.254, carrier-grade NAT, multicast, unique-local, reserved, NAT64 and
 * tunnel prefixes, ...), so nothing here is a hand-written range list. What ipaddr.js calls
 * `unicast` is not enough on its own for IPv6, because it does not name the deprecated
 * embeddings of IPv4 (docs/decisions.md, "Upstream addresses"):
 *  - IPv4-mapped `::ffff:a.b.c.d` and NAT64 `64:ff9b::a.b.c.d` (RFC 6052, the well-known /96)
 *    reach the IPv4 address they carry (a dual-stack socket, a DNS64 network): judged as it.
 *  - IPv4-compatible `::a.b.c.d` (deprecated by RFC 4291; `[::7f00:1]` is 127.0.0.1 to some
 *    stacks) and any other IPv6 address outside 2000::/3, the only block IANA allocates for
 *    global unicast: refused, whatever ipaddr.js calls them.
 *  - 6to4, Teredo, the local-use NAT64 prefix 64:ff9b:1::/48 and IPv4-translated addresses
 *    are named ranges of ipaddr.js and refused whole: where they lead is decided by a relay or
 *    an operator-chosen prefix length, so the embedded IPv4 cannot be judged reliably, and no
 *    public upstream needs them.
 *
 * The check runs twice: when a seller publishes (every A/AAAA record, for a clear error) and
 * inside the HTTP client's DNS lookup at connect time (upstream-client.ts), so the address that
 * is dialled is the address that was checked and DNS rebinding cannot switch it afterwards.
 */
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

const ipv4Of = (parts: number[]) => new ipaddr.IPv4([parts[6] >> 8, parts[6] & 0xff, parts[7] >> 8, parts[7] & 0xff]);

/**
 * An IPv6 literal in WHATWG's canonical form. ipaddr.js reads a dotted tail such as
 * `::127.0.0.1` as IPv4-mapped, while the URL parser and the socket take it as IPv4-compatible
 * `::7f00:1`: the address judged must be the address dialled.
 */
function canonicalIPv6(text: string): string {
  if (!text.includes('.')) return text;
  return new URL(`http://[${text}]/`).hostname.slice(1, -1);
}

/** The range that refuses an address (ipaddr.js's name, or the embedded IPv4's), or null when it is a public unicast address. */
export function blockedRange(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(bare.includes(':') ? canonicalIPv6(bare) : bare);
  } catch {
    return 'unparseable';
  }
  if (parsed.kind() === 'ipv4') {
    const range = parsed.range();
    return range === 'unicast' ? null : range;
  }
  const v6 = parsed as ipaddr.IPv6;
  const { parts } = v6;
  const range = v6.range();
  if (range === 'ipv4Mapped' || (range === 'rfc6052' && parts[0] === 0x64 && parts[1] === 0xff9b && parts.slice(2, 6).every((p) => p === 0))) return blockedRange(ipv4Of(parts).toString());
  if (range !== 'unicast') return range;
  if (parts.slice(0, 6).every((p) => p === 0)) return 'ipv4Compatible';
  // 2000::/3: everything else (::/8 leftovers, 4000::/2, ...) is unallocated or special.
  if ((parts[0] & 0xe000) !== 0x2000) return 'notGlobalUnicast';
  return null;
}

export class UpstreamAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(`${host} resolves to ${address} (${range}), which upstreams may not use`);
    this.name = 'UpstreamAddressError';
  }
}

const stripBrackets = (host: string) => host.replace(/^\[|\]$/g, '');

/** Loopback names that ALLOW_LOCAL_UPSTREAMS lets through (devnet only). */
export const isLocalHost = (host: string): boolean => ['127.0.0.1', 'localhost', '::1'].includes(stripBrackets(host).toLowerCase());

export interface GuardOptions {
  /** DNS lookup to use instead of the system's (tests). */
  lookup?: LookupFunction;
  /** devnet: loopback hosts (127.0.0.1, localhost, ::1) are allowed. */
  allowLocal: boolean;
}

/**
 * A net/tls `lookup` that resolves every address and refuses the whole name if any of them is
 * not public, then answers in the shape the caller asked for (one address or all).
 */
export function guardedLookup(opts: GuardOptions): LookupFunction {
  const base = opts.lookup ?? (dnsLookup as unknown as LookupFunction);
  return (hostname, options, callback) => {
    base(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = (Array.isArray(addresses) ? addresses : [{ address: addresses as unknown as string, family: isIP(addresses as unknown as string) }]) as { address: string; family: number }[];
      if (!list.length) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      const local = opts.allowLocal && isLocalHost(hostname);
      for (const a of list) {
        const range = blockedRange(a.address);
        if (range && !(local && range === 'loopback')) return callback(new UpstreamAddressError(hostname, a.address, range), '', 0);
      }
      if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      else callback(null, list[0].address, list[0].family);
    });
  };
}

/** Checks a literal IP host, or resolves a name and checks every address. Throws UpstreamAddressError. */
export async function assertPublicHost(host: string, opts: GuardOptions): Promise<void> {
  const bare = stripBrackets(host);
  if (isIP(bare)) {
    const range = blockedRange(bare);
    if (range && !(opts.allowLocal && isLocalHost(bare) && range === 'loopback')) throw new UpstreamAddressError(host, bare, range);
    return;
  }
  const lookup = guardedLookup(opts);
  await new Promise<void>((resolve, reject) => lookup(bare, { all: true }, (err) => (err ? reject(err) : resolve())));
}
