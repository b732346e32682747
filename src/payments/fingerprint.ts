/**
 * Request fingerprint = SHA-256 of method, path, media type and body. For uploads the body
 * is the document itself, not the multipart envelope: clients pick a new boundary on every
 * retry, and an identical retry must still be recognised as identical.
 */
import { createHash } from 'node:crypto';

export function requestFingerprint(method: string, path: string, contentType: string, body: Uint8Array): string {
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  return createHash('sha256')
    .update(`${method.toUpperCase()}\n${path}\n${mediaType}\n`)
    .update(body)
    .digest('hex');
}

/** The same, for a body known by its SHA-256 (a proxied body spooled to disk, never held whole). */
export function requestFingerprintOfDigest(method: string, path: string, contentType: string, bodySha256: Buffer): string {
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  return createHash('sha256').update(`${method.toUpperCase()}\n${path}\n${mediaType}\nsha256:`).update(bodySha256).digest('hex');
}
