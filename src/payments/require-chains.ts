import { AppError } from '../http/app-error.ts';

/** Without chain configuration nothing can be sold or settled; say so instead of quoting unpayable prices. */
export function requireChains<T>(configured: T | null): T {
  if (configured === null) {
    throw new AppError('service_unavailable', 503, 'Payments are not configured: no chain RPC is set up.', {
      hint: 'Start the devnet (npm run devnet) or configure the chain variables (see README).',
      headers: { 'retry-after': '30' },
    });
  }
  return configured;
}
