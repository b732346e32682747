/**
 * Hardhat config for the devnet's `hardhat node` processes (see devnet/evm/hardhat-node.ts).
 * One simulated network; the chain id comes from the node task's --chain-id flag. Paths point
 * into the devnet's data dir (PAYCALL_HARDHAT_DIR) so nothing is written into the repository.
 */
import { defineConfig } from 'hardhat/config';

const dir = process.env.PAYCALL_HARDHAT_DIR ?? '.data/hardhat';

export default defineConfig({
  paths: { artifacts: `${dir}/artifacts`, cache: `${dir}/cache` },
  networks: {
    devnet: {
      type: 'edr-simulated',
      // Buyers, relayer and treasury are funded with hardhat_setBalance; no built-in accounts.
      accounts: [],
      // A reverted transaction must be mined like on a real chain, so tests can look it up.
      throwOnTransactionFailures: false,
      throwOnCallFailures: true,
      // Automine gives every transaction its own block (fast tests, no waiting for an interval).
      // By default each block is at least 1 s after the previous one, so a burst of N
      // transactions pushes the chain clock N seconds ahead of the wall clock and honest
      // payments look late. Allowing equal timestamps keeps block time = wall time (as on Base
      // and Polygon, where many transactions share a ~2 s block). evm_setNextBlockTimestamp
      // still moves the clock ahead on purpose.
      allowBlocksWithSameTimestamp: true,
    },
  },
});
