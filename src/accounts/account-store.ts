/**
 * SQL of the accounts feature (raw SQL through the ORM's connection, same on PostgreSQL and
 * PGlite): API keys and the figures of an account. Every function takes the entity manager first
 * and runs one statement.
 *
 * The rules kept here:
 * - only the key's HMAC is stored and looked up (api-keys.ts makes it); no function here sees a key;
 * - revoking keeps the first revoked_at (a second revocation changes nothing);
 * - last_used_at only moves forward (`greatest`), whichever instance flushes last;
 * - an account's figures come from one statement, so from one snapshot (account.ts says why);
 *   money stays numeric/bigint from SQL to JSON (decimal strings), never a float.
 */
import type { Sql } from '../db/orm.ts';
import type { Scope } from './scopes.ts';

export interface ApiKeyRow {
  id: number;
  wallet: string;
  wallet_key: string;
  key_prefix: string;
  key_hash: string;
  label: string | null;
  scopes: Scope[];
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

/**
 * Times as Unix seconds (strings; the JSON turns them into integers). Floored: a cast alone
 * rounds, and a key used at 12.6 s must not be reported as used at 13 s.
 */
const seconds = (column: string) => `floor(extract(epoch from ${column}))::bigint as ${column}`;
const KEY_COLUMNS = `id, wallet, wallet_key, key_prefix, key_hash, label, scopes,
  ${['created_at', 'last_used_at', 'expires_at', 'revoked_at'].map(seconds).join(', ')}`;

export async function insertKey(em: Sql, k: { wallet: string; walletKey: string; keyPrefix: string; keyHash: string; label: string | null; scopes: Scope[] }): Promise<ApiKeyRow> {
  const [row] = await em.execute<ApiKeyRow[]>(
    `insert into api_key (wallet, wallet_key, key_prefix, key_hash, label, scopes) values (?, ?, ?, ?, ?, ?::jsonb) returning ${KEY_COLUMNS}`,
    [k.wallet, k.walletKey, k.keyPrefix, k.keyHash, k.label, JSON.stringify(k.scopes)],
  );
  return row;
}

/** The key with this HMAC (a unique-index probe), live or not. */
export async function findKeyByHash(em: Sql, keyHash: string): Promise<ApiKeyRow | null> {
  const [row] = await em.execute<ApiKeyRow[]>(`select ${KEY_COLUMNS} from api_key where key_hash = ?`, [keyHash]);
  return row ?? null;
}

export async function findKeyById(em: Sql, id: number): Promise<ApiKeyRow | null> {
  const [row] = await em.execute<ApiKeyRow[]>(`select ${KEY_COLUMNS} from api_key where id = ?`, [id]);
  return row ?? null;
}

/** Every key of a wallet (by walletKey), revoked ones included, oldest first. */
export function listKeys(em: Sql, walletKey: string): Promise<ApiKeyRow[]> {
  return em.execute<ApiKeyRow[]>(`select ${KEY_COLUMNS} from api_key where wallet_key = ? order by id`, [walletKey]);
}

/** Revokes a key; revoking twice keeps the first revoked_at. Returns it in Unix seconds. */
export async function revokeKey(em: Sql, id: number): Promise<number> {
  const [revoked] = await em.execute<{ revoked_at: string }[]>(
    `update api_key set revoked_at = coalesce(revoked_at, now()) where id = ? returning floor(extract(epoch from revoked_at))::bigint as revoked_at`,
    [id],
  );
  return Number(revoked.revoked_at);
}

/**
 * Most rows one recordKeyUses statement may carry: two parameters a row, and PostgreSQL allows
 * 65535 parameters a statement.
 */
export const MAX_KEY_USES_PER_STATEMENT = 10_000;

/** Writes last_used_at of many keys in one statement (key id -> Unix milliseconds); it never moves back. */
export async function recordKeyUses(em: Sql, uses: [id: number, ms: number][]): Promise<void> {
  if (uses.length > MAX_KEY_USES_PER_STATEMENT) throw new RangeError(`at most ${MAX_KEY_USES_PER_STATEMENT} key uses per statement`);
  await em.execute(
    `update api_key set last_used_at = greatest(api_key.last_used_at, to_timestamp(u.ms / 1000.0))
       from (values ${uses.map(() => '(?::int, ?::bigint)').join(', ')}) as u(id, ms)
      where api_key.id = u.id`,
    uses.flat(),
  );
}

/**
 * An account's ledger figures in one statement (one snapshot). `sellerId` null: the wallet sells
 * nothing (its earnings are 0). `payerWallet` is matched with `payerMatch` (account.ts decides
 * between EVM's case-insensitive and Solana's exact match), and as the buyer a `pay` key named.
 */
export async function accountFigures(
  em: Sql,
  p: { sellerId: number | null; walletKey: string; payerMatch: 'lower(payer) = ?' | 'payer = ?' },
): Promise<{ settled: string; withdrawable: string; spent: string; endpoints: number }> {
  const [row] = await em.execute<{ settled: string; withdrawable: string; spent: string; endpoints: number }[]>(
    `select
       (select coalesce(sum(net), 0)::text from payment where seller_id = ? and payout_id is not null) as settled,
       (select coalesce(sum(net), 0)::text from payment where seller_id = ? and payout_id is null and delivery = 'delivered') as withdrawable,
       (select coalesce(sum(amount), 0)::text from payment where ${p.payerMatch} or buyer_wallet = ?) as spent,
       (select count(*)::int from seller_endpoint where seller_id = ? and deleted_at is null) as endpoints`,
    [p.sellerId, p.sellerId, p.walletKey, p.walletKey, p.sellerId],
  );
  return row;
}

/** A seller's latest `limit` payouts, newest first (amounts as decimal text, times in Unix seconds). */
export function recentPayoutRows(em: Sql, sellerId: number, limit: number) {
  return em.execute<{ id: number; chain: string; wallet: string; amount: string; status: string; tx: string | null; attempts: number; error: string | null; created_at: string }[]>(
    `select id::int as id, chain, wallet, amount::text as amount, status, tx, attempts, error, floor(extract(epoch from created_at))::bigint as created_at
       from payout where seller_id = ? order by id desc limit ?`,
    [sellerId, limit],
  );
}
