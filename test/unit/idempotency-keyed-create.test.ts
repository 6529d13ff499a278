import { describe, expect, it } from 'vitest';
import {
  assertSameRequest,
  canonicalJson,
  idempotentCreateOf,
  REQUEST_HASH_ATTRIBUTE,
} from '#lib/http/idempotency/keyed-create.ts';

// The create that carries its Idempotency-Key: the derived id and the request hash, without a
// database (test/integration/idempotency-lost-answer.test.ts runs it against DynamoDB Local).

const scope = { operation: 'createFaq', caller: 'agent:k1', path: { business_id: 'b1' }, key: 'abc' };

describe('idempotent create', () => {
  it('derives the same UUID from the same scoped key, and another from any other scope', () => {
    const first = idempotentCreateOf(scope, { question: 'Q' });
    expect(first.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(idempotentCreateOf({ ...scope }, { question: 'other body' }).id).toBe(first.id);
    const others = [
      { ...scope, key: 'abd' },
      { ...scope, caller: 'agent:k2' },
      { ...scope, operation: 'createService' },
      { ...scope, path: { business_id: 'b2' } },
    ].map((other) => idempotentCreateOf(other, { question: 'Q' }).id);
    expect(new Set([first.id, ...others]).size).toBe(5);
  });

  it('hashes the body as JSON values: key order and spacing do not matter, values do', () => {
    const hash = (body: unknown) => idempotentCreateOf(scope, body).requestHash;
    expect(hash({ a: 1, b: { c: [1, 2], d: null } })).toBe(
      hash(JSON.parse('{"b":{"d":null,"c":[1,2]},"a":1}')),
    );
    expect(hash({ a: 1 })).not.toBe(hash({ a: '1' }));
    expect(hash({ a: [1, 2] })).not.toBe(hash({ a: [2, 1] }));
    expect(hash({ a: null })).not.toBe(hash({}));
    expect(canonicalJson({ 'b"': 1, a: undefined })).toBe('{"b\\"":1}');
  });

  it('accepts the item a create with the same request wrote, and refuses another with 422', () => {
    const create = idempotentCreateOf(scope, { question: 'Q' });
    expect(() => assertSameRequest({ [REQUEST_HASH_ATTRIBUTE]: create.requestHash }, create)).not.toThrow();
    for (const item of [{ [REQUEST_HASH_ATTRIBUTE]: 'other' }, {}]) {
      expect(() => assertSameRequest(item, create)).toThrow(
        expect.objectContaining({
          statusCode: 422,
          details: [expect.objectContaining({ type: 'idempotency_key_reused' })],
        }),
      );
    }
  });
});
