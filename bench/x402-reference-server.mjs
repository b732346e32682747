/**
 * The reference x402 server of bench/quote-oop.ts: Express + @x402/express protecting one
 * route with two `exact` accepts (Base Sepolia and Solana devnet USDC), in a process of its own.
 * Plain JavaScript, so it loads the packages that bench/quote-oop.ts installed on demand into a
 * cache folder outside the repository (they are not paycall dependencies):
 *
 *   node bench/x402-reference-server.mjs <install dir> <route path> <evm payTo> <solana payTo> <solana feePayer>
 *
 * The facilitator client answers `getSupported` from memory: an unpaid call never reaches the
 * facilitator (the middleware syncs the supported kinds once at start), so the 402 path measured
 * is the middleware's own, without a network hop we would be timing instead. Prints `port <n>`.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';

const [dir, route, evmPayTo, solanaPayTo, feePayer] = process.argv.slice(2);
const require = createRequire(join(dir, 'package.json'));
const load = (name) => import(require.resolve(name));

const { default: express } = await load('express');
const { paymentMiddleware, x402ResourceServer } = await load('@x402/express');
const { ExactEvmScheme } = await load('@x402/evm/exact/server');
const { ExactSvmScheme } = await load('@x402/svm/exact/server');

const EVM = 'eip155:84532';
const SOLANA = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';
const facilitator = {
  getSupported: async () => ({
    kinds: [
      { x402Version: 2, scheme: 'exact', network: EVM },
      { x402Version: 2, scheme: 'exact', network: SOLANA, extra: { feePayer } },
    ],
    extensions: [],
    signers: {},
  }),
  verify: async () => ({ isValid: false, invalidReason: 'bench_only' }),
  settle: async () => ({ success: false, errorReason: 'bench_only', transaction: '', network: EVM }),
};

const server = new x402ResourceServer(facilitator).register(EVM, new ExactEvmScheme()).register(SOLANA, new ExactSvmScheme());
const app = express();
app.use(
  paymentMiddleware(
    {
      [`POST ${route}`]: {
        accepts: [
          { scheme: 'exact', price: '$0.01', network: EVM, payTo: evmPayTo },
          { scheme: 'exact', price: '$0.01', network: SOLANA, payTo: solanaPayTo },
        ],
        description: 'Extract the text of a PDF document',
        mimeType: 'application/json',
      },
    },
    server,
  ),
);
app.post(route, (_req, res) => res.json({ ok: true }));

const listener = app.listen(0, '127.0.0.1', () => process.stdout.write(`port ${listener.address().port}\n`));
process.on('SIGTERM', () => listener.close(() => process.exit(0)));
