/** API-key test helpers: issuing a key with a wallet signature, and the Bearer header. */
import { call, nowS, type Answer, type TestSigner } from './sellers.ts';

export { TEST_API_KEY_SECRET } from './app.ts';

export async function issueKey(baseUrl: string, signer: TestSigner, scopes: string[], label: string | null = null, opts: { timestamp?: number; headers?: Record<string, string> } = {}): Promise<Answer> {
  const timestamp = opts.timestamp ?? nowS();
  const signature = await signer.sign('issue_api_key', JSON.stringify({ label, scopes }), timestamp);
  return call(baseUrl, 'issueApiKey', 'POST', '/v1/keys', { body: { wallet: signer.wallet, label, scopes, signature, timestamp }, headers: opts.headers });
}

let issued = 0;

/**
 * Issues a key and returns its secret; fails the test if issuance does. The default label is
 * unique: two identical signed requests in the same second are one single-use message.
 */
export async function newKey(baseUrl: string, signer: TestSigner, scopes: string[], label: string | null = `key-${++issued}`): Promise<{ key: string; id: number }> {
  const r = await issueKey(baseUrl, signer, scopes, label);
  if (r.status !== 201) throw new Error(`issuing a key answered ${r.status}: ${JSON.stringify(r.body)}`);
  return { key: r.body.api_key, id: r.body.id };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

export async function signedRevokeHeaders(signer: TestSigner, id: number | string, opts: { wallet?: string; timestamp?: number } = {}): Promise<Record<string, string>> {
  const timestamp = opts.timestamp ?? nowS();
  return { 'x-wallet': opts.wallet ?? signer.wallet, 'x-signature': await signer.sign('revoke_api_key', String(id), timestamp), 'x-timestamp': String(timestamp) };
}
