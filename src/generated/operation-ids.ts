// GENERATED from openapi.yaml by codegen/generate.ts — do not edit.
// Change openapi.yaml, then run `npm run codegen` and commit the result.

/** Every operationId of openapi.yaml, in document order. The server checks each has a handler. */
export const operationIds = [
  'pdfMd',
  'pdfText',
  'pdfJson',
  'invoiceExtract',
  'callSellerEndpoint',
  'getMeta',
  'getHealth',
  'getDocs',
  'getDocsAsset',
  'getOpenApi',
  'listApiKeys',
  'issueApiKey',
  'revokeApiKey',
  'getAccount',
  'registerSeller',
  'listSellerEndpoints',
  'addSellerEndpoint',
  'deleteSellerEndpoint',
  'updateSellerEndpoint',
  'resumeSeller',
  'getSellerStats',
  'getSellerErrors',
  'requestPayout',
  'solanaFacilitator',
  'listDiscoveryResources',
  'getSessionToken',
] as const;

export type OperationId = (typeof operationIds)[number];

/** Method (lower case) and path template of each operation. */
export const operations = {
  pdfMd: { method: 'post', path: '/v1/pdf-md' },
  pdfText: { method: 'post', path: '/v1/pdf-text' },
  pdfJson: { method: 'post', path: '/v1/pdf-json' },
  invoiceExtract: { method: 'post', path: '/v1/invoice-extract' },
  callSellerEndpoint: { method: 'post', path: '/v1/{slug}/{path_suffix}' },
  getMeta: { method: 'get', path: '/v1/_meta' },
  getHealth: { method: 'get', path: '/v1/_health' },
  getDocs: { method: 'get', path: '/docs' },
  getDocsAsset: { method: 'get', path: '/docs/assets/{asset}' },
  getOpenApi: { method: 'get', path: '/openapi.yaml' },
  listApiKeys: { method: 'get', path: '/v1/keys' },
  issueApiKey: { method: 'post', path: '/v1/keys' },
  revokeApiKey: { method: 'delete', path: '/v1/keys/{id}' },
  getAccount: { method: 'get', path: '/v1/account' },
  registerSeller: { method: 'post', path: '/v1/_seller/register' },
  listSellerEndpoints: { method: 'get', path: '/v1/_seller/{wallet}/endpoints' },
  addSellerEndpoint: { method: 'post', path: '/v1/_seller/{wallet}/endpoints' },
  deleteSellerEndpoint: { method: 'delete', path: '/v1/_seller/{wallet}/endpoints/{id}' },
  updateSellerEndpoint: { method: 'patch', path: '/v1/_seller/{wallet}/endpoints/{id}' },
  resumeSeller: { method: 'post', path: '/v1/_seller/{wallet}/resume' },
  getSellerStats: { method: 'get', path: '/v1/_seller/{wallet}/stats' },
  getSellerErrors: { method: 'get', path: '/v1/_seller/{wallet}/errors' },
  requestPayout: { method: 'post', path: '/v1/_seller/{wallet}/payouts' },
  solanaFacilitator: { method: 'post', path: '/v1/_facilitator/solana' },
  listDiscoveryResources: { method: 'get', path: '/discovery/resources' },
  getSessionToken: { method: 'get', path: '/v1/_session-token' },
} as const satisfies Record<OperationId, { method: string; path: string }>;
