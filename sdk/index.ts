/** paycall's TypeScript SDK: the typed client generated from openapi.yaml, payers for every rail. */
export * from './paycall-client.ts';
export * from './payers.ts';
export type { paths, components } from '../src/generated/openapi.ts';
export * from './action-signer.ts';
export * from './wallet-actions.ts';
