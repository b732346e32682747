// The console's client of the public API: the wallet signs each action as the EIP-712
// SellerAction (src/http/wallet-signature.ts), fetch sends it exactly as any other client
// would. Payload texts are the API's (openapi.yaml, "What is signed"); keys keep their order.
import { keccakText } from './keccak.js';

const SELLER_ACTION = [
  { name: 'wallet', type: 'address' },
  { name: 'action', type: 'string' },
  { name: 'payloadHash', type: 'bytes32' },
  { name: 'timestamp', type: 'uint256' },
];
const DOMAIN_TYPE = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
];
// The signature domain's chainId is fixed by the API (8453) whatever chain the wallet is on:
// a SellerAction authorises an API action, it moves nothing on chain.
const SIGNATURE_CHAIN_ID = 8453;

/** An error answer of the API: its status and its body's `error` code, message and hint. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body && typeof body === 'object' && typeof body.message === 'string' ? body.message : `HTTP ${status}`);
    this.status = status;
    this.code = body && typeof body === 'object' ? body.error : undefined;
    this.hint = body && typeof body === 'object' ? body.hint : undefined;
  }
}

const nowS = () => Math.floor(Date.now() / 1000);

export function createApi({ provider, serviceName, wallet }) {
  /** The wallet's EIP-712 signature of `action` over `payload` at `timestamp`. */
  const sign = async (action, payload, timestamp) => {
    const typed = {
      types: { EIP712Domain: DOMAIN_TYPE, SellerAction: SELLER_ACTION },
      primaryType: 'SellerAction',
      domain: { name: serviceName, version: '1', chainId: SIGNATURE_CHAIN_ID },
      message: { wallet, action, payloadHash: keccakText(payload), timestamp },
    };
    return provider.request({ method: 'eth_signTypedData_v4', params: [wallet, JSON.stringify(typed)] });
  };
  const signed = async (action, payload) => {
    const timestamp = nowS();
    return { signature: await sign(action, payload, timestamp), timestamp };
  };
  // Reads may reuse a signature within its window (the API lets them): one wallet prompt per
  // read action every few minutes, not one per refresh. Kept 60 s short of the 300 s window.
  const reads = new Map();
  const query = async (action, extra = {}) => {
    let s = reads.get(action);
    if (!s || nowS() - s.timestamp > 240) {
      s = await signed(action, wallet);
      reads.set(action, s);
    }
    return new URLSearchParams({ ...extra, sig: s.signature, ts: String(s.timestamp) }).toString();
  };
  const request = async (method, path, { body, headers } = {}) => {
    const res = await fetch(path, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(headers ?? {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
      credentials: 'omit',
      cache: 'no-store',
    });
    const text = await res.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!res.ok) throw new ApiError(res.status, data);
    return data;
  };
  const w = encodeURIComponent(wallet);

  return {
    wallet,
    /**
     * Shape A with this one wallet on base and polygon (an EVM address is the same on both),
     * paid on the chosen chain: the binding payload names all of it, and the one signature
     * stands for both chains' wallets (same wallet, same message).
     */
    register: async (slug, payoutChain) => {
      const chains = ['base', 'polygon'];
      if (!chains.includes(payoutChain)) chains.push(payoutChain);
      chains.sort();
      const lower = wallet.toLowerCase();
      const payload = JSON.stringify({ slug, wallets: Object.fromEntries(chains.map((c) => [c, lower])), primary_wallet: lower, payout_chain: payoutChain });
      const s = await signed('register', payload);
      return request('POST', '/v1/_seller/register', {
        body: { primary_wallet: wallet, wallets: Object.fromEntries(chains.map((c) => [c, wallet])), signatures: Object.fromEntries(chains.map((c) => [c, s.signature])), slug, ts: s.timestamp, payout_chain: payoutChain },
      });
    },
    account: async () => request('GET', `/v1/account?${await query('read_account', { wallet })}`),
    stats: async (since) => request('GET', `/v1/_seller/${w}/stats?${await query('stats', { series: 'daily', ...(since !== undefined ? { since: String(since) } : {}) })}`),
    errors: async (since) => request('GET', `/v1/_seller/${w}/errors?${await query('errors', since !== undefined ? { since: String(since) } : {})}`),
    endpoints: async () => request('GET', `/v1/_seller/${w}/endpoints?${await query('list_endpoints')}`),
    publish: async (e) => {
      const payload = JSON.stringify({ path_suffix: e.path_suffix, upstream_url: e.upstream_url, atomic_price: e.atomic_price, unit: e.unit, desc: e.desc, mode: e.mode });
      return request('POST', `/v1/_seller/${w}/endpoints`, { body: { ...e, ...(await signed('add_endpoint', payload)) } });
    },
    /** `after` is the endpoint as it will be: the signature covers every field, changed or not. */
    update: async (id, changes, after) => {
      const payload = JSON.stringify({ id, upstream_url: after.upstream_url, atomic_price: after.atomic_price, unit: after.unit, desc: after.desc, mode: after.mode });
      return request('PATCH', `/v1/_seller/${w}/endpoints/${id}`, { body: { ...changes, ...(await signed('update_endpoint', payload)) } });
    },
    remove: async (id) => {
      const s = await signed('delete_endpoint', String(id));
      return request('DELETE', `/v1/_seller/${w}/endpoints/${id}`, { headers: { 'x-signature': s.signature, 'x-timestamp': String(s.timestamp) } });
    },
    payout: async () => request('POST', `/v1/_seller/${w}/payouts`, { body: await signed('request_payout', wallet) }),
    keys: async () => request('GET', `/v1/keys?${await query('list_api_keys', { wallet })}`),
    issueKey: async (label, scopes) => request('POST', '/v1/keys', { body: { wallet, label, scopes, ...(await signed('issue_api_key', JSON.stringify({ label, scopes }))) } }),
    revokeKey: async (id) => {
      const s = await signed('revoke_api_key', String(id));
      return request('DELETE', `/v1/keys/${id}`, { headers: { 'x-wallet': wallet, 'x-signature': s.signature, 'x-timestamp': String(s.timestamp) } });
    },
  };
}

/**
 * Atomic USDC (6 decimals) as a decimal text, exactly: BigInt, never a float.
 * '1234567' -> '1.234567', '20000' -> '0.02'.
 */
export function formatUsdc(atomic) {
  const v = BigInt(atomic);
  const neg = v < 0n;
  const a = neg ? -v : v;
  const whole = a / 1000000n;
  const frac = (a % 1000000n).toString().padStart(6, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/** A decimal USDC text as an atomic integer (Number, as the API's atomic_price is a JSON integer); null when malformed. */
export function parseUsdc(text) {
  const m = /^(\d+)(?:\.(\d{1,6}))?$/.exec(text.trim());
  if (!m) return null;
  const atomic = BigInt(m[1]) * 1000000n + BigInt((m[2] ?? '').padEnd(6, '0'));
  return atomic <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(atomic) : null;
}
