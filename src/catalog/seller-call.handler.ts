/**
 * POST /v1/<slug>/<path_suffix>: the catalog lookup comes first, so an unknown path is a 404
 * and a suspended endpoint a 410 before any quote. Forwarding a paid call to the seller's
 * upstream lands with the seller marketplace issue; until then a live endpoint answers 501.
 */
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { Database } from '../db/orm.ts';
import { AppError } from '../http/app-error.ts';
import type { Handler } from '../http/server.ts';
import { notImplemented } from '../http/errors.ts';

export const sellerCallHandler =
  (orm: Database): Handler =>
  async (ctx) => {
    ctx.req.resume();
    const { slug, path_suffix: pathSuffix } = ctx.params;
    const [endpoint] = await (orm.em.fork() as unknown as SqlEntityManager).execute<{ status: string }[]>(
      'select status from seller_endpoint where slug = ? and path_suffix = ? and deleted_at is null',
      [slug, pathSuffix],
    );
    if (!endpoint) throw new AppError('endpoint_not_found', 404, `No endpoint at /v1/${slug}/${pathSuffix}.`, { hint: 'GET /v1/_meta lists the catalog.' });
    if (endpoint.status === 'suspended') throw new AppError('endpoint_suspended', 410, `/v1/${slug}/${pathSuffix} is suspended after repeated upstream failures.`);
    throw notImplemented('callSellerEndpoint', 'the seller marketplace issue');
  };
