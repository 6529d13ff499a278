import { ENTITY_NAMES } from '#lib/records/entities.ts';
import { once } from '#lib/validation/lazy.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * The edits API's schemas, each a memoised thunk (lib/validation/lazy.ts): a function builds the
 * few it validates with when its route row asks for them; OpenAPI and the tool server build all.
 */

export const OpenSessionBody = once(() =>
  z.strictObject({ business_id: z.uuid() }).meta({ id: 'OpenEditSessionBody' }),
);
export const SessionPathParams = once(() => z.strictObject({ session_id: z.uuid() }));
export const RecordPathParams = once(() =>
  z.strictObject({
    session_id: z.uuid(),
    entity: z.enum(ENTITY_NAMES),
    record_id: z.union([z.uuid(), z.literal('profile')]),
  }),
);
export const ChangeLogQuery = once(() =>
  z.strictObject({
    cursor: z.string().max(1000).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  }),
);

export const EditSession = once(() =>
  z
    .object({
      id: z.uuid(),
      business_id: z.uuid(),
      is_open: z.boolean(),
      opened_by: z.string(),
      client_id: z.string().nullable(),
      created_at: z.iso.datetime(),
      last_used_at: z.iso.datetime(),
      expires_at: z.iso
        .datetime()
        .meta({ description: 'When it closes unless used again sooner (60 min idle, 24 h at most)' }),
    })
    .meta({ id: 'EditSession' }),
);
export type EditSessionView = z.output<ReturnType<typeof EditSession>>;

const TrimmedRecord = once(() =>
  z
    .object({
      record_id: z.string(),
      version: z.int(),
      label: z.string().nullable(),
      updated_at: z.iso.datetime(),
    })
    .meta({ id: 'TrimmedRecord' }),
);

export const Snapshot = once(() =>
  z
    .object({
      business_id: z.uuid(),
      profile: z.record(z.string(), z.unknown()).nullable(),
      records: z.record(z.string(), z.array(TrimmedRecord())),
    })
    .meta({ id: 'Snapshot' }),
);

export const RecordEnvelope = once(() =>
  z
    .object({
      entity: z.enum(ENTITY_NAMES),
      record_id: z.string(),
      version: z.int(),
      data: z.record(z.string(), z.unknown()),
    })
    .meta({ id: 'EditRecord' }),
);

export const Claim = once(() =>
  z
    .object({ business_id: z.uuid(), name: z.string(), role: z.enum(['owner', 'editor']) })
    .meta({ id: 'Claim' }),
);

export const BusinessSummary = once(() =>
  z
    .object({
      id: z.uuid(),
      name: z.string(),
      role: z.enum(['owner', 'editor', 'viewer']).nullable(),
      record_counts: z.record(z.string(), z.int()),
    })
    .meta({ id: 'BusinessSummary' }),
);

export const ChangeLogEntry = once(() =>
  z
    .object({
      id: z.string(),
      business_id: z.uuid(),
      entity: z.enum(ENTITY_NAMES),
      record_id: z.string(),
      action: z.enum(['create', 'update', 'delete']),
      before: z.record(z.string(), z.unknown()).nullable(),
      after: z.record(z.string(), z.unknown()).nullable(),
      actor: z.object({ type: z.string(), id: z.string(), client_id: z.string().optional() }),
      at: z.iso.datetime(),
      version: z.int().optional().meta({ description: 'The version the record reached with this change' }),
      changeset_id: z.uuid().optional().meta({ description: 'The changeset that applied or reverted it' }),
      revert_of: z.uuid().optional().meta({ description: 'The changeset item this change reverted' }),
      undo_of: z.string().optional().meta({ description: 'The entry this change undid' }),
      undone_by: z.string().optional().meta({ description: 'The entry that undid this change' }),
    })
    .meta({ id: 'ChangeLogEntry' }),
);

export const StageChangesetBody = once(() =>
  z
    .strictObject({
      summary: z.string().max(500).optional(),
      items: z
        .array(
          z.strictObject({
            entity: z.enum(ENTITY_NAMES),
            action: z.enum(['create', 'update', 'delete']),
            record_id: z.union([z.uuid(), z.literal('profile')]).optional(),
            fields: z.record(z.string(), z.unknown()).optional(),
          }),
        )
        .min(1)
        .max(100),
    })
    .meta({ id: 'StageChangesetBody' }),
);

export const TickBody = once(() => z.strictObject({ ticked: z.boolean() }).meta({ id: 'TickBody' }));
export const ChangesetPathParams = once(() => z.strictObject({ changeset_id: z.uuid() }));
export const ChangesetItemPathParams = once(() =>
  z.strictObject({ changeset_id: z.uuid(), item_id: z.uuid() }),
);
export const UndoPathParams = once(() => z.strictObject({ business_id: z.uuid(), entry_id: z.uuid() }));
export const ChangesetListQuery = once(() =>
  z.strictObject({
    status: z.enum(['staged', 'applied', 'reverted', 'discarded']).optional(),
    cursor: z.string().max(1000).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  }),
);

const ChangesetItem = once(() =>
  z
    .object({
      id: z.uuid(),
      index: z.int(),
      entity: z.enum(ENTITY_NAMES),
      action: z.enum(['create', 'update', 'delete']),
      record_id: z.string(),
      fields: z.record(z.string(), z.unknown()).nullable(),
      before: z.record(z.string(), z.unknown()).nullable(),
      base_version: z.int().nullable(),
      ticked: z.boolean(),
      status: z.enum(['staged', 'applied', 'conflict', 'skipped', 'reverted', 'revert_conflict']),
      outcome: z.record(z.string(), z.unknown()).nullable(),
    })
    .meta({ id: 'ChangesetItem' }),
);

const ChangesetFields = once(() => ({
  id: z.uuid(),
  business_id: z.uuid(),
  session_id: z.uuid(),
  summary: z.string().nullable(),
  status: z.enum(['staged', 'applied', 'reverted', 'discarded']),
  created_at: z.iso.datetime(),
  applied_at: z.iso.datetime().nullable(),
  reverted_at: z.iso.datetime().nullable(),
  discarded_at: z.iso.datetime().nullable(),
}));

export const ChangesetSummary = once(() => z.object(ChangesetFields()).meta({ id: 'ChangesetSummary' }));
export const Changeset = once(() =>
  z.object({ ...ChangesetFields(), items: z.array(ChangesetItem()) }).meta({ id: 'Changeset' }),
);
export const ChangesetOutcome = once(() =>
  z
    .object({ ...ChangesetFields(), items: z.array(ChangesetItem()), counts: z.record(z.string(), z.int()) })
    .meta({ id: 'ChangesetOutcome' }),
);
export const UndoResult = once(() =>
  z
    .object({ entry_id: z.string(), undo_of: z.string(), record: z.record(z.string(), z.unknown()) })
    .meta({ id: 'UndoResult' }),
);
