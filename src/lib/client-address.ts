/**
 * Who called, as the seller's upstream is told (RFC 7239 `Forwarded` and `X-Forwarded-For`).
 * The socket peer is the only address the service knows first hand. What a client writes in
 * `Forwarded`, `X-Forwarded-For` or `X-Real-IP` is its to invent, so it is kept only when the
 * peer is one of TRUSTED_PROXIES (the operator's load balancers), and then the chain they wrote
 * is extended with the peer, as every proxy on the way does.
 */
import ipaddr from 'ipaddr.js';
import { createLru } from './lru.ts';

/** A parsed TRUSTED_PROXIES entry: an address and its prefix length. */
export type TrustedProxy = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * `10.0.0.0/8, 192.0.2.7, 2001:db8::/32` -> the ranges; throws naming the first entry that is
 * neither an IP address nor a CIDR range (config.ts turns it into one configuration line).
 */
export function parseTrustedProxies(raw: string | undefined): TrustedProxy[] {
  const entries = (raw ?? '').split(',').map((e) => e.trim()).filter(Boolean);
  return entries.map((entry): TrustedProxy => {
    try {
      if (entry.includes('/')) return ipaddr.parseCIDR(entry);
      const address = ipaddr.parse(entry);
      // ipaddr.parse reads legacy spellings (`10.1`, `0x0a000001`); a proxy list names addresses plainly.
      if (!ipaddr.IPv4.isValidFourPartDecimal(entry) && !ipaddr.IPv6.isValid(entry)) throw new Error('not plain');
      return [address, address.kind() === 'ipv4' ? 32 : 128];
    } catch {
      throw new Error(`"${entry}" is not an IP address or CIDR range (e.g. 10.0.0.0/8, 192.0.2.7, 2001:db8::/32)`);
    }
  });
}

/** An IPv4-mapped peer (`::ffff:10.0.0.1`, how a dual-stack socket reports IPv4) is its IPv4 address. */
const normalise = (address: string) => (ipaddr.isValid(address) ? ipaddr.process(address) : null);

type Address = NonNullable<ReturnType<typeof normalise>>;

const trustedAddress = (trusted: readonly TrustedProxy[], address: Address) => trusted.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));

export function isTrustedProxy(trusted: readonly TrustedProxy[], peer: string): boolean {
  const address = normalise(peer);
  return address ? trustedAddress(trusted, address) : false;
}

/** RFC 7239 node: IPv6 in brackets and quotes; no address is `unknown`. */
function forwardedNode(address: Address | null): string {
  if (!address) return 'unknown';
  return address.kind() === 'ipv6' ? `"[${address.toString()}]"` : address.toString();
}

/** RFC 7239 value: a token as is, anything else (a host with its port) as a quoted string. */
const forwardedValue = (value: string) => (/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value) ? value : `"${value.replace(/["\\]/g, '\\$&')}"`);

/** Client-address headers nobody is trusted to set on the way in: the service sets Forwarded and X-Forwarded-For. */
export const CLIENT_ADDRESS_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'x-real-ip', 'x-client-ip', 'true-client-ip', 'cf-connecting-ip'] as const;
/** What a trusted proxy's chain may carry on to the upstream. */
const KEPT_FROM_TRUSTED = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port'];

const joined = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(', ') : v)?.trim() || undefined;

/**
 * The client-address headers for the upstream. The service listens on plain HTTP (TLS ends at
 * the load balancer, which reports it in its own Forwarded element), so this hop's proto is
 * `http`; its host is the Host the service was called with.
 */
/** Parsed socket peers (a few balancers and clients, over and over). */
const peers = createLru<string, { address: Address | null; node: string; text: string }>(1024);

export function clientAddressHeaders(
  incoming: Record<string, string | string[] | undefined>,
  peer: string,
  trusted: readonly TrustedProxy[],
): Record<string, string> {
  // A peer is parsed once, not once per forward (ipaddr's parser showed in the proxy profiles).
  let seen = peers.get(peer);
  if (!seen) {
    const parsed = normalise(peer);
    peers.set(peer, (seen = { address: parsed, node: forwardedNode(parsed), text: parsed?.toString() ?? 'unknown' }));
  }
  const { address, node, text: peerAddress } = seen;
  const host = joined(incoming.host);
  const element = host ? `for=${node};proto=http;host=${forwardedValue(host)}` : `for=${node};proto=http`;
  const out: Record<string, string> = {};
  if (address && trustedAddress(trusted, address)) {
    for (const name of KEPT_FROM_TRUSTED) {
      const value = joined(incoming[name]);
      if (value) out[name] = value;
    }
  }
  out.forwarded = out.forwarded ? `${out.forwarded}, ${element}` : element;
  out['x-forwarded-for'] = out['x-forwarded-for'] ? `${out['x-forwarded-for']}, ${peerAddress}` : peerAddress;
  return out;
}
