import { SessionPathParams, StageChangesetBody } from '#lib/edits/schemas.ts';
import { ENTITY_NAMES, type EntityName, entities } from '#lib/records/entities.ts';
import { schemasOf } from '#lib/records/schemas.ts';
import { once } from '#lib/validation/lazy.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * The input of the propose_changes tool: the edits API's changeset body, with each item typed by
 * its entity and action, so that an assistant's client can check an item before sending it.
 *
 * Each item's `fields` is the entity's own schema from lib/records/schemas.ts, the one staging
 * validates with: a create's the write schema (required fields required), an update's the patch
 * schema (every field optional, null clears an optional field). Those schemas carry their OpenAPI
 * ids (FaqWrite, FaqPatch…), so JSON Schema output holds each once in `$defs` and the items refer
 * to it. The profile is only updated (every business has one); a delete has no fields.
 * The tool validates its arguments with this schema, so it accepts what the published schema
 * describes; staging then checks each item again, and what JSON Schema cannot say: text that is
 * only white space, time zones, salary min ≤ max, references to records and photos.
 */

const RecordId = once(() =>
  z.meta(z.uuid(), { id: 'RecordId', description: 'The id of an existing record, from get_snapshot' }),
);

const updateFields = (entity: EntityName) =>
  z.meta(schemasOf(entity).patch, {
    description: 'Only the fields that change; null clears an optional field',
    minProperties: 1,
  });

/** An update changes at least one field; the patch schema itself allows `{}` (an empty PATCH). */
const changesAField = z.refine<{ fields: object }>((item) => Object.keys(item.fields).length > 0, {
  path: ['fields'],
  message: 'an update needs at least one field',
});

const createFields = (entity: EntityName) =>
  z.meta(schemasOf(entity).write, { description: `The new ${entities[entity].title}'s fields` });

/** create, update and delete of one entity other than the profile. */
const recordChanges = (entity: Exclude<EntityName, 'profile'>) =>
  z.discriminatedUnion(
    'action',
    [
      z.strictObject({
        entity: z.literal(entity),
        action: z.literal('create'),
        fields: createFields(entity),
      }),
      z
        .strictObject({
          entity: z.literal(entity),
          action: z.literal('update'),
          record_id: RecordId(),
          fields: updateFields(entity),
        })
        .check(changesAField),
      z.strictObject({ entity: z.literal(entity), action: z.literal('delete'), record_id: RecordId() }),
    ],
    { error: 'action must be create, update or delete' },
  );

const profileChange = () =>
  z
    .strictObject({
      entity: z.literal('profile'),
      action: z.literal('update', {
        error: "every business has its profile: update it (record_id 'profile' or none)",
      }),
      record_id: z.optional(z.literal('profile')),
      fields: updateFields('profile'),
    })
    .check(changesAField);

const isRecordEntity = (entity: EntityName): entity is Exclude<EntityName, 'profile'> => entity !== 'profile';

export const ChangeItem = once(() =>
  z.discriminatedUnion(
    'entity',
    [profileChange(), ...ENTITY_NAMES.filter(isRecordEntity).map(recordChanges)],
    { error: `entity must be one of ${ENTITY_NAMES.join(', ')}` },
  ),
);

export const ProposeChangesInput = once(() =>
  z.extend(SessionPathParams(), {
    summary: StageChangesetBody().shape.summary,
    items: z.array(ChangeItem()).check(z.minLength(1), z.maxLength(100)),
  }),
);
