/**
 * SQL of used_signature, the single-use record of signed messages (raw SQL through the ORM's
 * connection). The table belongs to the signature check (with-seller-signature.ts, here in
 * src/http/), not to a feature: sellers, API keys and payouts all sign through that one check,
 * so its rows are no one feature's. Every function takes the entity manager first and runs one
 * statement.
 *
 * The rules kept here:
 * - a signed message is used once in the whole cluster: its key (with-seller-signature.ts's
 *   signatureUseKey) is the primary key, and a second insert returns nothing;
 * - a use may be given back (release), for a request that changed nothing;
 * - a used signature cannot come back after its timestamp window, so rows older than an hour
 *   (the window is minutes) may be deleted.
 */
import type { Sql } from '../db/orm.ts';

/** Records the uses (distinct keys) in one statement; returns how many were new (fewer than given: one was used before). */
export async function insertSignatureUses(tx: Sql, uses: { key: string; walletKey: string; action: string }[]): Promise<number> {
  if (!uses.length) return 0;
  const rows = await tx.execute<{ signature_hash: string }[]>(
    `insert into used_signature (signature_hash, wallet, action) values ${uses.map(() => '(?, ?, ?)').join(', ')} on conflict do nothing returning signature_hash`,
    uses.flatMap((u) => [u.key, u.walletKey, u.action]),
  );
  return rows.length;
}

/** Gives uses back (their requests changed nothing). */
export async function releaseSignatureUses(em: Sql, keys: string[]): Promise<void> {
  if (!keys.length) return;
  await em.execute(`delete from used_signature where signature_hash in (${keys.map(() => '?').join(', ')})`, keys);
}

/** Deletes uses older than an hour: their signatures are outside the timestamp window, so they cannot come back. */
export async function purgeSignatureUses(em: Sql): Promise<void> {
  await em.execute(`delete from used_signature where created_at < now() - interval '1 hour'`);
}
