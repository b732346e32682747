/**
 * `paycall mcp` options -> the bridge (mcp-bridge.ts). Each flag has a PAYCALL_* variable,
 * because MCP clients start servers from a JSON configuration where env is the natural place.
 * Without a cap or budget the bridge still has one (0.10 USDC per call, 1 USDC per session):
 * it pays without asking anyone, so "unlimited" must be asked for by writing a large number.
 */
import type { Command } from 'commander';
import { parseAllow, parseUsdc } from './spend-policy.ts';
import { baseUrlOf, checkChain, devnetInfo, UsageError, walletKey } from './context.ts';
import type { V2Chain } from '../sdk/x402-v2-payer.ts';

export const DEFAULT_MAX_PER_CALL = '0.10';
export const DEFAULT_BUDGET = '1.00';

export function addMcpCommand(program: Command, version: string): void {
  program
    .command('mcp')
    .description('Serve the catalog to a desktop agent as a stdio MCP server that pays for tool calls from the wallet, within a spend policy.')
    .option('--base-url <url>', 'the service (default: PAYCALL_URL, the devnet’s, or http://127.0.0.1:4020)')
    .option('--chain <chain>', 'pay on base, polygon or solana (PAYCALL_CHAIN)')
    .option('--max-per-call <usdc>', `never pay more than this for one call, e.g. 0.05 (PAYCALL_MAX_PER_CALL; default ${DEFAULT_MAX_PER_CALL})`)
    .option('--budget <usdc>', `never pay more than this in total while this process runs (PAYCALL_BUDGET; default ${DEFAULT_BUDGET})`)
    .option('--allow <list>', 'pay only for these tools or sellers, comma-separated: pdf-md,acme.* (PAYCALL_ALLOW; default every tool)')
    .option('--key-file <file>', 'read the wallet key from this file (default: PAYCALL_WALLET_KEY, or the devnet’s first account)')
    .action(async (opts: { baseUrl?: string; chain?: string; maxPerCall?: string; budget?: string; allow?: string; keyFile?: string }) => {
      const chain = opts.chain ?? process.env.PAYCALL_CHAIN ?? 'base';
      checkChain(chain);
      const devnet = devnetInfo();
      const rpcUrl = chain === 'solana' ? (process.env.SOLANA_RPC_URL ?? devnet?.chains.solana?.rpcUrl) : undefined;
      if (chain === 'solana' && !rpcUrl) throw new UsageError('no Solana RPC', 'set SOLANA_RPC_URL');
      // Loaded here, not at the top: the MCP SDK and the payers cost about 2 s of start-up that
      // every other command (and --help) would pay for nothing.
      const { runBridge } = await import('./mcp-bridge.ts');
      await runBridge({
        baseUrl: baseUrlOf(opts.baseUrl, devnet),
        chain: chain as V2Chain,
        walletKey: walletKey(chain, opts.keyFile, devnet),
        rpcUrl,
        policy: {
          maxPerCall: parseUsdc(opts.maxPerCall ?? (process.env.PAYCALL_MAX_PER_CALL || DEFAULT_MAX_PER_CALL), '--max-per-call'),
          budget: parseUsdc(opts.budget ?? (process.env.PAYCALL_BUDGET || DEFAULT_BUDGET), '--budget'),
          allow: parseAllow(opts.allow ?? process.env.PAYCALL_ALLOW),
        },
        apiKey: process.env.PAYCALL_API_KEY || undefined,
        version,
        log: (line) => process.stderr.write(`paycall mcp: ${line}\n`),
      });
    });
}
