/**
 * What a buyer's wallet does, for tests, demos and manual checks against the devnet: the SDK's
 * wallet functions (they work against any RPC URL), under the name the tests have always used.
 */
export * from '../sdk/wallet.ts';
