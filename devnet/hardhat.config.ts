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
    },
  },
});
