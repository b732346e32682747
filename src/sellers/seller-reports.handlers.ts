/**
 * Read-only seller reports: stats (calls, paid, net earnings, errors and upstream latency per
 * endpoint over the last 24 h and 30 days, plus totals since `since`) and hourly error counts.
 * A seller earns only for calls its upstream served (settlement/payout-store.ts): earned, fee
 * and withdrawable count delivered rows; undelivered calls and what their buyers paid are
 * shown apart (`undelivered_calls`, `undelivered_atomic`); calls and paid count every paid call.
 */
import type { Handler } from '../http/server.ts';
import { sqlOf, type Database } from '../db/orm.ts';
import { dailyFigures, endpointErrorCounts, endpointFigures, endpointLatencies, hourlyErrors, refuseSuspended, requireSeller, sellerTotals } from './seller-store.ts';

const DAY = 86_400;
/** The daily series covers at most this many days back from today (a chart's worth; bounded work). */
const SERIES_MAX_DAYS = 90;

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

    const totals = await sellerTotals(em, seller.id, since);
    const endpoints = await endpointFigures(em, seller.id, starts);
    const errors = await endpointErrorCounts(em, seller.id, starts);
    const latency = await endpointLatencies(em, seller.id, starts);
    const daily = ctx.query.series === 'daily' ? await dailyFigures(em, seller.id, Math.max(since, now - SERIES_MAX_DAYS * DAY), since) : null;
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
        ...(daily
          ? {
              daily: daily.map((d) => ({ day: Number(d.day), calls: Number(d.calls), paid_atomic: d.paid, earned_atomic: d.net, undelivered_calls: Number(d.undelivered_calls), undelivered_atomic: d.undelivered })),
            }
          : {}),
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
    const rows = await hourlyErrors(em, seller.id, since);
    return { status: 200, body: rows.map((r) => ({ ts: Number(r.ts), code: r.code, count: Number(r.count) })) };
  };
}
