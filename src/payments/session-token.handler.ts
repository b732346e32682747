/**
 * GET /v1/_session-token: what `extra.generateToken` of the transfer-with-authorization
 * entries points at. Everything a client needs to sign an EIP-3009 authorization for the
 * X-Session-Token rail: the USDC EIP-712 domain per chain, the types, and an example.
 */
import type { Handler } from '../http/server.ts';
import type { EvmChainAdapter } from '../chains/chain-adapter.ts';
import { requireChains } from './require-chains.ts';
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '../chains/usdc-abi.ts';


export const getSessionTokenHandler =
  (configured: { base: EvmChainAdapter; polygon: EvmChainAdapter } | null): Handler =>
  async () => {
    const chains = requireChains(configured);
    const domain = (c: EvmChainAdapter) => ({ name: 'USD Coin', version: '2', chainId: c.chainId, verifyingContract: c.usdc });
    const example = {
      network: 'base',
      from: '0x<buyer address>',
      to: chains.base.payTo,
      value: '50000',
      validAfter: '0',
      validBefore: '<unix seconds, at most maxTimeoutSeconds ahead>',
      nonce: '0x<32 random bytes, hex>',
      signature: '0x<65-byte EIP-712 signature of TransferWithAuthorization by from>',
    };
    return {
      status: 200,
      headers: { 'cache-control': 'public, max-age=300' },
      body: {
        header: 'X-Session-Token',
        format: 'base64url(JSON.stringify({network, from, to, value, validAfter, validBefore, nonce, signature}))',
        description:
          'Sign an EIP-3009 TransferWithAuthorization of USDC to the payTo of the quote entry, for at least maxAmountRequired, with the domain of the chain you hold USDC on. Retry the identical request with the token in X-Session-Token; the service submits the authorization and pays the gas. The authorization is single-use (its nonce).',
        domains: { base: domain(chains.base), polygon: domain(chains.polygon) },
        primaryType: 'TransferWithAuthorization',
        types: TRANSFER_WITH_AUTHORIZATION_TYPES,
        payTo: { base: chains.base.payTo, polygon: chains.polygon.payTo },
        example,
      },
    };
  };
