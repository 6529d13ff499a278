/**
 * The public writes (create, replace, patch, set members, delete): each reads, checks If-Match, plans
 * one TransactWriteItems (record + Change History entry + bookkeeping) and commits it with retries.
 */
import { randomUUID } from 'node:crypto';
import { ConflictError } from '#lib/http/errors.ts';
import {
  assertSameRequest,
  type IdempotentCreate,
  REQUEST_HASH_ATTRIBUTE,
} from '#lib/http/idempotency/keyed-create.ts';
import { type EntityName, entities } from '#lib/records/entities.ts';
import { readForWrite, type WriteRead } from '#lib/records/reads/record-reads.ts';
import {
  type RecordFields,
  type RecordView,
  recordView,
  type StoredItem,
  VersionConflictError,
  type WriteOptions,
} from '#lib/records/record-types.ts';
import { readPrimaryPointer } from '#lib/records/write-planning/primary-pointer.ts';
import { findReferrers } from '#lib/records/write-planning/references.ts';
import { planWrite } from '#lib/records/write-planning/write-plan.ts';
import { commitWithRetry } from '#lib/records/writes/commit.ts';
import {
  completeFields,
  memberFieldOf,
  mergeIntoRecord,
  writableFieldsOf,
} from '#lib/records/writes/complete-fields.ts';

/**
 * Create a record. With `idempotentCreate` (the request carried an Idempotency-Key) its id is the
 * key's and it keeps the request's hash: when a re-run finds the record already written (the
 * first run's answer was lost), it answers with the stored record, or 422 for another request.
 */
export async function createRecord(
  entity: EntityName,
  businessId: string,
  body: RecordFields,
  options: WriteOptions & { idempotentCreate?: IdempotentCreate | undefined },
  recordId: string = options.idempotentCreate?.id ?? randomUUID(),
): Promise<RecordView> {
  const fields = completeFields(entity, body);
  const { idempotentCreate } = options;
  let attempt = 0;
  try {
    return await commitWithRetry(async () => {
      // A refused create is re-planned: with a key, first see whether it is this key's record.
      if (idempotentCreate && attempt++ > 0) {
        const { current } = await readForWrite(entity, businessId, recordId, { allowMissing: true });
        if (current) throw new AlreadyCreated(current);
      }
      const { primary } = entities[entity];
      const pointer =
        primary && fields[primary.field] === true ? await readPrimaryPointer(primary, businessId) : undefined;
      return planWrite({
        entity,
        businessId,
        recordId,
        current: undefined,
        next: fields,
        pointer,
        options,
        hidden: idempotentCreate ? { [REQUEST_HASH_ATTRIBUTE]: idempotentCreate.requestHash } : undefined,
      });
    });
  } catch (error) {
    if (!(error instanceof AlreadyCreated) || !idempotentCreate) throw error;
    assertSameRequest(error.item, idempotentCreate);
    // As it is now (an update since would show), under the status of a create.
    return recordView(error.item);
  }
}

/**
 * Options of a write to an existing record. `firstRead`: the record as read for this write, when
 * that read was started earlier (beside the caller's check); the first attempt plans from it, and
 * a retry after a concurrent write reads afresh.
 */
export type ExistingWriteOptions = WriteOptions & { firstRead?: Promise<WriteRead> | undefined };

class AlreadyCreated extends Error {
  constructor(readonly item: StoredItem) {
    super('already created');
  }
}

export async function replaceRecord(
  entity: EntityName,
  businessId: string,
  recordId: string,
  body: RecordFields,
  options: ExistingWriteOptions,
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
  options: ExistingWriteOptions,
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
  options: ExistingWriteOptions,
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
  { firstRead, ...options }: ExistingWriteOptions,
): Promise<void> {
  let read = firstRead;
  await commitWithRetry(async () => {
    const { current, pointer } = await (read ?? readForWrite(entity, businessId, recordId));
    read = undefined;
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
  { firstRead, ...options }: ExistingWriteOptions,
  nextFields: (current: StoredItem) => RecordFields,
): Promise<RecordView> {
  let read = firstRead;
  return commitWithRetry(async () => {
    const { current, pointer } = await (read ?? readForWrite(entity, businessId, recordId));
    read = undefined;
    checkIfMatch(current, options.ifMatch);
    return planWrite({ entity, businessId, recordId, current, next: nextFields(current), pointer, options });
  });
}

function checkIfMatch(current: StoredItem, ifMatch: number | undefined): void {
  if (ifMatch !== undefined && ifMatch !== current.version) throw new VersionConflictError(current.version);
}
