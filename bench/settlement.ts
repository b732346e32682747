/**
 * Daily settlement at scale on PostgreSQL: one million ledger rows over 10,000 sellers (spread
 * over the six payout chains) settled end to end: the day's run (grouping, one payout per
 * seller, every row claimed, amounts checked in SQL) and then every payout through the payout
 * worker (sign, record, broadcast, look up, mark the payout and its rows confirmed).
 *
 * The sends go to a COUNTING STUB of the PayoutSender (no chain): what is measured is the
 * settlement's own grouping and bookkeeping. Baseline in the same run: a plain
 * `select seller_id, sum(net) ... group by seller_id` over the same rows.
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/settlement.ts
 * BENCH_ROWS / BENCH_SELLERS change the size.
 */
import { createTestDatabase } from '../test/helpers/db.ts';
import { openDatabase } from '../src/db/orm.ts';
import { silentLogger } from '../src/log.ts';
import { createMetrics } from '../src/metrics/metrics.ts';
import { loadConfig } from '../src/config.ts';
import { PAYOUT_CHAINS, type PayoutChain, type PayoutSender, type PayoutSenders } from '../src/chains/payout-sender.ts';
import { runDailySettlement, workDuePayouts } from '../src/settlement/daily.ts';
import { sqlOf } from '../src/db/orm.ts';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const SELLERS = Number(process.env.BENCH_SELLERS ?? 10_000);

function countingSender(chain: PayoutChain, counts: { prepared: number; broadcast: number }): PayoutSender {
  return {
    chain,
    treasury: `stub-${chain}`,
    async prepare(_to, amount) {
      counts.prepared++;
      return { tx: `${chain}-${counts.prepared}`, raw: amount.toString(), validUntil: String(counts.prepared) };
    },
    async broadcast() {
      counts.broadcast++;
    },
    lookup: async () => 'confirmed',
    treasuryBalance: async () => 10n ** 18n,
  };
}

const secs = (ms: number) => (ms / 1000).toFixed(2);

export async function main() {
  const db = await createTestDatabase('bench_settlement');
  const orm = await openDatabase({ databaseUrl: db.url, pgliteDir: '', log: silentLogger });
  try {
    const em = sqlOf(orm);
    console.log(`seeding ${SELLERS} sellers and ${ROWS} ledger rows (not timed)...`);
    // Sellers alternate over the six chains; EVM sellers get an 0x wallet, Solana ones a base58-looking one.
    await em.execute(
      `insert into seller (id, wallet, wallet_key, slug, payout_chain, status)
       select i, w, lower(w), 'bench-' || i, (array['base','polygon','arbitrum','optimism','avalanche','solana'])[1 + i % 6], 'active'
         from (select i, case when i % 6 = 5 then 'So1' || lpad(i::text, 40, 'A') else '0x' || lpad(to_hex(i), 40, '0') end as w from generate_series(1, ?) i) s`,
      [SELLERS],
    );
    await em.execute(`insert into seller_wallet (seller_id, chain, address, address_key) select id, payout_chain, wallet, wallet_key from seller`);
    await em.execute(
      `insert into payment (network, tx, payer, amount, quoted_amount, endpoint_path, seller_id, take_bps, fee, net, created_at)
       select 'base', 'bench-' || i, '0xpayer', a, a, '/v1/x/y', 1 + i % ?, 300, a - (a * 9700) / 10000, (a * 9700) / 10000, now() - interval '1 hour'
         from (select i, (1000 + i % 5000)::numeric as a from generate_series(1, ?) i) r`,
      [SELLERS, ROWS],
    );
    await em.execute('analyze payment');
    await em.execute('analyze seller');

    const cutoff = new Date(Date.now() + 86_400_000);
    // Baseline: the plain grouping the settlement must at least do.
    let t0 = performance.now();
    await em.execute(`select seller_id, sum(net) from payment where seller_id is not null and payout_id is null and created_at < ?::timestamptz group by seller_id`, [cutoff.toISOString()]);
    const baselineMs = performance.now() - t0;

    const counts = { prepared: 0, broadcast: 0 };
    const senders: PayoutSenders = Object.fromEntries(PAYOUT_CHAINS.map((c) => [c, countingSender(c, counts)]));
    const config = loadConfig({}).settlement;
    const deps = { orm, senders, config, metrics: createMetrics(), log: silentLogger, now: () => cutoff };

    t0 = performance.now();
    const { ran } = await runDailySettlement(deps);
    const runMs = performance.now() - t0;
    if (!ran) throw new Error('the settlement did not run');
    t0 = performance.now();
    await workDuePayouts(deps, new AbortController().signal);
    const payMs = performance.now() - t0;

    const [check] = await em.execute<{ payouts: string; sent: string; marked: string; unmarked: string; paid: string; earned: string }[]>(
      `select (select count(*) from payout) as payouts, (select count(*) from payout where status = 'sent') as sent,
              (select count(*) from payment where payout_id is not null) as marked, (select count(*) from payment where payout_id is null) as unmarked,
              (select sum(amount) from payout where status = 'sent')::text as paid, (select sum(net) from payment)::text as earned`,
    );
    const totalMs = runMs + payMs;
    console.log(`sends went to a counting stub PayoutSender (no chain): ${counts.prepared} signed, ${counts.broadcast} broadcast`);
    console.log(`payouts ${check.payouts} (sent ${check.sent}); ledger rows marked ${check.marked}, unmarked ${check.unmarked}; paid ${check.paid} = earned ${check.earned}: ${check.paid === check.earned ? 'ok' : 'MISMATCH'}`);
    console.log(`baseline  group-by sum over ${ROWS} rows          ${secs(baselineMs).padStart(7)} s   ${Math.round(ROWS / (baselineMs / 1000))} rows/s`);
    console.log(`run       payouts written, rows claimed + checked ${secs(runMs).padStart(7)} s   ${Math.round(ROWS / (runMs / 1000))} rows/s`);
    console.log(`payouts   ${check.payouts} sent + confirmed + rows marked ${secs(payMs).padStart(7)} s   ${Math.round(Number(check.payouts) / (payMs / 1000))} payouts/s`);
    console.log(`total     settlement end to end                   ${secs(totalMs).padStart(7)} s   ${Math.round(ROWS / (totalMs / 1000))} rows/s   (target < 60 s)`);
    console.log(`ratio     settlement / baseline: ${(totalMs / baselineMs).toFixed(1)}x (run alone ${(runMs / baselineMs).toFixed(1)}x)`);
  } finally {
    await orm.close(true);
    await db.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
