import { createHash } from 'node:crypto';
import { v5 as uuidV5 } from 'uuid';
import { byCodeUnits } from '#lib/db/code-unit-order.ts';
import { ValidationError } from '#lib/http/errors.ts';
import { logger } from '#lib/observability/logger.ts';
import { SIGNAL_FIELDS } from '#lib/observability/signal-fields.ts';

/**
 * The create that carries its Idempotency-Key (response-store.ts): with a key, the new thing's id
 * is derived from the scoped key, its write is conditional on that item not existing, and the item
 * keeps a hash of the request in a hidden attribute. A re-run of a create whose first
 * answer was lost (DynamoDB applied the write, the function saw a timeout and answered 503) then
 * finds the item it already wrote: same request → it answers with the stored item as the first
 * run would have; another request → 422. Without a key a create behaves as it always did.
 */
export interface IdempotentCreate {
  /** The id the created thing takes: UUID v5 of the scoped key's hash. */
  id: string;
  /** SHA-256 of the scoped key (operation, caller, path, key): which key wrote an item. */
  keyHash: string;
  /** SHA-256 of the request body, canonical JSON (key order and spacing do not matter). */
  requestHash: string;
}

/** The hidden attribute on a created item: `requestHash` of the request that created it. */
export const REQUEST_HASH_ATTRIBUTE = 'idempotency_request';

/** Namespace of the derived ids (a fixed random UUID; changing it would break retries in flight). */
const ID_NAMESPACE = '6f1c1d1e-4a8b-4f5e-9c2d-7b3a9e0f5d21';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** JSON with object keys sorted at every depth, so equal values hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => byCodeUnits(a, b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function idempotentCreateOf(scope: unknown, body: unknown): IdempotentCreate {
  const keyHash = sha256(canonicalJson(scope));
  return { id: uuidV5(keyHash, ID_NAMESPACE), keyHash, requestHash: sha256(canonicalJson(body)) };
}

/** Why a request was refused for its Idempotency-Key, as its log line names it (counted by a metric filter). */
export type IdempotencyConflict = 'in_progress' | 'key_reused';

export function logIdempotencyConflict(kind: IdempotencyConflict): void {
  logger.info('Refused for its Idempotency-Key', { [SIGNAL_FIELDS.idempotencyConflict]: kind });
}

/** The 422 for a key sent again with another request (from Powertools' record or from the item). */
export function keyReusedError(): ValidationError {
  logIdempotencyConflict('key_reused');
  return new ValidationError(
    'This Idempotency-Key was already used with a different request; send a new key for a new request',
    [
      {
        loc: ['header', 'idempotency-key'],
        msg: 'already used with a different request body',
        type: 'idempotency_key_reused',
      },
    ],
  );
}

/**
 * An item this key's create already wrote: it must carry this request's hash, or the key was
 * reused with another request (422).
 */
export function assertSameRequest(
  item: Readonly<Record<string, unknown>> | { readonly [REQUEST_HASH_ATTRIBUTE]?: string },
  create: IdempotentCreate,
): void {
  if (item[REQUEST_HASH_ATTRIBUTE] !== create.requestHash) throw keyReusedError();
}
