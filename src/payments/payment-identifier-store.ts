/**
 * payment_identifier: the first payload and request each payment-identifier id was seen with
 * (payment-identifier.ts has the rule). The primary key on the id decides between instances.
 */
import type { Sql } from '../db/orm.ts';

/** Binds the id to this payload and request if it is new; true when this call bound it. */
export async function claimPaymentIdentifier(em: Sql, b: { id: string; payloadSha256: Buffer; fingerprint: string }): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `insert into payment_identifier (id, payload_sha256, fingerprint) values (?, ?, ?) on conflict (id) do nothing returning id`,
    [b.id, b.payloadSha256, b.fingerprint],
  );
  return rows.length === 1;
}

/** Whether an id already bound was bound to exactly this payload and request (the binding never changes). */
export async function sameBinding(em: Sql, b: { id: string; payloadSha256: Buffer; fingerprint: string }): Promise<boolean> {
  const [row] = await em.execute<{ same: boolean }[]>(`select payload_sha256 = ? and fingerprint = ? as same from payment_identifier where id = ?`, [b.payloadSha256, b.fingerprint, b.id]);
  return row?.same === true;
}

/**
 * Forgets bindings older than `retentionDays`; returns how many. A forgotten id binds anew, and
 * nothing is run or charged twice for it: exactly-once lives in the receipt gate, keyed by the
 * payment itself, which a resent payload meets whatever became of its id.
 */
export async function purgePaymentIdentifiers(em: Sql, retentionDays: number): Promise<number> {
  const rows = await em.execute<{ id: string }[]>(`delete from payment_identifier where created_at < now() - (? * interval '1 day') returning id`, [retentionDays]);
  return rows.length;
}
