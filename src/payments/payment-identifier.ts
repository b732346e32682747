/**
 * The x402 `payment-identifier` extension (specs/extensions/payment_identifier.md): a v2
 * PaymentPayload may carry a client-chosen id (16-128 of `[A-Za-z0-9_-]`) that makes the paid
 * request idempotent. The 402 advertises it (not required). The id is bound, before any
 * verification, to the exact payload (its canonical JSON's SHA-256) and the request
 * fingerprint, in PostgreSQL (payment-identifier-store.ts), so every instance sees the binding:
 *   same id, same payload, same request -> the payment's stored answer (the receipt gate replays it)
 *   same id, anything else              -> 409 payment_identifier_conflict, nothing verified or run
 * Binding to the payload, not to the request alone, is the spec's rule for a lookup that runs
 * unauthenticated: nobody can claim another buyer's answer by guessing its id.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../http/app-error.ts';
import { canonicalJson } from '../lib/canonical-json.ts';
import { decodeBase64Json } from './receipt.ts';
import type { PaymentProof } from './sellable.ts';
import type { Sql } from '../db/orm.ts';
import { claimPaymentIdentifier, sameBinding } from './payment-identifier-store.ts';

export const PAYMENT_IDENTIFIER = 'payment-identifier';

/** What the 402 advertises under `extensions["payment-identifier"]`. */
export const paymentIdentifierExtension = {
  info: { required: false },
  schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { required: { type: 'boolean' }, id: { type: 'string', minLength: 16, maxLength: 128 } },
    required: ['required'],
  },
} as const;

const ID = /^[A-Za-z0-9_-]{16,128}$/;

export interface PaymentIdentifier {
  id: string;
  /** SHA-256 of the payload's canonical JSON: the exact payment the id was first seen with. */
  payloadSha256: Buffer;
}

/**
 * The id a proof carries, or null (no extension, or a proof form without extensions: X-Payment
 * and session tokens are v1). An id of the wrong form is an invalid payment (AppError).
 */
export function paymentIdentifierOf(proof: PaymentProof): PaymentIdentifier | null {
  if (proof.kind !== 'payment-signature') return null;
  const doc = decodeBase64Json(proof.value, 'PAYMENT-SIGNATURE');
  const ext = (doc.extensions as Record<string, unknown> | undefined)?.[PAYMENT_IDENTIFIER] as { info?: { id?: unknown } } | undefined;
  const id = ext?.info?.id;
  if (id === undefined) return null;
  if (typeof id !== 'string' || !ID.test(id)) {
    throw new AppError('invalid_payment', 402, 'extensions["payment-identifier"].info.id must be 16-128 characters of A-Z, a-z, 0-9, - and _.');
  }
  return { id, payloadSha256: createHash('sha256').update(canonicalJson(doc)).digest() };
}

/** Binds the id if new; otherwise whether its binding is this payload and request. */
export async function bindPaymentIdentifier(em: Sql, b: PaymentIdentifier & { fingerprint: string }): Promise<'bound' | 'same' | 'conflict'> {
  if (await claimPaymentIdentifier(em, b)) return 'bound';
  return (await sameBinding(em, b)) ? 'same' : 'conflict';
}
