/**
 * Compiles test-usdc.sol with solc-js (in-process WebAssembly: no compiler download) and
 * writes test-usdc.artifact.json. The devnet loads the committed artifact because loading
 * solc-js costs seconds at every start; test/chains/devnet.test.ts recompiles and fails when
 * the artifact no longer matches the source.
 *
 *   npx tsx devnet/contracts/compile-test-usdc.ts          regenerate the artifact
 *   npx tsx devnet/contracts/compile-test-usdc.ts --check  exit 1 when it is stale
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface TestUsdcArtifact {
  contractName: 'TestUsdc';
  solcVersion: string;
  sourceSha256: string;
  abi: unknown[];
  /** Creation code (runs the constructor: masterMinter = deployer). */
  bytecode: `0x${string}`;
  /** Runtime code, what hardhat_setCode puts at the mainnet USDC address. */
  deployedBytecode: `0x${string}`;
}

export const SOURCE_PATH = fileURLToPath(new URL('./test-usdc.sol', import.meta.url));
export const ARTIFACT_PATH = fileURLToPath(new URL('./test-usdc.artifact.json', import.meta.url));

export function compileTestUsdc(source: string = readFileSync(SOURCE_PATH, 'utf8')): TestUsdcArtifact {
  // solc is CommonJS and ships no ESM entry; createRequire keeps it out of the ESM graph.
  const solc = createRequire(import.meta.url)('solc') as { version(): string; compile(input: string): string };
  const input = {
    language: 'Solidity',
    sources: { 'test-usdc.sol': { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      // No metadata hash: the bytecode then depends only on the source and the settings.
      metadata: { bytecodeHash: 'none', appendCBOR: false },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join('\n')}`);
  const contract = output.contracts['test-usdc.sol']['TestUsdc'];
  return {
    contractName: 'TestUsdc',
    solcVersion: solc.version(),
    sourceSha256: createHash('sha256').update(source).digest('hex'),
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
    deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
  };
}

export function readTestUsdcArtifact(): TestUsdcArtifact {
  return JSON.parse(readFileSync(ARTIFACT_PATH, 'utf8')) as TestUsdcArtifact;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const fresh = compileTestUsdc();
  const text = JSON.stringify(fresh, null, 2) + '\n';
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(ARTIFACT_PATH, 'utf8');
    } catch {
      // missing counts as stale
    }
    if (current !== text) {
      process.stderr.write(`${ARTIFACT_PATH} is stale: run npx tsx devnet/contracts/compile-test-usdc.ts\n`);
      process.exit(1);
    }
    process.stdout.write('test-usdc artifact is up to date\n');
  } else {
    writeFileSync(ARTIFACT_PATH, text);
    process.stdout.write(`wrote ${ARTIFACT_PATH} (solc ${fresh.solcVersion})\n`);
  }
}
