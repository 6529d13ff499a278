import { ENTITY_NAMES } from '#lib/records/entities.ts';
import { once } from '#lib/validation/lazy.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * The edits API's schemas, each a memoised thunk (lib/validation/lazy.ts): a function builds the
 * few it validates with when its route row asks for them; OpenAPI and the tool server build all.
 */

export const OpenSessionBody = once(() =>
  z.meta(z.strictObject({ business_id: z.uuid() }), { id: 'OpenEditSessionBody' }),
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
    cursor: z.optional(z.string().check(z.maxLength(1000))),
    limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(200)), 50),
  }),
);

export const EditSession = once(() =>
  z.meta(
    z.object({
      id: z.uuid(),
      business_id: z.uuid(),
      is_open: z.boolean(),
      opened_by: z.string(),
      client_id: z.nullable(z.string()),
      created_at: z.iso.datetime(),
      last_used_at: z.iso.datetime(),
      expires_at: z.meta(z.iso.datetime(), {
        description: 'When it closes unless used again sooner (60 min idle, 24 h at most)',
      }),
    }),
    { id: 'EditSession' },
  ),
);
export type EditSessionView = z.output<ReturnType<typeof EditSession>>;

const TrimmedRecord = once(() =>
  z.meta(
    z.object({
      record_id: z.string(),
      version: z.int(),
      label: z.nullable(z.string()),
      updated_at: z.iso.datetime(),
    }),
    { id: 'TrimmedRecord' },
  ),
);

export const Snapshot = once(() =>
  z.meta(
    z.object({
      business_id: z.uuid(),
      profile: z.nullable(z.record(z.string(), z.unknown())),
      records: z.record(z.string(), z.array(TrimmedRecord())),
    }),
    { id: 'Snapshot' },
  ),
);

export const RecordEnvelope = once(() =>
  z.meta(
    z.object({
      entity: z.enum(ENTITY_NAMES),
      record_id: z.string(),
      version: z.int(),
      data: z.record(z.string(), z.unknown()),
    }),
    { id: 'EditRecord' },
  ),
);

export const Claim = once(() =>
  z.meta(z.object({ business_id: z.uuid(), name: z.string(), role: z.enum(['owner', 'editor']) }), {
    id: 'Claim',
  }),
);

export const BusinessSummary = once(() =>
  z.meta(
    z.object({
      id: z.uuid(),
      name: z.string(),
      role: z.nullable(z.enum(['owner', 'editor', 'viewer'])),
      record_counts: z.record(z.string(), z.int()),
    }),
    { id: 'BusinessSummary' },
  ),
);

export const ChangeLogEntry = once(() =>
  z.meta(
    z.object({
      id: z.string(),
      business_id: z.uuid(),
      entity: z.enum(ENTITY_NAMES),
      record_id: z.string(),
      action: z.enum(['create', 'update', 'delete']),
      before: z.nullable(z.record(z.string(), z.unknown())),
      after: z.nullable(z.record(z.string(), z.unknown())),
      actor: z.object({ type: z.string(), id: z.string(), client_id: z.optional(z.string()) }),
      at: z.iso.datetime(),
      version: z.meta(z.optional(z.int()), {
        description: 'The version the record reached with this change',
      }),
      changeset_id: z.meta(z.optional(z.uuid()), {
        description: 'The changeset that applied or reverted it',
      }),
      revert_of: z.meta(z.optional(z.uuid()), { description: 'The changeset item this change reverted' }),
      undo_of: z.meta(z.optional(z.string()), { description: 'The entry this change undid' }),
      undone_by: z.meta(z.optional(z.string()), { description: 'The entry that undid this change' }),
    }),
    { id: 'ChangeLogEntry' },
  ),
);

export const StageChangesetBody = once(() =>
  z.meta(
    z.strictObject({
      summary: z.optional(z.string().check(z.maxLength(500))),
      items: z
        .array(
          z.strictObject({
            entity: z.enum(ENTITY_NAMES),
            action: z.enum(['create', 'update', 'delete']),
            record_id: z.optional(z.union([z.uuid(), z.literal('profile')])),
            fields: z.optional(z.record(z.string(), z.unknown())),
          }),
        )
        .check(z.minLength(1), z.maxLength(100)),
    }),
    { id: 'StageChangesetBody' },
  ),
);

export const TickBody = once(() => z.meta(z.strictObject({ ticked: z.boolean() }), { id: 'TickBody' }));
export const ChangesetPathParams = once(() => z.strictObject({ changeset_id: z.uuid() }));
export const ChangesetItemPathParams = once(() =>
  z.strictObject({ changeset_id: z.uuid(), item_id: z.uuid() }),
);
export const UndoPathParams = once(() => z.strictObject({ business_id: z.uuid(), entry_id: z.uuid() }));
export const ChangesetListQuery = once(() =>
  z.strictObject({
    status: z.optional(z.enum(['staged', 'applied', 'reverted', 'discarded'])),
    cursor: z.optional(z.string().check(z.maxLength(1000))),
    limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 20),
  }),
);

const ChangesetItem = once(() =>
  z.meta(
    z.object({
      id: z.uuid(),
      index: z.int(),
      entity: z.enum(ENTITY_NAMES),
      action: z.enum(['create', 'update', 'delete']),
      record_id: z.string(),
      fields: z.nullable(z.record(z.string(), z.unknown())),
      before: z.nullable(z.record(z.string(), z.unknown())),
      base_version: z.nullable(z.int()),
      ticked: z.boolean(),
      status: z.enum(['staged', 'applied', 'conflict', 'skipped', 'reverted', 'revert_conflict']),
      outcome: z.nullable(z.record(z.string(), z.unknown())),
    }),
    { id: 'ChangesetItem' },
  ),
);

const ChangesetFields = once(() => ({
  id: z.uuid(),
  business_id: z.uuid(),
  session_id: z.uuid(),
  summary: z.nullable(z.string()),
  status: z.enum(['staged', 'applied', 'reverted', 'discarded']),
  created_at: z.iso.datetime(),
  applied_at: z.nullable(z.iso.datetime()),
  reverted_at: z.nullable(z.iso.datetime()),
  discarded_at: z.nullable(z.iso.datetime()),
}));

export const ChangesetSummary = once(() => z.meta(z.object(ChangesetFields()), { id: 'ChangesetSummary' }));
export const Changeset = once(() =>
  z.meta(z.object({ ...ChangesetFields(), items: z.array(ChangesetItem()) }), { id: 'Changeset' }),
);
export const ChangesetOutcome = once(() =>
  z.meta(
    z.object({
      ...ChangesetFields(),
      items: z.array(ChangesetItem()),
      counts: z.record(z.string(), z.int()),
    }),
    { id: 'ChangesetOutcome' },
  ),
);
export const UndoResult = once(() =>
  z.meta(z.object({ entry_id: z.string(), undo_of: z.string(), record: z.record(z.string(), z.unknown()) }), {
    id: 'UndoResult',
  }),
);
