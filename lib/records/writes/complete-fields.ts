/**
 * The complete fields a record is written with: defaults filled in, member list kept, and a patch or
 * a set of values merged and validated as a whole. Pure; used by writes, history and the edits API.
 */
import { ValidationError } from '#lib/http/errors.ts';
import { toValidationIssues } from '#lib/http/validation.ts';
import { type EntityName, entities } from '#lib/records/entities.ts';
import type { RecordFields } from '#lib/records/record-types.ts';
import { schemasOf } from '#lib/records/schemas.ts';
import { applyMergePatch } from '#lib/records/writes/merge-patch.ts';

/** Every writable field present: the ones not sent take their default, or null. */
export function completeFields(entity: EntityName, body: RecordFields): RecordFields {
  return Object.fromEntries(
    Object.entries(entities[entity].fields).map(([field, spec]) => [
      field,
      body[field] === undefined ? (spec.default ?? null) : body[field],
    ]),
  );
}

export function writableFieldsOf(entity: EntityName, item: RecordFields): RecordFields {
  return Object.fromEntries(
    Object.keys(entities[entity].fields)
      .filter((field) => item[field] !== null && item[field] !== undefined)
      .map((field) => [field, item[field]]),
  );
}

export function memberFieldOf(entity: EntityName, item: RecordFields): RecordFields {
  const members = entities[entity].members;
  return members ? { [members.field]: (item[members.field] as string[] | undefined) ?? [] } : {};
}

/**
 * The complete fields of a record after a merge patch, validated as a whole (a 422 names the
 * fields), with its member list kept.
 */
export function mergeIntoRecord(
  entity: EntityName,
  current: RecordFields,
  patch: RecordFields,
): RecordFields {
  const merged = applyMergePatch(writableFieldsOf(entity, current), patch) as RecordFields;
  const result = schemasOf(entity).write.safeParse(merged);
  if (!result.success) {
    throw new ValidationError(
      'The patched record would not be valid',
      toValidationIssues('body', result.error),
    );
  }
  return { ...completeFields(entity, result.data), ...memberFieldOf(entity, current) };
}

/** The complete fields of a record with some top-level fields set (nested objects replaced whole). */
export function setIntoRecord(entity: EntityName, current: RecordFields, values: RecordFields): RecordFields {
  const replaced = { ...writableFieldsOf(entity, current), ...values };
  const members = entities[entity].members;
  const memberValue =
    members && members.field in values
      ? { [members.field]: values[members.field] ?? [] }
      : memberFieldOf(entity, current);
  const fields = Object.fromEntries(
    Object.entries(replaced).filter(([key, value]) => value !== null && key !== members?.field),
  );
  const result = schemasOf(entity).write.safeParse(fields);
  if (!result.success) {
    throw new ValidationError('The record would not be valid', toValidationIssues('body', result.error));
  }
  return { ...completeFields(entity, result.data), ...memberValue };
}

/** Complete fields for a new record from a create body (defaults applied, members empty). */
export function newRecordFields(entity: EntityName, body: RecordFields): RecordFields {
  return { ...completeFields(entity, body), ...memberFieldOf(entity, body) };
}
