/**
 * The public writes (create, replace, patch, set members, delete): each reads, checks If-Match, plans
 * one TransactWriteItems (record + Change History entry + bookkeeping) and commits it with retries.
 */
import { randomUUID } from 'node:crypto';
import { ConflictError } from '#lib/http/errors.ts';
import { commitWithRetry } from '#lib/records/commit.ts';
import {
  completeFields,
  memberFieldOf,
  mergeIntoRecord,
  writableFieldsOf,
} from '#lib/records/complete-fields.ts';
import { type EntityName, entities } from '#lib/records/entities.ts';
import { readPrimaryPointer } from '#lib/records/primary-location.ts';
import { readForWrite } from '#lib/records/record-reads.ts';
import {
  type RecordFields,
  type RecordView,
  type StoredItem,
  VersionConflictError,
  type WriteOptions,
} from '#lib/records/record-types.ts';
import { findReferrers } from '#lib/records/references.ts';
import { planWrite } from '#lib/records/write-plan.ts';

export async function createRecord(
  entity: EntityName,
  businessId: string,
  body: RecordFields,
  options: WriteOptions,
  recordId: string = randomUUID(),
): Promise<RecordView> {
  const fields = completeFields(entity, body);
  return commitWithRetry(async () => {
    const pointer =
      entity === 'location' && fields.is_primary === true ? await readPrimaryPointer(businessId) : undefined;
    return planWrite({ entity, businessId, recordId, current: undefined, next: fields, pointer, options });
  });
}

export async function replaceRecord(
  entity: EntityName,
  businessId: string,
  recordId: string,
  body: RecordFields,
  options: WriteOptions,
): Promise<RecordView> {
  return updateWith(entity, businessId, recordId, options, (current) => ({
    ...completeFields(entity, body),
    ...memberFieldOf(entity, current),
  }));
}

export async function patchRecord(
  entity: EntityName,
  businessId: string,
  recordId: string,
  patch: RecordFields,
  options: WriteOptions,
): Promise<RecordView> {
  return updateWith(entity, businessId, recordId, options, (current) =>
    mergeIntoRecord(entity, current, patch),
  );
}

export async function setMembers(
  entity: EntityName,
  businessId: string,
  recordId: string,
  memberIds: string[],
  options: WriteOptions,
): Promise<RecordView> {
  const members = entities[entity].members;
  if (!members) throw new Error(`${entity} has no members`);
  return updateWith(entity, businessId, recordId, options, (current) => ({
    ...writableFieldsOf(entity, current),
    [members.field]: memberIds,
  }));
}

export async function deleteRecord(
  entity: EntityName,
  businessId: string,
  recordId: string,
  options: WriteOptions,
): Promise<void> {
  await commitWithRetry(async () => {
    const { current, pointer } = await readForWrite(entity, businessId, recordId);
    checkIfMatch(current, options.ifMatch);
    if ((current.ref_count ?? 0) > 0) {
      const referrers = await findReferrers(entity, businessId, recordId);
      if (referrers.length > 0) {
        throw new ConflictError(`This ${entities[entity].title} is still referenced`, { referrers });
      }
    }
    return planWrite({ entity, businessId, recordId, current, next: undefined, pointer, options });
  });
}

async function updateWith(
  entity: EntityName,
  businessId: string,
  recordId: string,
  options: WriteOptions,
  nextFields: (current: StoredItem) => RecordFields,
): Promise<RecordView> {
  return commitWithRetry(async () => {
    const { current, pointer } = await readForWrite(entity, businessId, recordId);
    checkIfMatch(current, options.ifMatch);
    return planWrite({ entity, businessId, recordId, current, next: nextFields(current), pointer, options });
  });
}

function checkIfMatch(current: StoredItem, ifMatch: number | undefined): void {
  if (ifMatch !== undefined && ifMatch !== current.version) throw new VersionConflictError(current.version);
}
