/**
 * Which addresses an upstream may resolve to. Only globally routable unicast addresses pass:
 * ipaddr.js names every special range (loopback, private, link-local with the cloud metadata
 * address 169.254.169.254, carrier-grade NAT, multicast, unique-local, reserved, NAT64 and
 * tunnel prefixes, ...), so nothing here is a hand-written range. IPv4-mapped IPv6 addresses are
 * judged as the IPv4 address they carry.
 *
 * The check runs twice: when a seller publishes (every A/AAAA record, for a clear error) and
 * inside the HTTP client's DNS lookup at connect time (upstream-client.ts), so the address that
 * is dialled is the address that was checked and DNS rebinding cannot switch it afterwards.
 */
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The ipaddr.js range of an address, or null when it is a public unicast address. */
export function blockedRange(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return 'unparseable';
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  return range === 'unicast' ? null : range;
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
