/**
 * API keys and the account, each operation wrapped in its checks: the wallet signature (action,
 * where it is carried, single use) and the Bearer key (with-api-key.ts).
 */
import type { OperationId } from '../generated/operation-ids.ts';
import type { Handler } from '../http/server.ts';
import { createSignatureCheck, type SignatureDeps } from '../http/with-seller-signature.ts';
import { idPayload, issueApiKeyPayload, walletPayload } from '../http/wallet-signature.ts';
import { accountHandler, accountWallet } from './account.ts';
import { issueKeyHandler, listKeysHandler, revokeKeyHandler, revokingWallet, type IssueApiKeyBody } from './key.handlers.ts';
import type { KeyAuth } from './with-api-key.ts';

export interface AccountHandlerDeps extends SignatureDeps {
  secret: string;
  keys: KeyAuth;
}

export function createAccountHandlers(deps: AccountHandlerDeps): Partial<Record<OperationId, Handler>> {
  const signed = createSignatureCheck(deps);
  const revoke = revokeKeyHandler(deps);
  const account = accountHandler(deps);
  return {
    // A Bearer key on this route is refused before the body is read (refuseBearer, wired in app.ts).
    issueApiKey: signed(
      { action: 'issue_api_key', from: 'body', singleUse: true, payloadOf: (ctx) => issueApiKeyPayload(ctx.body as IssueApiKeyBody), walletOf: (ctx) => (ctx.body as IssueApiKeyBody).wallet },
      issueKeyHandler(deps),
    ),
    listApiKeys: deps.keys.required('listApiKeys', listKeysHandler(deps)),
    revokeApiKey: deps.keys.orSignature(
      'revokeApiKey',
      signed({ action: 'revoke_api_key', from: 'headers', singleUse: true, payloadOf: (ctx) => idPayload(Number(ctx.params.id)), walletOf: revokingWallet }, revoke),
      revoke,
    ),
    getAccount: deps.keys.orSignature(
      'getAccount',
      signed({ action: 'read_account', from: 'query', singleUse: false, payloadOf: (ctx) => walletPayload(accountWallet(ctx)), walletOf: accountWallet }, account),
      account,
    ),
  };
}
