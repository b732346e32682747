/**
 * A seller's endpoints: publish (one synchronous probe), list, update (a new upstream is probed
 * again and goes back to pending), soft delete (the path is free again). Signature checks wrap
 * these handlers (sellers.handlers.ts); here the wallet is already proven.
 */
import { AppError } from '../http/app-error.ts';
import type { Handler } from '../http/server.ts';
import type { UpstreamClient } from '../proxy/upstream-client.ts';
import { UpstreamAddressError } from '../proxy/ssrf-guard.ts';
import { sqlOf } from '../db/orm.ts';
import { deleteEndpoint, endpointJson, insertEndpoint, listEndpoints, pathInUse, recordObservation, requireOwnEndpoint, updateEndpoint } from './endpoint-store.ts';
import { findSellerByWallet, refuseSuspended, requireSeller } from './seller-store.ts';
import { probeUpstream } from './probe-upstream.ts';
import type { ProbeResult } from '../db/entities.ts';
import type { EndpointRow } from '../db/rows.ts';
import type { LifecycleDeps } from './lifecycle.ts';
import type { EndpointFields } from '../http/wallet-signature.ts';

export interface EndpointHandlerDeps extends LifecycleDeps {
  client: UpstreamClient;
  /** Starts the activation probes now rather than at the next scheduler tick. */
  kickProbes: () => void;
}

interface AddBody extends EndpointFields {
  sample_body?: unknown;
  alert_email?: string;
}

type UpdateBody = Partial<Pick<AddBody, 'upstream_url' | 'atomic_price' | 'unit' | 'desc' | 'mode'>>;

/** The publish-time checks of an upstream: URL policy, every resolved address, one probe. */
async function checkUpstream(deps: EndpointHandlerDeps, url: string, sampleBody: unknown): Promise<ProbeResult> {
  const problem = deps.client.urlProblem(url);
  if (problem) throw new AppError('invalid_input', 400, `upstream_url ${problem}.`, { issues: [{ path: 'body.upstream_url', message: problem }] });
  try {
    await deps.client.assertAllowedAddress(url);
  } catch (e) {
    if (e instanceof UpstreamAddressError) {
      throw new AppError('upstream_unreachable', 400, `${e.message}: upstreams must resolve to public addresses only.`, {
        hint: 'Publish a public HTTPS address; private, loopback, link-local and metadata addresses are refused.',
      });
    }
    // A name that does not resolve fails in the probe below with its reason.
  }
  const probe = await probeUpstream(deps.client, url, sampleBody, { region: 'publish', timeoutMs: deps.config.probeTimeoutMs });
  deps.metrics.probes.inc({ region: 'publish', outcome: probe.ok ? 'ok' : 'failed' });
  if (!probe.ok) {
    throw new AppError('upstream_unreachable', 400, `The upstream failed the probe (POST of sample_body or {}): ${probe.error}.`, {
      hint: 'The upstream must answer 200 with a JSON body to a POST of sample_body (or {}) within 10 s.',
      body: { probe },
    });
  }
  return probe;
}

const pathTaken = (slug: string, suffix: string) => new AppError('path_taken', 409, `/v1/${slug}/${suffix} is already published.`, { hint: 'Choose another path_suffix, or delete the endpoint first.' });

export function addEndpointHandler(deps: EndpointHandlerDeps): Handler {
  return async (ctx) => {
    const b = ctx.body as AddBody;
    const em = sqlOf(deps.orm);
    const seller = await requireSeller(em, ctx.params.wallet, 400);
    await refuseSuspended(em, seller);
    if (await pathInUse(em, seller.slug, b.path_suffix)) throw pathTaken(seller.slug, b.path_suffix);
    const probe = await checkUpstream(deps, b.upstream_url, b.sample_body);
    const row = await em.transactional(async (tx) => {
      const created = await insertEndpoint(tx, {
        sellerId: seller.id,
        slug: seller.slug,
        pathSuffix: b.path_suffix,
        upstreamUrl: b.upstream_url,
        atomicPrice: String(b.atomic_price),
        unit: b.unit,
        desc: b.desc,
        mode: b.mode,
        sampleBody: b.sample_body,
        alertEmail: b.alert_email ?? null,
        probe,
      });
      if (created) await recordObservation(tx, created.id, 'publish', probe);
      return created;
    });
    if (!row) throw pathTaken(seller.slug, b.path_suffix);
    deps.kickProbes();
    return { status: 201, headers: { location: `/v1/_seller/${ctx.params.wallet}/endpoints/${row.id}` }, body: endpointJson(row) };
  };
}

export function listEndpointsHandler(deps: EndpointHandlerDeps): Handler {
  return async (ctx) => {
    const em = sqlOf(deps.orm);
    const seller = await requireSeller(em, ctx.params.wallet, 404);
    await refuseSuspended(em, seller);
    const rows = await listEndpoints(em, seller.id);
    return { status: 200, body: { wallet: seller.wallet, endpoints: rows.map(endpointJson) } };
  };
}

/** The values an endpoint has after an update (what update_endpoint signs). */
export function mergedUpdate(e: EndpointRow, b: UpdateBody) {
  return {
    id: e.id,
    upstream_url: b.upstream_url ?? e.upstream_url,
    atomic_price: b.atomic_price ?? Number(e.atomic_price),
    unit: b.unit ?? e.unit,
    desc: b.desc ?? e.desc,
    mode: b.mode ?? e.mode,
  };
}

export function updateEndpointHandler(deps: EndpointHandlerDeps): Handler {
  return async (ctx) => {
    const b = ctx.body as UpdateBody;
    const em = sqlOf(deps.orm);
    const id = Number(ctx.params.id);
    const seller = await requireSeller(em, ctx.params.wallet, 400);
    const endpoint = await requireOwnEndpoint(em, seller, id);
    await refuseSuspended(em, seller);
    const fields = (['upstream_url', 'atomic_price', 'unit', 'desc', 'mode'] as const).filter((k) => b[k] !== undefined);
    if (!fields.length) throw new AppError('invalid_input', 400, 'Send at least one of upstream_url, atomic_price, unit, desc, mode.', { issues: [{ path: 'body', message: 'has no field to change' }] });
    const next = mergedUpdate(endpoint, b);
    const reprobe = next.upstream_url !== endpoint.upstream_url;
    const probe = reprobe ? await checkUpstream(deps, next.upstream_url, endpoint.sample_body) : null;
    const row = await em.transactional(async (tx) => {
      const updated = await updateEndpoint(tx, id, { upstreamUrl: next.upstream_url, atomicPrice: String(next.atomic_price), unit: next.unit, desc: next.desc, mode: next.mode, reprobe: probe });
      if (updated && probe) await recordObservation(tx, id, 'publish', probe);
      return updated;
    });
    if (!row) throw new AppError('endpoint_not_found', 404, `No endpoint ${id} for this wallet.`);
    if (reprobe) deps.kickProbes();
    return { status: 200, body: endpointJson(row) };
  };
}

export function deleteEndpointHandler(deps: EndpointHandlerDeps): Handler {
  return async (ctx) => {
    const em = sqlOf(deps.orm);
    const id = Number(ctx.params.id);
    const seller = await findSellerByWallet(em, ctx.params.wallet);
    await requireOwnEndpoint(em, seller, id);
    await refuseSuspended(em, seller!);
    const deletedAt = await deleteEndpoint(em, id);
    if (deletedAt === null) throw new AppError('endpoint_not_found', 404, `No endpoint ${id} for this wallet.`);
    return { status: 200, body: { id, deleted_at: deletedAt } };
  };
}
