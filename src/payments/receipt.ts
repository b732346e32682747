/**
 * Decoding payment proofs. X-Payment is base64url (or standard base64) JSON; X-Session-Token
 * is base64url JSON of a signed EIP-3009 authorization. Every shape becomes one Receipt with
 * a canonical consumption key, so the same payment can never buy two calls whatever
 * shape it is presented in.
 */
import { AppError } from '../http/app-error.ts';
import type { Eip3009Authorization, EvmNetwork, Network } from '../chains/chain-adapter.ts';

export type Receipt =
  /** Spec EVM receipt: the buyer already sent a USDC transfer. */
  | { kind: 'evm-tx'; network: EvmNetwork; scheme: 'exact'; txHash: string }
  /** x402 reference EVM payload or the X-Session-Token rail: the service settles it. */
  | { kind: 'evm-authorization'; network: EvmNetwork; scheme: 'exact' | 'transfer-with-authorization'; authorization: Eip3009Authorization; signature: string }
  /** Spec Solana receipt: the transfer is on chain already. */
  | { kind: 'solana-tx'; network: 'solana'; scheme: 'exact' | 'spl-transfer'; signature: string; claimed: { from?: string; to?: string; amount?: string; mint?: string } }
  /** x402 reference Solana payload: a partially signed transfer the service co-signs and broadcasts. */
  | { kind: 'solana-transaction'; network: 'solana'; scheme: 'exact' | 'spl-transfer'; transaction: string };

/** What a receipt is consumed under in consumed_receipt (unique in the whole cluster). */
export function receiptKey(r: Receipt): string {
  switch (r.kind) {
    case 'evm-tx':
      return txKey(r.network, r.txHash);
    case 'evm-authorization':
      return `${r.network}:auth:${r.authorization.from.toLowerCase()}:${r.authorization.nonce.toLowerCase()}`;
    case 'solana-tx':
      return txKey('solana', r.signature);
    case 'solana-transaction':
      throw new Error('a partially signed Solana transaction is keyed by its transaction id once co-signed');
  }
}

/** EVM hashes are case-insensitive hex; Solana signatures are case-sensitive base58. */
export const txKey = (network: Network, tx: string) => `${network}:tx:${network === 'solana' ? tx : tx.toLowerCase()}`;

const invalid = (message: string) => new AppError('invalid_payment', 402, message, { hint: 'X-Payment is base64url JSON {x402Version:1, scheme, network, payload}; see the accepts of this quote.' });

const HEX32 = /^0x[0-9a-fA-F]{64}$/;
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BASE58_SIG = /^[1-9A-HJ-NP-Za-km-z]{64,90}$/;
const BASE58_ADDR = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const UINT = /^\d{1,78}$/;

/** base64url or standard base64, padded or not; anything else is refused before JSON.parse. */
export function decodeBase64Json(value: string, what: string): Record<string, unknown> {
  const trimmed = value.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) throw invalid(`${what} is not base64url or base64.`);
  const text = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid(`${what} does not decode to JSON.`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalid(`${what} does not decode to a JSON object.`);
  return parsed as Record<string, unknown>;
}

const str = (obj: Record<string, unknown>, field: string, pattern: RegExp, where: string): string => {
  const v = obj[field];
  if (typeof v !== 'string') throw invalid(`${where}.${field} is missing or not a string.`);
  if (!pattern.test(v)) throw invalid(`${where}.${field} is malformed.`);
  return v;
};

/** A uint256 given as a decimal string or a number (x402 clients differ); returned as a decimal string. */
const uintField = (obj: Record<string, unknown>, field: string, where: string): string => {
  const v = obj[field];
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return String(v);
  if (typeof v === 'string' && UINT.test(v)) return BigInt(v).toString();
  throw invalid(`${where}.${field} must be a non-negative integer (decimal string).`);
};

function parseAuthorization(obj: Record<string, unknown>, where: string): Eip3009Authorization {
  return {
    from: str(obj, 'from', EVM_ADDRESS, where),
    to: str(obj, 'to', EVM_ADDRESS, where),
    value: uintField(obj, 'value', where),
    validAfter: uintField(obj, 'validAfter', where),
    validBefore: uintField(obj, 'validBefore', where),
    nonce: str(obj, 'nonce', HEX32, where),
  };
}

export function decodePaymentHeader(header: string): Receipt {
  const doc = decodeBase64Json(header, 'X-Payment');
  if (doc.x402Version !== 1) throw invalid('X-Payment x402Version must be 1.');
  return receiptFrom(doc.network, doc.scheme, doc.payload, 'X-Payment');
}

/** The proof inside a v1 X-Payment or a v2 PAYMENT-SIGNATURE: the same payloads, the same rails. */
export function receiptFrom(network: unknown, scheme: unknown, payload: unknown, what: string): Receipt {
  if (network !== 'base' && network !== 'polygon' && network !== 'solana') throw invalid(`${what} network must be base, polygon or solana.`);
  if (typeof scheme !== 'string') throw invalid(`${what} scheme is missing.`);
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) throw invalid(`${what} payload must be an object.`);
  const p = payload as Record<string, unknown>;
  if (network === 'solana') {
    if (scheme !== 'exact' && scheme !== 'spl-transfer') throw invalid(`scheme ${scheme} is not accepted on solana (exact or spl-transfer).`);
    if (typeof p.transaction === 'string') {
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(p.transaction)) throw invalid('payload.transaction must be base64.');
      return { kind: 'solana-transaction', network, scheme, transaction: p.transaction };
    }
    const signature = str(p, 'signature', BASE58_SIG, 'payload');
    const claimed: { from?: string; to?: string; amount?: string; mint?: string } = {};
    for (const f of ['from', 'to', 'mint'] as const) if (p[f] !== undefined) claimed[f] = str(p, f, BASE58_ADDR, 'payload');
    if (p.amount !== undefined) claimed.amount = uintField(p, 'amount', 'payload');
    return { kind: 'solana-tx', network, scheme, signature, claimed };
  }
  if (scheme === 'exact' && p.authorization !== undefined) {
    if (!p.authorization || typeof p.authorization !== 'object') throw invalid('payload.authorization must be an object.');
    return {
      kind: 'evm-authorization',
      network,
      scheme,
      authorization: parseAuthorization(p.authorization as Record<string, unknown>, 'payload.authorization'),
      signature: str(p, 'signature', /^0x[0-9a-fA-F]{130}$/, 'payload'),
    };
  }
  if (scheme !== 'exact') throw invalid(`scheme ${scheme} is not accepted in ${what} on ${network} (use exact; the authorization rail uses X-Session-Token).`);
  return { kind: 'evm-tx', network, scheme, txHash: str(p, 'tx_hash', HEX32, 'payload') };
}

/** X-Session-Token: base64url JSON {network, from, to, value, validAfter, validBefore, nonce, signature}. */
export function decodeSessionToken(header: string): Receipt {
  const doc = decodeBase64Json(header, 'X-Session-Token');
  const network = doc.network;
  if (network !== 'base' && network !== 'polygon') throw invalid('X-Session-Token network must be base or polygon.');
  return {
    kind: 'evm-authorization',
    network,
    scheme: 'transfer-with-authorization',
    authorization: parseAuthorization(doc, 'X-Session-Token'),
    signature: str(doc, 'signature', /^0x[0-9a-fA-F]{130}$/, 'X-Session-Token'),
  };
}
