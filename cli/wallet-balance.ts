/**
 * `paycall wallet`: the wallet's address and its USDC and gas balances on each chain it can pay
 * on. The devnet's accounts hold an EVM and a Solana key, so both are shown; a key given with
 * PAYCALL_WALLET_KEY or --key-file is one kind, so its chains are. RPC URLs: BASE_RPC_URL,
 * POLYGON_RPC_URL, SOLANA_RPC_URL, else the devnet's; a chain without one is listed without
 * balances. USDC is native USDC at its mainnet address (the devnet deploys it there too).
 */
import { devnetInfo, EXIT, walletKey, CliError } from './context.ts';
import { table, usdc } from './output.ts';

interface Row {
  chain: string;
  address: string;
  usdc_atomic: string | null;
  gas: string | null;
  gas_unit: string;
  error?: string;
}

/** Whole units with up to 6 decimals, from an integer amount with `decimals` decimals. */
function decimal(v: bigint, decimals: number): string {
  const scale = 10n ** BigInt(decimals);
  const frac = (v % scale).toString().padStart(decimals, '0').slice(0, 6).replace(/0+$/, '');
  return `${v / scale}${frac ? `.${frac}` : ''}`;
}

export async function walletBalances(opts: { keyFile?: string; json?: boolean }): Promise<number> {
  const devnet = devnetInfo();
  // One key given is one kind of wallet; without one, the devnet's first account has both kinds.
  const given = opts.keyFile || process.env.PAYCALL_WALLET_KEY ? walletKey('base', opts.keyFile, devnet) : null;
  const evmKey = given ? (given.startsWith('0x') ? given : null) : walletKey('base', undefined, devnet);
  const solKey = given ? (given.startsWith('0x') ? null : given) : (devnet?.accounts[0]?.solanaSecretKey ?? null);
  const rpc = (chain: string) => process.env[`${chain.toUpperCase()}_RPC_URL`] ?? devnet?.chains[chain]?.rpcUrl;
  const [{ actionSignerFromKey }, { createPublicClient, http, parseAbi, getAddress }, { USDC_ADDRESSES }] = await Promise.all([import('../sdk/index.ts'), import('viem'), import('../src/chains/usdc-addresses.ts')]);
  const signer = (key: string) => {
    try {
      return actionSignerFromKey(key);
    } catch (e) {
      throw new CliError((e as Error).message, 'PAYCALL_WALLET_KEY or --key-file: an EVM 0x key or a Solana base58 secret key', EXIT.usage);
    }
  };
  const rows: Promise<Row>[] = [];
  if (evmKey) {
    const address = signer(evmKey).wallet;
    for (const chain of ['base', 'polygon'] as const) {
      const rpcUrl = rpc(chain);
      const gasUnit = chain === 'base' ? 'ETH' : 'POL';
      if (!rpcUrl) {
        rows.push(Promise.resolve({ chain, address, usdc_atomic: null, gas: null, gas_unit: gasUnit, error: `no RPC: set ${chain.toUpperCase()}_RPC_URL` }));
        continue;
      }
      const client = createPublicClient({ transport: http(rpcUrl) });
      rows.push(
        Promise.all([
          client.readContract({ address: getAddress(USDC_ADDRESSES[chain]), abi: parseAbi(['function balanceOf(address) view returns (uint256)']), functionName: 'balanceOf', args: [address as `0x${string}`] }),
          client.getBalance({ address: address as `0x${string}` }),
        ]).then(
          ([u, g]) => ({ chain, address, usdc_atomic: u.toString(), gas: decimal(g, 18), gas_unit: gasUnit }),
          (e: Error) => ({ chain, address, usdc_atomic: null, gas: null, gas_unit: gasUnit, error: `${rpcUrl}: ${(e as { shortMessage?: string }).shortMessage ?? e.message}` }),
        ),
      );
    }
  }
  if (solKey) {
    const address = signer(solKey).wallet;
    const rpcUrl = rpc('solana');
    if (!rpcUrl) rows.push(Promise.resolve({ chain: 'solana', address, usdc_atomic: null, gas: null, gas_unit: 'SOL', error: 'no RPC: set SOLANA_RPC_URL' }));
    else {
      const [{ solanaTokenBalance }, { Connection, PublicKey }] = await Promise.all([import('../sdk/wallet.ts'), import('@solana/web3.js')]);
      rows.push(
        Promise.all([solanaTokenBalance({ rpcUrl, mint: USDC_ADDRESSES.solana, owner: address }), new Connection(rpcUrl, 'confirmed').getBalance(new PublicKey(address))]).then(
          ([u, lamports]) => ({ chain: 'solana', address, usdc_atomic: u.toString(), gas: decimal(BigInt(lamports), 9), gas_unit: 'SOL' }),
          (e: Error) => ({ chain: 'solana', address, usdc_atomic: null, gas: null, gas_unit: 'SOL', error: `${rpcUrl}: ${e.message}` }),
        ),
      );
    }
  }
  const all = await Promise.all(rows);
  if (opts.json) process.stdout.write(`${JSON.stringify({ chains: all })}\n`);
  else {
    process.stdout.write(`${table(['CHAIN', 'ADDRESS', 'USDC', 'GAS'], all.map((r) => [r.chain, r.address, r.usdc_atomic === null ? r.error : usdc(r.usdc_atomic), r.gas === null ? '-' : `${r.gas} ${r.gas_unit}`]))}\n`);
  }
  // A chain that could not be asked is a failure a script must see; the others are printed all the same.
  return all.some((r) => r.error && !r.error.startsWith('no RPC')) ? EXIT.failed : EXIT.ok;
}
