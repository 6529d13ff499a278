import { describe, expect, it } from 'vitest';
import { keys } from '#lib/db/keys.ts';
import { eventSourceOf } from '#lib/events/derive.ts';

const businessId = '0196a1b2-0000-7000-8000-000000000001';
const entryId = '0196a1b2-0000-7000-8000-0000000000aa';
const entry = (fields: Record<string, unknown>) => ({
  ...keys.history(businessId, entryId),
  id: entryId,
  business_id: businessId,
  entity: 'location',
  record_id: 'rec-1',
  action: 'update',
  before: { name: 'Old', phone: '1' },
  after: { phone: '2', name: 'New' },
  actor: { type: 'user', id: 'user-1' },
  at: '2026-11-28T10:00:00.000Z',
  version: 4,
  ...fields,
});

describe('change events derived from the items a write puts', () => {
  it('names the fields a Change History entry changed, never their values', () => {
    const source = eventSourceOf(entry({}));
    expect(source?.event).toEqual({
      id: entryId,
      type: 'record.updated',
      business_id: businessId,
      entity: 'location',
      record_id: 'rec-1',
      version: 4,
      changed_fields: ['name', 'phone'],
      actor: { kind: 'user', id: 'user-1' },
      change_id: entryId,
      changeset_id: null,
      undo_of: null,
      revert_of: null,
      occurred_at: '2026-11-28T10:00:00.000Z',
    });
    expect(JSON.stringify(source?.event)).not.toMatch(/Old|New/);
    expect(source?.record).toEqual({ entity: 'location', recordId: 'rec-1', action: 'update', version: 4 });
  });

  it('gives a delete no version and names the fields the record had', () => {
    const source = eventSourceOf(entry({ action: 'delete', after: null, version: 4 }));
    expect(source?.event).toMatchObject({
      type: 'record.deleted',
      version: null,
      changed_fields: ['name', 'phone'],
    });
    // The order check still knows which version was deleted.
    expect(source?.record?.version).toBe(4);
  });

  it('types the profile apart (every change of it an update), and carries an assistant, a changeset, an undo and a revert', () => {
    const assistant = { type: 'assistant', id: 'user-2', client_id: 'client-9' };
    expect(
      eventSourceOf(entry({ entity: 'profile', action: 'create', actor: assistant }))?.event,
    ).toMatchObject({
      type: 'profile.updated',
      actor: { kind: 'assistant', id: 'user-2', client_id: 'client-9' },
    });
    expect(
      eventSourceOf(entry({ changeset_id: 'cs-1', revert_of: 'item-1', undo_of: 'entry-0' }))?.event,
    ).toMatchObject({ changeset_id: 'cs-1', revert_of: 'item-1', undo_of: 'entry-0' });
  });

  it("leaves a demoted primary's version to the publisher", () => {
    const { version: _version, ...withoutVersion } = entry({});
    const source = eventSourceOf(withoutVersion);
    expect(source?.event.version).toBeNull();
    expect(source?.record?.version).toBeNull();
  });

  it('takes an outbox entry whole, and nothing else becomes an event', () => {
    const event = { id: 'e', type: 'photo.added' };
    expect(eventSourceOf({ ...keys.eventOutbox(businessId, 'e'), event })).toEqual({ event });
    expect(eventSourceOf({ ...keys.record(businessId, 'faq', 'r'), version: 1 })).toBeNull();
    expect(eventSourceOf({ ...keys.eventFeed(businessId, 3), event })).toBeNull();
  });
});
