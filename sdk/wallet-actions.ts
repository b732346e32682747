/**
 * Typed calls for what a wallet does on paycall besides paying: seller registration and
 * endpoints, statistics, API keys, the account and payouts. Each builds the action's payload
 * text (openapi.yaml, "Wallet signatures"), signs it with an ActionSigner and calls the
 * generated client; the answer is openapi-fetch's `{data, error, response}`, so callers see
 * the contract's own types for every status.
 */
import type { Client } from 'openapi-fetch';
import type { components, paths } from '../src/generated/openapi.ts';
import { addEndpointPayload, defaultPayoutChain, idPayload, issueApiKeyPayload, registerBindingPayload, registerPayload, updateEndpointPayload, walletPayload } from '../src/http/wallet-signature.ts';
import type { ActionSigner } from './action-signer.ts';

type Schemas = components['schemas'];
export type EndpointInput = Omit<Schemas['AddEndpointRequest'], 'signature' | 'timestamp'>;
export type EndpointChanges = Omit<Schemas['UpdateEndpointRequest'], 'signature' | 'timestamp'>;
export type SellerEndpoint = Schemas['SellerEndpoint'];
export type PayoutChain = Schemas['PayoutChain'];
export type Scope = Schemas['Scope'];

/** A call whose answer was not the one another call needs (update reads the endpoint first). */
export class PaycallApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`the service answered ${status}${body && typeof body === 'object' && 'error' in body ? ` ${String((body as { error: unknown }).error)}` : ''}`);
    this.name = 'PaycallApiError';
  }
}

export interface WalletActionsOptions {
  /** Unix seconds; signatures are valid within [now - 300 s, now + 60 s] of the service's clock. */
  now?: () => number;
}

export function walletActions(api: Client<paths>, signer: ActionSigner, opts: WalletActionsOptions = {}) {
  const now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  const wallet = signer.wallet;
  const path = { wallet };
  const signed = async (action: string, payload: string) => {
    const timestamp = now();
    return { signature: await signer.sign(action, payload, timestamp), timestamp };
  };
  // Reads carry the signature in the query (`sig`, `ts`).
  const signedQuery = async (action: string) => {
    const s = await signed(action, walletPayload(wallet));
    return { sig: s.signature, ts: s.timestamp };
  };
  const list = async () => api.GET('/v1/_seller/{wallet}/endpoints', { params: { path, query: await signedQuery('list_endpoints') } });

  return {
    wallet,
    /** Shape B: one wallet, payouts on its own chain. */
    register: async (slug: string) => api.POST('/v1/_seller/register', { body: { wallet, slug, ...(await signed('register', registerPayload(slug))) } }),
    /** Shape A with this wallet as primary (on `chain`) and more chain wallets, each signing the binding payload. */
    registerMultiChain: async (slug: string, r: { chain: PayoutChain; wallets?: MultiChainRegistration['wallets']; payoutChain?: PayoutChain }) =>
      registerMultiChain(api, { slug, primary: signer, wallets: { ...r.wallets, [r.chain]: signer }, payoutChain: r.payoutChain, now }),
    publish: async (e: EndpointInput) => api.POST('/v1/_seller/{wallet}/endpoints', { params: { path }, body: { ...e, ...(await signed('add_endpoint', addEndpointPayload(e))) } }),
    list,
    /**
     * The signature covers the endpoint as it is after the update, so the current values are
     * read first (or given as `current`, e.g. from a list the caller already holds).
     */
    update: async (id: number, changes: EndpointChanges, current?: SellerEndpoint) => {
      let before = current;
      if (!before) {
        const listed = await list();
        if (!listed.data) throw new PaycallApiError(listed.response.status, listed.error);
        before = listed.data.endpoints.find((e) => e.id === id);
      }
      // An unknown id: sign what was asked and let the service answer its 404.
      const after = { id, upstream_url: before?.upstream_url ?? '', atomic_price: Number(before?.atomic_price ?? 0), unit: before?.unit ?? '', desc: before?.desc ?? '', mode: before?.mode ?? 'proxy', ...changes };
      return api.PATCH('/v1/_seller/{wallet}/endpoints/{id}', { params: { path: { wallet, id } }, body: { ...changes, ...(await signed('update_endpoint', updateEndpointPayload(after))) } });
    },
    delete: async (id: number) => {
      const s = await signed('delete_endpoint', idPayload(id));
      return api.DELETE('/v1/_seller/{wallet}/endpoints/{id}', { params: { path: { wallet, id }, header: { 'X-Signature': s.signature, 'X-Timestamp': s.timestamp } } });
    },
    resume: async () => api.POST('/v1/_seller/{wallet}/resume', { params: { path }, body: await signed('resume', walletPayload(wallet)) }),
    stats: async (since?: number) => api.GET('/v1/_seller/{wallet}/stats', { params: { path, query: { ...(await signedQuery('stats')), since } } }),
    errors: async (since?: number) => api.GET('/v1/_seller/{wallet}/errors', { params: { path, query: { ...(await signedQuery('errors')), since } } }),
    payout: async () => api.POST('/v1/_seller/{wallet}/payouts', { params: { path }, body: await signed('request_payout', walletPayload(wallet)) }),
    account: async () => api.GET('/v1/account', { params: { query: { wallet, ...(await signedQuery('read_account')) } } }),
    /** The wallet's keys, revoked ones included, signed by the wallet (works when no key is live). */
    listKeys: async () => api.GET('/v1/keys', { params: { query: { wallet, ...(await signedQuery('list_api_keys')) } } }),
    issueKey: async (label: string, scopes: Scope[]) => api.POST('/v1/keys', { body: { wallet, label, scopes, ...(await signed('issue_api_key', issueApiKeyPayload({ label, scopes }))) } }),
    revokeKey: async (id: number) => {
      const s = await signed('revoke_api_key', idPayload(id));
      return api.DELETE('/v1/keys/{id}', { params: { path: { id }, header: { 'X-Wallet': wallet, 'X-Signature': s.signature, 'X-Timestamp': s.timestamp } } });
    },
  };
}

export type WalletActions = ReturnType<typeof walletActions>;

export interface MultiChainRegistration {
  slug: string;
  /** The signer of each chain's wallet; one key may stand on several chains of its family. */
  wallets: Partial<Record<PayoutChain, ActionSigner>>;
  /** The seller's main wallet (the catalog's `seller`): a signer of `wallets`, or its address. */
  primary: ActionSigner | string;
  /** Where payouts go; default the primary wallet's chain (the service's rule, computed here so it is signed). */
  payoutChain?: PayoutChain;
  /** Unix seconds (default the clock). */
  now?: () => number;
}

/**
 * The shape-A register body, every wallet signing action `register` over the binding payload
 * (slug, wallet map, primary wallet, payout chain; openapi.yaml, registerSeller). The payout
 * chain is always sent, so the body says what the signatures cover.
 */
export async function multiChainRegistrationBody(r: MultiChainRegistration): Promise<Schemas['RegisterSellerRequest']> {
  const entries = Object.entries(r.wallets) as [PayoutChain, ActionSigner][];
  const wallets = Object.fromEntries(entries.map(([chain, s]) => [chain, s.wallet])) as Record<PayoutChain, string>;
  const primary = typeof r.primary === 'string' ? r.primary : r.primary.wallet;
  const payoutChain = r.payoutChain ?? defaultPayoutChain(wallets, primary);
  if (!payoutChain) throw new Error('the primary wallet must be one of the wallets');
  const ts = (r.now ?? (() => Math.floor(Date.now() / 1000)))();
  const payload = registerBindingPayload({ slug: r.slug, wallets, primary_wallet: primary, payout_chain: payoutChain });
  const signatures = Object.fromEntries(await Promise.all(entries.map(async ([chain, s]) => [chain, await s.sign('register', payload, ts)] as const)));
  return { primary_wallet: primary, wallets, signatures, slug: r.slug, ts, payout_chain: payoutChain };
}

/** Shape A: several chain wallets (EVM and Solana) under one slug; see multiChainRegistrationBody. */
export async function registerMultiChain(api: Client<paths>, r: MultiChainRegistration) {
  return api.POST('/v1/_seller/register', { body: await multiChainRegistrationBody(r) });
}

/** Listing keys with a Bearer key (scope `read`); with the wallet's signature it is `walletActions(...).listKeys()`. */
export const listApiKeys = (api: Client<paths>, apiKey: string) => api.GET('/v1/keys', { headers: { authorization: `Bearer ${apiKey}` } });
