/**
 * What guards each operation, in one table: the wallet-signature action that authorises it, the
 * Bearer API key it takes (scope, and whether the key is the only way in, an alternative to the
 * signature, or only names the buyer of a paid call), its rate-limit bucket, its JSON body limit
 * and the checks that refuse it on its headers alone. Keyed by the generated OperationId, so a
 * new operation fails `tsc` until it says how it is guarded.
 *
 * app.ts applies the table with the existing wrappers (applyPolicies): the signature is the
 * feature's own wrapper (with-seller-signature.ts; its action must match this table), the key
 * wraps that (accounts/with-api-key.ts) and the rate limit wraps everything (with-rate-limit.ts).
 * Rate limits are per process in memory, shared by every instance when REDIS_URL is set
 * (rate-limiter.ts). Health, the catalog, docs and the session-token description are not limited:
 * load balancers and crawlers poll them.
 */
import type { IncomingMessage } from 'node:http';
import type { KeyAuth } from './accounts/with-api-key.ts';
import type { Scope } from './accounts/scopes.ts';
import type { RateLimitBucket } from './config.ts';
import type { OperationId } from './generated/operation-ids.ts';
import { refuseBearer } from './http/bearer.ts';
import type { Handler } from './http/server.ts';
import { byClientAddress, byWallet, type KeyOf, type WithRateLimit } from './http/with-rate-limit.ts';
import { signedBy } from './http/with-seller-signature.ts';

export interface OperationPolicy {
  /** The wallet-signature action (SellerAction `action`) that authorises the operation. */
  signature?: string;
  /**
   * A Bearer API key with `scope` (`any`: every live key). `required`: only a key gets in;
   * `or-signature`: a key stands in for the signature; `optional`: a paid call, where a key only
   * names the buyer and the payment proof still pays.
   */
  key?: { scope: Scope | 'any'; use: 'required' | 'or-signature' | 'optional' };
  /** Who is counted against which bucket; a request carrying a payment proof is never refused. */
  rateLimit?: { bucket: RateLimitBucket; keyOf: KeyOf };
  /** Bytes of JSON body accepted (the server's default otherwise). */
  jsonBodyLimit?: number;
  /** Refuses the request on its headers, before its body is read or validated. */
  preflight?: (req: IncomingMessage) => void;
}

const quote = { bucket: 'quote', keyOf: byClientAddress } as const;
const seller = { bucket: 'seller', keyOf: byWallet } as const;
const keys = { bucket: 'keys', keyOf: byWallet } as const;
const paidCall = { key: { scope: 'pay', use: 'optional' }, rateLimit: quote } as const;

export const OPERATION_POLICIES: Record<OperationId, OperationPolicy> = {
  // Paid calls: the payment proof authorises; a `pay` key may name the buyer.
  pdfMd: paidCall,
  pdfText: paidCall,
  pdfJson: paidCall,
  invoiceExtract: paidCall,
  callSellerEndpoint: paidCall,
  // MCP: counted like unpaid quotes, except a tools/call carrying `_meta["x402/payment"]`
  // (with-rate-limit.ts finds it in the body). A built-in's document comes inline, base64: the
  // JSON limit is the tools' 50 MB upload limit in base64 plus the envelope (the decoded
  // document is held to TOOL_MAX_BODY_BYTES).
  mcp: { key: { scope: 'pay', use: 'optional' }, rateLimit: quote, jsonBodyLimit: 68 * 1024 * 1024 + 64 * 1024 },
  // Public reads.
  getMeta: {},
  getWellKnownX402: {},
  getHealth: {},
  getDocs: {},
  getDocsAsset: {},
  getOpenApi: {},
  getCatalogPage: {},
  getCatalogAsset: {},
  // The seller console: a page and its files; every action it takes is a public operation below.
  getConsole: {},
  getConsoleAsset: {},
  listDiscoveryResources: {},
  searchDiscoveryResources: {},
  getSessionToken: {},
  solanaFacilitator: { rateLimit: { bucket: 'facilitator', keyOf: byClientAddress } },
  // API keys and the account.
  // A wallet signature too: once every key is revoked, a key can no longer list them.
  listApiKeys: { signature: 'list_api_keys', key: { scope: 'read', use: 'or-signature' }, rateLimit: keys },
  issueApiKey: { signature: 'issue_api_key', rateLimit: keys, preflight: refuseBearer },
  revokeApiKey: { signature: 'revoke_api_key', key: { scope: 'any', use: 'or-signature' }, rateLimit: keys },
  getAccount: { signature: 'read_account', key: { scope: 'balance:read', use: 'or-signature' }, rateLimit: keys },
  // The seller marketplace.
  registerSeller: { signature: 'register', rateLimit: seller, jsonBodyLimit: 4096 },
  listSellerEndpoints: { signature: 'list_endpoints', key: { scope: 'read', use: 'or-signature' }, rateLimit: seller },
  addSellerEndpoint: { signature: 'add_endpoint', key: { scope: 'endpoints:write', use: 'or-signature' }, rateLimit: seller, jsonBodyLimit: 4096 },
  deleteSellerEndpoint: { signature: 'delete_endpoint', key: { scope: 'endpoints:write', use: 'or-signature' }, rateLimit: seller },
  updateSellerEndpoint: { signature: 'update_endpoint', key: { scope: 'endpoints:write', use: 'or-signature' }, rateLimit: seller },
  resumeSeller: { signature: 'resume', rateLimit: seller },
  getSellerStats: { signature: 'stats', key: { scope: 'read', use: 'or-signature' }, rateLimit: seller },
  getSellerErrors: { signature: 'errors', key: { scope: 'read', use: 'or-signature' }, rateLimit: seller },
  requestPayout: { signature: 'request_payout', key: { scope: 'payout:request', use: 'or-signature' }, rateLimit: { bucket: 'payout', keyOf: byWallet } },
};

type Policies = Record<OperationId, OperationPolicy>;
const entries = (policies: Policies) => Object.entries(policies) as [OperationId, OperationPolicy][];

/** The scope each key-taking operation needs (accounts/with-api-key.ts reads it). */
export const keyScopesOf = (policies: Policies): Partial<Record<OperationId, Scope | 'any'>> =>
  Object.fromEntries(entries(policies).flatMap(([op, p]) => (p.key ? [[op, p.key.scope]] : [])));

export const jsonBodyLimitsOf = (policies: Policies): Partial<Record<OperationId, number>> =>
  Object.fromEntries(entries(policies).flatMap(([op, p]) => (p.jsonBodyLimit !== undefined ? [[op, p.jsonBodyLimit]] : [])));

export const preflightsOf = (policies: Policies): Partial<Record<OperationId, (req: IncomingMessage) => void>> =>
  Object.fromEntries(entries(policies).flatMap(([op, p]) => (p.preflight ? [[op, p.preflight]] : [])));

/**
 * Wraps every handler as its policy says: key around the feature's (signed) handler, rate limit
 * around that. Refuses to start when a handler's signature action is not the table's, or when an
 * `or-signature` operation's handler carries no signature check to stand in for.
 */
export function applyPolicies(
  handlers: Partial<Record<OperationId, Handler>>,
  policies: Policies,
  wrappers: { keys: Pick<KeyAuth, 'required' | 'optional' | 'orSignature'>; withRateLimit: WithRateLimit },
): Partial<Record<OperationId, Handler>> {
  const wrapped: Partial<Record<OperationId, Handler>> = {};
  for (const [op, policy] of entries(policies)) {
    const handler = handlers[op];
    if (!handler) continue;
    const signed = signedBy(handler);
    if (signed && signed.action !== policy.signature) throw new Error(`${op}: signed as ${signed.action}, but its policy says ${policy.signature ?? 'no signature'}`);
    let h = handler;
    if (policy.key?.use === 'required') h = wrappers.keys.required(op, h);
    else if (policy.key?.use === 'optional') h = wrappers.keys.optional(op, h);
    else if (policy.key?.use === 'or-signature') {
      if (!signed) throw new Error(`${op}: a key stands in for a signature, but its handler checks none`);
      h = wrappers.keys.orSignature(op, h, signed.unsigned);
    }
    if (policy.rateLimit) h = wrappers.withRateLimit(policy.rateLimit.bucket, policy.rateLimit.keyOf, h);
    wrapped[op] = h;
  }
  return wrapped;
}

/** One handler map from the features' maps; an operation two features claim is a wiring error. */
export function mergeHandlers(...maps: Partial<Record<OperationId, Handler>>[]): Partial<Record<OperationId, Handler>> {
  const merged: Partial<Record<OperationId, Handler>> = {};
  for (const map of maps) {
    for (const [op, handler] of Object.entries(map) as [OperationId, Handler][]) {
      if (merged[op]) throw new Error(`${op} has two handlers`);
      merged[op] = handler;
    }
  }
  return merged;
}
