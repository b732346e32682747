/**
 * API keys: their form, how they are stored, and the one lookup that turns a Bearer value into
 * the key's wallet and scopes.
 *
 * A key is `pc_live_` + 43 base64url characters (32 random bytes, 256 bits). Only
 * HMAC-SHA-256(API_KEY_SECRET, key) is stored: a copy of the table (a backup, a replica) does
 * not let anyone use a key, nor test guesses offline without the secret, which lives outside
 * the database. The HMAC is deterministic, so a lookup is one unique-index probe.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Sql } from '../db/orm.ts';
import { AppError } from '../http/app-error.ts';
import { findKeyByHash, type ApiKeyRow } from './account-store.ts';

import type { Scope } from './scopes.ts';

export const KEY_PREFIX = 'pc_live_';
/** 32 random bytes in base64url (no padding) are 43 characters. */
const KEY_FORM = /^pc_live_[A-Za-z0-9_-]{43}$/;
/** Shown in listings: enough to tell keys apart, far too little to matter for guessing (24 of 256 bits). */
const LISTED_CHARS = KEY_PREFIX.length + 4;

export const KEY_WARNING = 'This key is shown only once. Store it securely; it cannot be retrieved again.';

export interface NewKey {
  apiKey: string;
  keyPrefix: string;
}

export function generateApiKey(): NewKey {
  const apiKey = KEY_PREFIX + randomBytes(32).toString('base64url');
  return { apiKey, keyPrefix: apiKey.slice(0, LISTED_CHARS) };
}

export const hashApiKey = (secret: string, apiKey: string): string => createHmac('sha256', secret).update(apiKey, 'utf8').digest('hex');

/**
 * The devnet's secret: generated once into the data directory (mode 0600), so keys survive a
 * restart without anyone configuring a secret. Production gets API_KEY_SECRET from the environment.
 */
export function loadOrCreateApiKeySecret(file: string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dirname(file), { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  // Written aside and renamed into place: a process killed mid-write leaves no half secret behind.
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, `${secret}\n`, { mode: 0o600 });
  renameSync(partial, file);
  return secret;
}

const unixOrNull = (v: string | null) => (v === null ? null : Number(v));

/** The contract's ApiKey record: never the hash, never the secret. */
export const keyJson = (k: ApiKeyRow) => ({
  id: k.id,
  key_prefix: k.key_prefix,
  label: k.label,
  scopes: k.scopes,
  created_at: Number(k.created_at),
  last_used_at: unixOrNull(k.last_used_at),
  expires_at: unixOrNull(k.expires_at),
  revoked_at: unixOrNull(k.revoked_at),
});

/** What a valid Bearer key proves: who the caller is and what it may do. */
export interface KeyIdentity {
  id: number;
  wallet: string;
  scopes: readonly Scope[];
}

export const invalidApiKey = () =>
  new AppError('invalid_api_key', 401, 'The API key is revoked, expired or unknown.', { hint: 'Issue a new key with POST /v1/keys (signed by the wallet).' });

/**
 * The key a Bearer value names, if it is live; otherwise 401 invalid_api_key, the same answer
 * for a malformed, unknown, revoked or expired key so the answer tells a guesser nothing.
 */
export async function findLiveKey(em: Sql, secret: string, apiKey: string, now: Date): Promise<KeyIdentity> {
  if (!KEY_FORM.test(apiKey)) throw invalidApiKey();
  const hash = hashApiKey(secret, apiKey);
  const row = await findKeyByHash(em, hash);
  // The index found the row by equality already; comparing again in constant time keeps the
  // final decision independent of how many leading characters matched.
  if (!row || !timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex'))) throw invalidApiKey();
  if (row.revoked_at !== null) throw invalidApiKey();
  if (row.expires_at !== null && Number(row.expires_at) * 1000 <= now.getTime()) throw invalidApiKey();
  return { id: row.id, wallet: row.wallet, scopes: row.scopes };
}
