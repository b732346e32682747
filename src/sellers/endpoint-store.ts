/**
 * SQL of seller endpoints (raw SQL through the ORM's connection, same on PostgreSQL and PGlite)
 * and the JSON shape of the contract's SellerEndpoint. Every function takes the entity manager
 * first and runs one statement.
 *
 * The rules kept here:
 * - a path (slug + path_suffix) has one live endpoint: the partial unique index decides, and a
 *   losing insert returns nothing (`on conflict do nothing`) rather than failing the transaction;
 * - deleting is soft (deleted_at) and frees the path; no query here sees a deleted endpoint;
 * - an endpoint's `next_probe_at` is its probe job: claimed with FOR UPDATE SKIP LOCKED and
 *   leased in the same statement, so two instances never probe it at once;
 * - a write from a probe round applies only if the endpoint still has the upstream the round
 *   probed (an update or delete meanwhile wins);
 * - a new upstream goes back to 'pending' with its counters reset (it is probed again).
 */
import type { Sql } from '../db/orm.ts';
import { AppError } from '../http/app-error.ts';
import type { ProbeResult } from '../db/entities.ts';
import type { EndpointRow, SellerRow } from '../db/rows.ts';

const ENDPOINT_COLUMNS = `e.id, e.seller_id, e.slug, e.path_suffix, e.upstream_url, e.atomic_price::text as atomic_price, e.unit, e."desc", e.mode, e.sample_body,
  e.status, e.consecutive_failures, e.consecutive_successes, e.probe_attempts, extract(epoch from e.degraded_at)::bigint as degraded_at_s, e.last_probe,
  extract(epoch from e.created_at)::bigint as created_at, extract(epoch from e.deleted_at)::bigint as deleted_at`;


export const endpointJson = (e: EndpointRow) => ({
  id: e.id,
  path: `/v1/${e.slug}/${e.path_suffix}`,
  slug: e.slug,
  path_suffix: e.path_suffix,
  upstream_url: e.upstream_url,
  atomic_price: e.atomic_price,
  unit: e.unit,
  desc: e.desc,
  mode: e.mode,
  status: e.status,
  created_at: Number(e.created_at),
  last_probe: e.last_probe ?? null,
});

export async function findEndpoint(em: Sql, id: number): Promise<EndpointRow | null> {
  const [row] = await em.execute<EndpointRow[]>(`select ${ENDPOINT_COLUMNS} from seller_endpoint e where e.id = ? and e.deleted_at is null`, [id]);
  return row ?? null;
}

export async function requireOwnEndpoint(em: Sql, seller: SellerRow | null, id: number): Promise<EndpointRow> {
  const endpoint = await findEndpoint(em, id);
  if (!endpoint) throw new AppError('endpoint_not_found', 404, `No endpoint ${id} for this wallet.`);
  if (!seller || endpoint.seller_id !== seller.id) throw new AppError('wallet_mismatch', 401, `Endpoint ${id} belongs to another wallet.`);
  return endpoint;
}

export async function recordObservation(em: Sql, endpointId: number, source: string, p: ProbeResult): Promise<void> {
  await em.execute('insert into endpoint_observation (endpoint_id, source, region, ok, status_code, latency_ms, error) values (?, ?, ?, ?, ?, ?, ?)', [
    endpointId,
    source,
    p.region,
    p.ok,
    p.status_code,
    p.latency_ms === null ? null : Math.round(p.latency_ms),
    p.error,
  ]);
}


/** Whether a live endpoint has this path (the insert decides races; this gives the early 409). */
export async function pathInUse(em: Sql, slug: string, pathSuffix: string): Promise<boolean> {
  const taken = await em.execute<unknown[]>('select 1 from seller_endpoint where slug = ? and path_suffix = ? and deleted_at is null', [slug, pathSuffix]);
  return taken.length > 0;
}

export interface NewEndpoint {
  sellerId: number;
  slug: string;
  pathSuffix: string;
  upstreamUrl: string;
  atomicPrice: string;
  unit: string;
  desc: string;
  mode: string;
  sampleBody: unknown;
  alertEmail: string | null;
  probe: ProbeResult;
}

/** A new endpoint, pending and due for its activation round now; null when the path is taken. */
export async function insertEndpoint(em: Sql, e: NewEndpoint): Promise<EndpointRow | null> {
  const [created] = await em.execute<EndpointRow[]>(
    `insert into seller_endpoint as e (seller_id, slug, path_suffix, upstream_url, atomic_price, unit, "desc", mode, sample_body, alert_email, status, last_probe, next_probe_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, 'pending', ?::jsonb, now()) on conflict do nothing returning ${ENDPOINT_COLUMNS}`,
    [e.sellerId, e.slug, e.pathSuffix, e.upstreamUrl, e.atomicPrice, e.unit, e.desc, e.mode, e.sampleBody === undefined ? null : JSON.stringify(e.sampleBody), e.alertEmail, JSON.stringify(e.probe)],
  );
  return created ?? null;
}

/** A seller's live endpoints, oldest first. */
export function listEndpoints(em: Sql, sellerId: number): Promise<EndpointRow[]> {
  return em.execute<EndpointRow[]>(`select ${ENDPOINT_COLUMNS} from seller_endpoint e where e.seller_id = ? and e.deleted_at is null order by e.id`, [sellerId]);
}

/**
 * New values of an endpoint. `reprobe` (the probe of a new upstream): back to 'pending' with
 * the counters reset, due for an activation round now. Null: the endpoint is gone.
 */
export async function updateEndpoint(
  em: Sql,
  id: number,
  v: { upstreamUrl: string; atomicPrice: string; unit: string; desc: string; mode: string; reprobe: ProbeResult | null },
): Promise<EndpointRow | null> {
  const [row] = await em.execute<EndpointRow[]>(
    `update seller_endpoint e set upstream_url = ?, atomic_price = ?, unit = ?, "desc" = ?, mode = ?, updated_at = now()
     ${v.reprobe ? `, status = 'pending', probe_attempts = 0, consecutive_failures = 0, consecutive_successes = 0, degraded_at = null, last_probe = ?::jsonb, next_probe_at = now()` : ''}
     where id = ? and deleted_at is null returning ${ENDPOINT_COLUMNS}`,
    [v.upstreamUrl, v.atomicPrice, v.unit, v.desc, v.mode, ...(v.reprobe ? [JSON.stringify(v.reprobe)] : []), id],
  );
  return row ?? null;
}

/** Soft delete (the path is free again, no more probes); returns deleted_at in Unix seconds, null when already gone. */
export async function deleteEndpoint(em: Sql, id: number): Promise<number | null> {
  const [row] = await em.execute<{ id: number; deleted_at: string }[]>(
    `update seller_endpoint set deleted_at = now(), next_probe_at = null, updated_at = now() where id = ? and deleted_at is null
     returning id, extract(epoch from deleted_at)::bigint as deleted_at`,
    [id],
  );
  return row ? Number(row.deleted_at) : null;
}

/** The endpoint under a row lock for this transaction (lifecycle.ts applies an outcome under it). */
export async function lockEndpoint(tx: Sql, id: number): Promise<(EndpointRow & { call_failures: number }) | null> {
  const [e] = await tx.execute<(EndpointRow & { call_failures: number })[]>(
    `select ${ENDPOINT_COLUMNS}, e.call_failures from seller_endpoint e where e.id = ? and e.deleted_at is null for update`,
    [id],
  );
  return e ?? null;
}

/**
 * Writes the health state after one outcome (lifecycle.ts computes it). A health probe's result
 * is shown as last_probe; a live call's is not. A suspended endpoint gets no more probes.
 */
export async function writeHealthState(
  tx: Sql,
  id: number,
  s: { status: string; consecutiveFailures: number; consecutiveSuccesses: number; callFailures: number; degradedSince: number | null },
  source: 'health' | 'call',
  probe: ProbeResult,
): Promise<void> {
  await tx.execute(
    `update seller_endpoint set status = ?, consecutive_failures = ?, consecutive_successes = ?, call_failures = ?, degraded_at = ${s.degradedSince === null ? 'null' : 'to_timestamp(? / 1000.0)'},
       last_probe = case when ? = 'health' then ?::jsonb else last_probe end, updated_at = now(), next_probe_at = ${s.status === 'suspended' ? 'null' : 'next_probe_at'} where id = ?`,
    [s.status, s.consecutiveFailures, s.consecutiveSuccesses, s.callFailures, ...(s.degradedSince === null ? [] : [s.degradedSince]), source, JSON.stringify(probe), id],
  );
}

/**
 * The outcome of an activation round: active (counters reset) or still pending with one more
 * attempt, next round after `delayMs`. Applied only if the endpoint is still pending with the
 * upstream the round probed; false: it changed meanwhile and nothing was written.
 */
export async function finishActivationRound(
  tx: Sql,
  e: Pick<EndpointRow, 'id' | 'upstream_url' | 'probe_attempts'>,
  p: { activate: boolean; shown: ProbeResult; delayMs: number },
): Promise<boolean> {
  const rows = await tx.execute<{ id: number }[]>(
    `update seller_endpoint set status = ?, probe_attempts = ?, consecutive_failures = 0, consecutive_successes = 0, call_failures = 0, degraded_at = null,
       last_probe = ?::jsonb, next_probe_at = now() + (? * interval '1 millisecond'), updated_at = now()
     where id = ? and status = 'pending' and deleted_at is null and upstream_url = ? returning id`,
    [p.activate ? 'active' : 'pending', p.activate ? 0 : e.probe_attempts + 1, JSON.stringify(p.shown), p.delayMs, e.id, e.upstream_url],
  );
  return rows.length > 0;
}

/**
 * Claims up to `limit` probe jobs due by `dueBy` (the pass's start) and leases them for
 * `leaseMs` in one statement (FOR UPDATE SKIP LOCKED): a job of an instance that died is due
 * again when its lease ends.
 */
export function claimDueProbes(em: Sql, p: { dueBy: string; limit: number; leaseMs: number }): Promise<EndpointRow[]> {
  return em.execute<EndpointRow[]>(
    `with due as (
       select id from seller_endpoint
        where deleted_at is null and status in ('pending', 'active', 'degraded') and next_probe_at <= ?::timestamptz
        order by next_probe_at limit ? for update skip locked)
     update seller_endpoint e set next_probe_at = now() + (? * interval '1 millisecond')
       from due where e.id = due.id
     returning ${ENDPOINT_COLUMNS}`,
    [p.dueBy, p.limit, p.leaseMs],
  );
}

/** The next health probe after `inMs`, unless the outcome suspended the endpoint or its upstream changed meanwhile. */
export async function scheduleHealthProbe(em: Sql, e: Pick<EndpointRow, 'id' | 'upstream_url'>, inMs: number): Promise<void> {
  await em.execute(
    `update seller_endpoint set next_probe_at = now() + (? * interval '1 millisecond')
      where id = ? and status in ('active', 'degraded') and deleted_at is null and upstream_url = ?`,
    [inMs, e.id, e.upstream_url],
  );
}

/** Observations older than the longest window any report reads (30 days) plus a day. */
export async function purgeObservations(em: Sql): Promise<void> {
  await em.execute(`delete from endpoint_observation where at < now() - interval '31 days'`);
}

/** Live endpoints ('active', 'degraded') with their sellers and 24 h figures, by path: the /v1/_meta rows. */
export function catalogRows(em: Sql) {
  return em.execute<Record<string, string | number | null>[]>(
    `select e.id, e.slug, e.path_suffix, s.wallet, e.atomic_price::text as price, e.unit, e."desc", e.mode, e.status,
            o.p50, o.p99, o.total, o.ok_count
       from seller_endpoint e join seller s on s.id = e.seller_id
       left join lateral (
         select percentile_cont(0.5) within group (order by latency_ms) filter (where ok) as p50,
                percentile_cont(0.99) within group (order by latency_ms) filter (where ok) as p99,
                count(*) as total, count(*) filter (where ok) as ok_count
           from endpoint_observation where endpoint_id = e.id and at >= now() - interval '24 hours') o on true
      where e.deleted_at is null and e.status in ('active', 'degraded')
      order by e.slug, e.path_suffix`,
  );
}

/**
 * A page of the endpoints MCP lists as tools (active and degraded, as in /v1/_meta), in
 * (slug, path_suffix) order after the cursor `after`: keyset paging, so a page costs the same
 * however deep it is and an endpoint added meanwhile is neither skipped nor listed twice.
 */
export function toolPage(em: Sql, after: readonly [string, string] | null, limit: number) {
  return em.execute<{ id: number; slug: string; path_suffix: string; desc: string; price: string; unit: string; mode: string; sample_body: unknown }[]>(
    `select e.id, e.slug, e.path_suffix, e."desc", e.atomic_price::text as price, e.unit, e.mode, e.sample_body
       from seller_endpoint e
      where e.deleted_at is null and e.status in ('active', 'degraded') and (e.slug, e.path_suffix) > (?, ?)
      order by e.slug, e.path_suffix
      limit ?`,
    [after?.[0] ?? '', after?.[1] ?? '', limit],
  );
}

/** Live (not deleted) endpoints by status: the paycall_seller_endpoints gauge. */
export function endpointCountsByStatus(em: Sql) {
  return em.execute<{ status: string; n: string }[]>('select status, count(*) as n from seller_endpoint where deleted_at is null group by status');
}

/** A resumed seller's suspended endpoints go back to 'pending' (counters reset, probed now); returns their ids. */
export function resumeSuspendedEndpoints(tx: Sql, sellerId: number): Promise<{ id: number }[]> {
  return tx.execute<{ id: number }[]>(
    `update seller_endpoint set status = 'pending', probe_attempts = 0, consecutive_failures = 0, consecutive_successes = 0, degraded_at = null,
       next_probe_at = now(), updated_at = now()
     where seller_id = ? and status = 'suspended' and deleted_at is null returning id`,
    [sellerId],
  );
}

/** A built-in as the discovery search sees it (the catalog's rows beside the seller endpoints). */
export interface SearchableBuiltin {
  path: string;
  /** Its place in the catalog (the unsearched listing keeps this order). */
  ord: number;
  name: string;
  desc: string;
  tags: string;
}

export interface DiscoveryRow {
  kind: 'builtin' | 'seller';
  path: string;
  endpoint_id: number | null;
  slug: string | null;
  wallet: string | null;
  price: string | null;
  unit: string | null;
  mode: string | null;
  status: string | null;
  desc: string;
  sample_body: unknown;
  updated_at_ms: string | null;
  rank: number;
}

/**
 * The discovery catalog in one statement: the built-ins (passed as JSON) and the live seller
 * endpoints ('active', 'degraded': never pending, suspended or deleted). With a query, only the
 * matches, ranked by `ts_rank` of plain PostgreSQL full-text search (name weighted A, tags B,
 * description C; `websearch_to_tsquery` takes what a user types and never fails on syntax);
 * the 'english' configuration stems, so "convert" finds "converts". Without one, the built-ins
 * first, then the seller endpoints by path. Full-text search rather than pg_trgm: PGlite and a
 * database without extension rights both have it.
 */
export function discoveryRows(em: Sql, p: { builtins: SearchableBuiltin[]; query: string | null; limit: number }) {
  const vector = `setweight(to_tsvector('english', d.name), 'A') || setweight(to_tsvector('english', d.tags), 'B') || setweight(to_tsvector('english', d."desc"), 'C')`;
  return em.execute<DiscoveryRow[]>(
    `with d as (
       select 'builtin' as kind, b.path, null::int as endpoint_id, null::text as slug, null::text as wallet, null::text as price, null::text as unit, null::text as mode,
              null::text as status, b.name, b."desc", b.tags, null::jsonb as sample_body, null::timestamptz as updated_at, b.ord
         from jsonb_to_recordset(?::jsonb) as b(path text, name text, "desc" text, tags text, ord int)
       union all
       select 'seller', '/v1/' || e.slug || '/' || e.path_suffix, e.id, e.slug, s.wallet, e.atomic_price::text, e.unit, e.mode,
              e.status, e.slug || ' ' || replace(e.path_suffix, '/', ' '), e."desc", e.slug || ' ' || e.mode, e.sample_body, e.updated_at, 1000000
         from seller_endpoint e join seller s on s.id = e.seller_id
        where e.deleted_at is null and e.status in ('active', 'degraded'))
     select d.kind, d.path, d.endpoint_id, d.slug, d.wallet, d.price, d.unit, d.mode, d.status, d."desc", d.sample_body, (extract(epoch from d.updated_at) * 1000)::bigint as updated_at_ms,
            case when ?::text is null then 0 else ts_rank(${vector}, websearch_to_tsquery('english', ?)) end as rank
       from d
      where ?::text is null or ${vector} @@ websearch_to_tsquery('english', ?)
      order by rank desc, d.ord, d.path
      limit ?`,
    [JSON.stringify(p.builtins), p.query, p.query, p.query, p.query, p.limit],
  );
}

export interface ReliabilityRow {
  endpoint_id: number;
  p50: number | null;
  p95: number | null;
  probes_24h: string;
  probes_ok_24h: string;
  probes_7d: string;
  probes_ok_7d: string;
  delivered_7d: string;
  undelivered_7d: string;
}

/**
 * The reliability figures of every live endpoint in one statement (sellers/reliability.ts
 * shapes and caches them):
 * - paid calls, from the ledger: `payment.delivery` 'delivered' / 'undelivered' over 7 days
 *   (a 'pending' row is a call still running or a built-in, neither a success nor a failure);
 * - latency, p50 and p95 of the upstream answers that succeeded over 24 h, live calls and
 *   probes alike (endpoint_observation.latency_ms: paid calls record theirs there too);
 * - uptime, the share of probes (publish, activation, health: not live calls, which the
 *   success rate counts) that succeeded over 24 h and over 7 days.
 * Both lateral reads go by index: (endpoint_id, at) and the payment's seller_id.
 */
export function reliabilityRows(em: Sql) {
  return em.execute<ReliabilityRow[]>(
    `select e.id as endpoint_id, o.p50, o.p95, o.probes_24h, o.probes_ok_24h, o.probes_7d, o.probes_ok_7d, p.delivered_7d, p.undelivered_7d
       from seller_endpoint e
       left join lateral (
         select percentile_cont(0.5) within group (order by latency_ms) filter (where ok and at >= now() - interval '24 hours') as p50,
                percentile_cont(0.95) within group (order by latency_ms) filter (where ok and at >= now() - interval '24 hours') as p95,
                count(*) filter (where source <> 'call' and at >= now() - interval '24 hours') as probes_24h,
                count(*) filter (where source <> 'call' and ok and at >= now() - interval '24 hours') as probes_ok_24h,
                count(*) filter (where source <> 'call') as probes_7d,
                count(*) filter (where source <> 'call' and ok) as probes_ok_7d
           from endpoint_observation where endpoint_id = e.id and at >= now() - interval '7 days') o on true
       left join lateral (
         select count(*) filter (where delivery = 'delivered') as delivered_7d, count(*) filter (where delivery = 'undelivered') as undelivered_7d
           from payment where seller_id = e.seller_id and endpoint_id = e.id and created_at >= now() - interval '7 days') p on true
      where e.deleted_at is null and e.status in ('active', 'degraded')`,
  );
}
