/**
 * Read-only seller reports: stats (calls, paid, net earnings, errors and upstream latency per
 * endpoint over the last 24 h and 30 days, plus totals since `since`) and hourly error counts.
 * A seller earns only for calls its upstream served (settlement/payout-store.ts): earned, fee
 * and withdrawable count delivered rows; undelivered calls and what their buyers paid are
 * shown apart (`undelivered_calls`, `undelivered_atomic`); calls and paid count every paid call.
 */
import type { Handler } from '../http/server.ts';
import { sqlOf, type Database } from '../db/orm.ts';
import { refuseSuspended, requireSeller } from './seller-store.ts';

const DAY = 86_400;

interface Window {
  calls: number;
  paid_atomic: string;
  earned_atomic: string;
  undelivered_calls: number;
  undelivered_atomic: string;
  errors: number;
  p50_latency_ms: number | null;
  p95_latency_ms: number | null;
}

const num = (v: unknown) => (v === null || v === undefined ? null : Math.round(Number(v)));

export function sellerStatsHandler(orm: Database): Handler {
  return async (ctx) => {
    const em = sqlOf(orm);
    const seller = await requireSeller(em, ctx.params.wallet, 404);
    await refuseSuspended(em, seller);
    const now = Math.floor(Date.now() / 1000);
    const since = ctx.query.since !== undefined ? Number(ctx.query.since) : Number(seller.created_at);
    const starts = { since, d1: now - DAY, d30: now - 30 * DAY };

    const [totals] = await em.execute<Record<string, string>[]>(
      `select count(*) as calls, coalesce(sum(amount), 0)::text as paid,
              coalesce(sum(fee) filter (where delivery = 'delivered'), 0)::text as fee, coalesce(sum(net) filter (where delivery = 'delivered'), 0)::text as net,
              coalesce(sum(net) filter (where payout_id is null and delivery = 'delivered'), 0)::text as withdrawable, coalesce(sum(net) filter (where payout_id is not null), 0)::text as settled,
              count(*) filter (where delivery = 'undelivered') as undelivered_calls, coalesce(sum(amount) filter (where delivery = 'undelivered'), 0)::text as undelivered
         from payment where seller_id = ? and created_at >= to_timestamp(?)`,
      [seller.id, since],
    );
    const windowCols = (w: string) =>
      `count(p.id) filter (where p.created_at >= to_timestamp(?)) as calls_${w},
       coalesce(sum(p.amount) filter (where p.created_at >= to_timestamp(?)), 0)::text as paid_${w},
       coalesce(sum(p.net) filter (where p.created_at >= to_timestamp(?) and p.delivery = 'delivered'), 0)::text as net_${w},
       count(p.id) filter (where p.created_at >= to_timestamp(?) and p.delivery = 'undelivered') as undelivered_calls_${w},
       coalesce(sum(p.amount) filter (where p.created_at >= to_timestamp(?) and p.delivery = 'undelivered'), 0)::text as undelivered_${w}`;
    const endpoints = await em.execute<Record<string, string | number | null>[]>(
      `select e.id, e.slug, e.path_suffix, e.status, extract(epoch from e.deleted_at)::bigint as deleted_at, ${windowCols('since')}, ${windowCols('d1')}, ${windowCols('d30')}
         from seller_endpoint e left join payment p on p.endpoint_id = e.id and p.seller_id = e.seller_id
        where e.seller_id = ? group by e.id order by e.id`,
      [...Array(5).fill(since), ...Array(5).fill(starts.d1), ...Array(5).fill(starts.d30), seller.id],
    );
    const errors = await em.execute<Record<string, string | number>[]>(
      `select endpoint_id, coalesce(sum(count) filter (where hour >= date_trunc('hour', to_timestamp(?))), 0) as e_since,
              coalesce(sum(count) filter (where hour >= date_trunc('hour', to_timestamp(?))), 0) as e_d1,
              coalesce(sum(count) filter (where hour >= date_trunc('hour', to_timestamp(?))), 0) as e_d30
         from endpoint_error_count where seller_id = ? group by endpoint_id`,
      [since, starts.d1, starts.d30, seller.id],
    );
    const latency = await em.execute<Record<string, string | number | null>[]>(
      `select o.endpoint_id,
              percentile_cont(0.5) within group (order by o.latency_ms) filter (where o.at >= to_timestamp(?)) as p50_d1,
              percentile_cont(0.95) within group (order by o.latency_ms) filter (where o.at >= to_timestamp(?)) as p95_d1,
              percentile_cont(0.5) within group (order by o.latency_ms) as p50_d30,
              percentile_cont(0.95) within group (order by o.latency_ms) as p95_d30
         from endpoint_observation o join seller_endpoint e on e.id = o.endpoint_id
        where e.seller_id = ? and o.ok and o.latency_ms is not null and o.at >= to_timestamp(?)
        group by o.endpoint_id`,
      [starts.d1, starts.d1, seller.id, starts.d30],
    );
    const window = (e: Record<string, unknown>, w: 'd1' | 'd30'): Window => {
      const err = errors.find((x) => Number(x.endpoint_id) === e.id);
      const lat = latency.find((x) => Number(x.endpoint_id) === e.id);
      return {
        calls: Number(e[`calls_${w}`]),
        paid_atomic: String(e[`paid_${w}`]),
        earned_atomic: String(e[`net_${w}`]),
        undelivered_calls: Number(e[`undelivered_calls_${w}`]),
        undelivered_atomic: String(e[`undelivered_${w}`]),
        errors: Number(err?.[`e_${w}`] ?? 0),
        p50_latency_ms: num(lat?.[`p50_${w}`]),
        p95_latency_ms: num(lat?.[`p95_${w}`]),
      };
    };
    return {
      status: 200,
      body: {
        wallet: seller.wallet,
        slug: seller.slug,
        calls: Number(totals.calls),
        paid_atomic: totals.paid,
        earned_atomic: totals.net,
        fee_atomic: totals.fee,
        withdrawable_atomic: totals.withdrawable,
        settled_atomic: totals.settled,
        undelivered_calls: Number(totals.undelivered_calls),
        undelivered_atomic: totals.undelivered,
        since,
        by_endpoint: endpoints.map((e) => ({
          id: e.id,
          path: `/v1/${e.slug}/${e.path_suffix}`,
          status: e.status,
          deleted_at: e.deleted_at === null ? null : Number(e.deleted_at),
          calls: Number(e.calls_since),
          paid_atomic: String(e.paid_since),
          earned_atomic: String(e.net_since),
          undelivered_calls: Number(e.undelivered_calls_since),
          undelivered_atomic: String(e.undelivered_since),
          errors: Number(errors.find((x) => Number(x.endpoint_id) === e.id)?.e_since ?? 0),
          last_24h: window(e, 'd1'),
          last_30d: window(e, 'd30'),
        })),
      },
    };
  };
}

export function sellerErrorsHandler(orm: Database): Handler {
  return async (ctx) => {
    const em = sqlOf(orm);
    const seller = await requireSeller(em, ctx.params.wallet, 404);
    await refuseSuspended(em, seller);
    const since = ctx.query.since !== undefined ? Number(ctx.query.since) : Math.floor(Date.now() / 1000) - 7 * DAY;
    const rows = await em.execute<{ ts: string; code: string; count: string }[]>(
      `select extract(epoch from hour)::bigint as ts, code, sum(count) as count from endpoint_error_count
        where seller_id = ? and hour >= date_trunc('hour', to_timestamp(?)) group by hour, code order by hour desc, code`,
      [seller.id, since],
    );
    return { status: 200, body: rows.map((r) => ({ ts: Number(r.ts), code: r.code, count: Number(r.count) })) };
  };
}
