import { describe, expect, it, vi } from 'vitest';
import { CorruptStoredItemError, storedItem } from '#lib/db/stored-item.ts';
import { REQUEST_HASH_ATTRIBUTE } from '#lib/http/idempotency/keyed-create.ts';
import * as z from '#lib/validation/zod.ts';

// changeset-store.ts reads the table name at load (its DynamoDB client); parsing makes no call.
vi.hoisted(() => {
  process.env.TABLE_NAME ??= 'unit-test-table';
});
const { headerItem } = await import('#lib/edits/changeset-store.ts');

interface Member {
  business_id: string;
  email: string;
  role: 'owner' | 'editor' | 'viewer';
}

const memberSchema = () =>
  z.object({ business_id: z.string(), email: z.string(), role: z.enum(['owner', 'editor', 'viewer']) });

const keyAttributes = {
  pk: 'PENDING_MEMBER#someone@example.com',
  sk: 'BUSINESS#b1',
  gsi1pk: 'USER#u1',
  gsi1sk: 'BUSINESS#b1',
};

describe('stored items: the one boundary from a DynamoDB item to a domain value', () => {
  it('converts a good item, dropping its keys and every attribute the schema does not name', () => {
    const member = storedItem<Member>('pending member', memberSchema);

    const value = member.fromItem({
      ...keyAttributes,
      business_id: 'b1',
      email: 'someone@example.com',
      role: 'editor',
      expires_at_epoch: 1_900_000_000,
    });

    expect(value).toEqual({ business_id: 'b1', email: 'someone@example.com', role: 'editor' });
  });

  it('throws for a corrupt item, naming the kind and each wrong attribute but no stored value', () => {
    const member = storedItem<Member>('pending member', memberSchema);
    const corrupt = { ...keyAttributes, business_id: 42, role: 'admin' };

    let thrown: unknown;
    try {
      member.fromItem(corrupt);
    } catch (error) {
      thrown = error;
    }

    expect(thrown).toBeInstanceOf(CorruptStoredItemError);
    const error = thrown as CorruptStoredItemError;
    expect(error.kind).toBe('pending member');
    expect(error.problems.map((problem) => problem.split(':')[0])).toEqual(['business_id', 'email', 'role']);
    expect(error.message).toMatch(
      /^A stored pending member item does not have the expected shape: business_id: /,
    );
    // Keys and values may hold personal data (an e-mail address in a partition key): not in the message.
    expect(error.message).not.toContain('example.com');
    expect(error.message).not.toContain('42');
  });

  it('builds its schema on the first read only, once', () => {
    const build = vi.fn(memberSchema);
    const member = storedItem<Member>('pending member', build);
    expect(build).not.toHaveBeenCalled();

    member.fromItem({ business_id: 'b1', email: 'a@example.com', role: 'owner' });
    member.fromItem({ business_id: 'b2', email: 'b@example.com', role: 'viewer' });

    expect(build).toHaveBeenCalledTimes(1);
  });

  it('a changeset header written before a later step existed reads with that step null; its request hash stays', () => {
    const stored = {
      pk: 'CHANGESET#c1',
      sk: 'CHANGESET',
      gsi1pk: 'BUSINESS#b1#CHANGESETS',
      gsi1sk: '2026-01-01T00:00:00.000Z#c1',
      [REQUEST_HASH_ATTRIBUTE]: 'hash-of-the-request',
      id: 'c1',
      business_id: 'b1',
      session_id: 's1',
      opened_by: 'u1',
      summary: null,
      status: 'staged',
      created_at: '2026-01-01T00:00:00.000Z',
    };

    expect(headerItem.fromItem(stored)).toEqual({
      id: 'c1',
      business_id: 'b1',
      session_id: 's1',
      opened_by: 'u1',
      summary: null,
      status: 'staged',
      created_at: '2026-01-01T00:00:00.000Z',
      applied_at: null,
      reverted_at: null,
      discarded_at: null,
      [REQUEST_HASH_ATTRIBUTE]: 'hash-of-the-request',
    });
    expect(() => headerItem.fromItem({ ...stored, status: 'approved' })).toThrow(
      /stored changeset header item .*status: /,
    );
  });
});
