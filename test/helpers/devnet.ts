/**
 * One devnet per test file: start it in `before`, stop it in `after`. A temporary data dir
 * keeps test runs from touching .data/devnet.json of a developer's running devnet.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevnet, type DevnetHandle } from '../../devnet/start-devnet.ts';
import { silentLogger } from '../../src/log.ts';

export type TestDevnet = DevnetHandle & { dataDir: string };

export async function startTestDevnet(opts: { baseUrl?: string } = {}): Promise<TestDevnet> {
  const dataDir = await mkdtemp(join(tmpdir(), 'paycall-devnet-'));
  const handle = await startDevnet({ dataDir, log: silentLogger, baseUrl: opts.baseUrl });
  const stop = handle.stop;
  return {
    ...handle,
    dataDir,
    async stop() {
      await stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
