/**
 * API keys and the account, each operation wrapped in its wallet-signature check (action, where
 * it is carried, single use). Which take a Bearer key instead, or only one, is the policy
 * table's (src/policies.ts), applied in app.ts with with-api-key.ts.
 */
import type { OperationId } from '../generated/operation-ids.ts';
import type { Handler } from '../http/server.ts';
import { createSignatureCheck, type SignatureDeps } from '../http/with-seller-signature.ts';
import { idPayload, issueApiKeyPayload, walletPayload } from '../http/wallet-signature.ts';
import { accountHandler, accountWallet } from './account.ts';
import { issueKeyHandler, listingWallet, listKeysHandler, revokeKeyHandler, revokingWallet, type IssueApiKeyBody } from './key.handlers.ts';

export interface AccountHandlerDeps extends SignatureDeps {
  secret: string;
}

export function createAccountHandlers(deps: AccountHandlerDeps): Partial<Record<OperationId, Handler>> {
  const signed = createSignatureCheck(deps);
  const revoke = revokeKeyHandler(deps);
  const account = accountHandler(deps);
  return {
    // A Bearer key on this route is refused before the body is read (its policy's preflight).
    issueApiKey: signed(
      { action: 'issue_api_key', from: 'body', singleUse: true, payloadOf: (ctx) => issueApiKeyPayload(ctx.body as IssueApiKeyBody), walletOf: (ctx) => (ctx.body as IssueApiKeyBody).wallet },
      issueKeyHandler(deps),
    ),
    listApiKeys: signed({ action: 'list_api_keys', from: 'query', singleUse: false, payloadOf: (ctx) => walletPayload(listingWallet(ctx)), walletOf: listingWallet }, listKeysHandler(deps)),
    revokeApiKey: signed({ action: 'revoke_api_key', from: 'headers', singleUse: true, payloadOf: (ctx) => idPayload(Number(ctx.params.id)), walletOf: revokingWallet }, revoke),
    getAccount: signed({ action: 'read_account', from: 'query', singleUse: false, payloadOf: (ctx) => walletPayload(accountWallet(ctx)), walletOf: accountWallet }, account),
  };
}
