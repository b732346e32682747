/**
 * The embedded database survives crashes: the real service process on PGlite, paid calls
 * (USDC transfers on a test devnet, X-Payment {tx_hash}) and quotes driven against it,
 * SIGKILLed at random moments — during start-up (cluster creation, migrations, recovery) as
 * well as while serving — and restarted on the same directory each time. Every restart must
 * come up, and every paid answer the service acknowledged (200) must be in the ledger
 * (table `payment`), read at the end straight from the PGlite cluster.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnService } from '../helpers/app.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.ts';
import { makePdf, xPayment } from '../helpers/paid.ts';
import { evmTransferUsdc } from '../../devnet/buyer.ts';
import { openDatabase } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/log.ts';

/** At least 20 kills (the bar); each restart is a few seconds of Node start-up. */
const KILLS = 20;
/** A kill of a serving process lands within this long after it started listening. */
const SERVING_WINDOW_MS = 3000;
const PRICE = 5000n; // pdf-text, one page

let devnet: TestDevnet;
let dir: string;
before(async () => {
  devnet = await startTestDevnet();
  dir = await mkdtemp(join(tmpdir(), 'paycall-crash-'));
});
after(async () => {
  await devnet?.stop();
  await rm(dir, { recursive: true, force: true });
});

interface Life {
  killedBeforeListening: boolean;
  startMs: number | null;
  acked: string[];
  unexpected: string[];
}

test(`the PGlite ledger keeps every acknowledged paid call across ${KILLS} SIGKILLs at random moments`, async (t) => {
  const pgliteDir = join(dir, 'pglite');
  const env = {
    DATABASE_URL: '',
    PAYCALL_PROFILE: 'devnet',
    PAYCALL_START_DEVNET: '0',
    PAYCALL_DATA_DIR: devnet.dataDir,
    PGLITE_DIR: pgliteDir,
    TOOL_WORKERS: '1',
    LOG_LEVEL: 'info',
  };
  const base = devnet.info.chains.base;
  const buyerKey = devnet.info.accounts[0].evmPrivateKey;
  const acked: string[] = [];
  const lives: Life[] = [];
  let lastStartMs = 3000;
  let call = 0;
  const newest: { acked: { tx: string; pdf: Buffer } | null } = { acked: null };
  let replays = 0;

  /** One paid call: 402 quote, transfer, paid retry. Returns the tx hash when answered 200. */
  const paidCall = async (url: string, life: Life): Promise<void> => {
    const pdf = await makePdf(1, `crash call ${call++}`);
    const post = (headers: Record<string, string>) => fetch(`${url}/v1/pdf-text`, { method: 'POST', headers: { 'content-type': 'application/pdf', ...headers }, body: new Uint8Array(pdf) });
    const quote = await post({});
    await quote.arrayBuffer();
    if (quote.status !== 402) {
      life.unexpected.push(`quote ${quote.status}`);
      return;
    }
    const tx = await evmTransferUsdc({ rpcUrl: base.rpcUrl, chainId: base.chainId, usdc: base.usdc, privateKey: buyerKey, to: base.payTo, amount: PRICE });
    const paid = await post({ 'x-payment': xPayment('base', 'exact', { tx_hash: tx }) });
    const body = await paid.text();
    if (paid.status === 200) {
      life.acked.push(tx.toLowerCase());
      newest.acked = { tx, pdf };
    }
    else life.unexpected.push(`paid ${paid.status} ${body.slice(0, 200)}`);
  };

  for (let i = 0; i <= KILLS; i++) {
    const last = i === KILLS;
    const svc = spawnService(env);
    const { child, exited } = svc;
    let killed = false;
    const spawnedAt = performance.now();
    const life: Life = { killedBeforeListening: false, startMs: null, acked: [], unexpected: [] };
    lives.push(life);
    // Even lives die while starting (cluster creation, recovery, migrations), odd ones while
    // serving paid calls: both at a random moment of their phase.
    const duringStartUp = i % 2 === 0;
    let timer: NodeJS.Timeout | null = null;
    const killAfter = (ms: number) => {
      timer = setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, ms);
    };
    if (!last && duringStartUp) killAfter(Math.random() * lastStartMs);

    const url = await svc.listening;
    if (url === null) {
      // Exited before listening: fine only if we killed it.
      assert.ok(killed, `start ${i} failed on its own (exit ${await exited}):\n${svc.output().slice(-3000)}`);
      life.killedBeforeListening = true;
      continue;
    }
    life.startMs = performance.now() - spawnedAt;
    lastStartMs = life.startMs;
    if (!last && !duringStartUp) killAfter(Math.random() * SERVING_WINDOW_MS);

    // A fresh process has nothing in memory: the replay of the newest acknowledged call is
    // answered from the database (the stored answer, X-Idempotent-Replay), so it survived.
    const lastAcked = newest.acked;
    if (lastAcked) {
      try {
        const replay = await fetch(`${url}/v1/pdf-text`, { method: 'POST', headers: { 'content-type': 'application/pdf', 'x-payment': xPayment('base', 'exact', { tx_hash: lastAcked.tx }) }, body: new Uint8Array(lastAcked.pdf) });
        await replay.arrayBuffer();
        assert.equal(replay.status, 200, `replay after restart ${i}`);
        assert.equal(replay.headers.get('x-idempotent-replay'), 'true');
        replays++;
      } catch (e) {
        if (!killed) throw e;
      }
    }

    if (last) {
      await paidCall(url, life);
      acked.push(...life.acked);
      child.kill('SIGTERM');
      assert.equal(await exited, 0, svc.output().slice(-3000));
      break;
    }
    // Drive paid calls until the kill lands; errors after it are the kill's.
    while (!killed) {
      try {
        await paidCall(url, life);
      } catch (e) {
        if (!killed) throw e;
      }
    }
    if (timer) clearTimeout(timer);
    await exited;
    acked.push(...life.acked);
  }

  const startedThenKilled = lives.filter((l) => l.startMs !== null).length - 1;
  t.diagnostic(
    `kills: ${KILLS} (${lives.filter((l) => l.killedBeforeListening).length} during start-up, ${startedThenKilled} while serving); ` +
      `acknowledged paid calls: ${acked.length}; replays answered from the database after a restart: ${replays}; start-up ms (median): ${median(lives.flatMap((l) => (l.startMs === null ? [] : [l.startMs])))}`,
  );
  const unexpected = lives.flatMap((l) => l.unexpected);
  assert.deepEqual(unexpected.filter((u) => / 5\d\d /.test(` ${u} `)), [], 'no 5xx while serving');
  assert.ok(acked.length > 0, 'some paid calls were acknowledged');

  // The ledger, read from the cluster itself once the last process has stopped cleanly.
  const orm = await openDatabase({ databaseUrl: null, pgliteDir, migrate: false, log: silentLogger });
  try {
    const rows = await orm.em.getConnection().execute<{ tx: string }[]>('select lower(tx) as tx from payment');
    const inLedger = new Set(rows.map((r: { tx: string }) => r.tx));
    assert.deepEqual(
      acked.filter((tx) => !inLedger.has(tx)),
      [],
      'every acknowledged paid call has its ledger row',
    );
  } finally {
    await orm.close(true);
  }
});

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.floor(s.length / 2)] ?? 0);
}
