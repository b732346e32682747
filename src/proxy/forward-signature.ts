/**
 * Signatures on forwarded calls: the seller can check, with any RFC 9421 (HTTP Message
 * Signatures) library, that a call came through the marketplace and was paid. The service
 * signs with Ed25519 over the method, the target URI, the body's Content-Digest (RFC 9530),
 * the X-Paycall-* headers naming who paid with which transaction and the Idempotency-Key
 * (the same transaction: forwards are at-least-once, and a repeated forward of one paid call
 * carries the same signed key), plus a creation time.
 * The public key and key id are published in /v1/_meta.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The components covered, in this order (RFC 9421 section 2). */
export const SIGNED_COMPONENTS = ['@method', '@target-uri', 'content-digest', 'x-paycall-payer', 'x-paycall-tx', 'x-paycall-network', 'idempotency-key'] as const;
export const SIGNATURE_LABEL = 'paycall';

export interface ForwardSigner {
  keyid: string;
  /** The Ed25519 public key, raw 32 bytes as base64url (the JWK `x`). */
  publicKey: string;
  /** The headers to add to a forwarded request (headers must already hold the covered ones). */
  sign(message: SignedMessage, createdSeconds?: number): SignatureHeaders;
}
export interface SignedMessage {
  method: string;
  targetUri: string;
  headers: Record<string, string>;
}
export interface SignatureHeaders {
  'signature-input': string;
  signature: string;
}

/** RFC 9530 Content-Digest of a body whose SHA-256 is known. */
export const contentDigest = (sha256: Buffer) => `sha-256=:${sha256.toString('base64')}:`;

/** The header components, after @method and @target-uri. */
const SIGNED_HEADERS = SIGNED_COMPONENTS.slice(2) as readonly string[];

export function createForwardSigner(privateKey: KeyObject, keyid: string): ForwardSigner {
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('the forward signing key must be an Ed25519 key');
  if (!/^[\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(keyid)) throw new Error('the forward signing key id must be 1-64 printable characters without quotes or backslashes');
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  // The fixed parts of every signature base, built once.
  const componentList = `(${SIGNED_COMPONENTS.map((c) => `"${c}"`).join(' ')})`;
  const paramsTail = `;keyid="${keyid}";alg="ed25519"`;
  /**
   * The signature base (RFC 9421 section 2.5) and its parameters, in one pass of string
   * concatenation: no function made per call (tsx names each with an Object.defineProperty,
   * see spool-body.ts) and no array to join.
   */
  const base = ({ method, targetUri, headers }: SignedMessage, created: number): { params: string; data: Buffer } => {
    const params = `${componentList};created=${created}${paramsTail}`;
    let text = `"@method": ${method.toUpperCase()}\n"@target-uri": ${targetUri}\n`;
    for (const name of SIGNED_HEADERS) {
      const v = headers[name];
      if (v === undefined) throw new Error(`the forwarded request has no ${name} header to sign`);
      // RFC 9421 2.1: the field value with leading and trailing whitespace removed.
      text += `"${name}": ${v.trim()}\n`;
    }
    return { params, data: Buffer.from(`${text}"@signature-params": ${params}`, 'utf8') };
  };
  return {
    keyid,
    publicKey: jwk.x as string,
    // Synchronous on purpose: crypto.sign with a callback runs on libuv's pool, but waking an
    // idle pool thread on a busy machine cost more than it saved (docs/operations.md, 2026-11-27).
    sign(message, created = Math.floor(Date.now() / 1000)) {
      const { params, data } = base(message, created);
      return { 'signature-input': `${SIGNATURE_LABEL}=${params}`, signature: `${SIGNATURE_LABEL}=:${sign(null, data, privateKey).toString('base64')}:` };
    },
  };
}

/**
 * The devnet profile's key: generated once and kept in the data directory, so a seller testing
 * against a local devnet sees the same key across restarts. Production passes its own key.
 */
export function loadOrCreateSigningKey(file: string): KeyObject {
  if (existsSync(file)) return createPrivateKey(readFileSync(file, 'utf8'));
  const { privateKey } = generateKeyPairSync('ed25519');
  mkdirSync(dirname(file), { recursive: true });
  // Written aside and linked into place: a process killed mid-write leaves no half key behind,
  // and of instances started at once on one data directory the first to link wins and the
  // others load its key (a rename would let each keep a key of its own, the last one on disk:
  // the forwards of all but one would not verify with the published key).
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
  try {
    linkSync(partial, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return createPrivateKey(readFileSync(file, 'utf8'));
  } finally {
    rmSync(partial, { force: true });
  }
  return privateKey;
}

/** A key given in configuration: PKCS#8 PEM, or the 32-byte Ed25519 seed in base64. */
export function parseSigningKey(value: string): KeyObject {
  if (value.includes('BEGIN')) return createPrivateKey(value);
  const seed = Buffer.from(value, 'base64');
  if (seed.length !== 32) throw new Error('must be a PKCS#8 PEM Ed25519 key or a base64 32-byte seed');
  // PKCS#8 wrapping of a raw Ed25519 seed (RFC 8410): a fixed 16-byte prefix.
  return createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
}
