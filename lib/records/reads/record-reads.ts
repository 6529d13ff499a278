/**
 * Reading records, always consistently: the public reads (one, a member list, a batch) and the
 * read a write plans from (the record, and for an entity with a primary rule its pointer with it).
 * A page of records is in record-list.ts: it signs cursors, and only functions that page read
 * their keys.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll } from '#lib/db/batch-get.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { NotFoundError } from '#lib/http/errors.ts';
import { type EntityName, entities } from '#lib/records/entities.ts';
import {
  type RecordFields,
  type RecordView,
  recordView,
  type StoredItem,
} from '#lib/records/record-types.ts';
import { pointedAt } from '#lib/records/write-planning/primary-pointer.ts';

export async function getRecord(
  entity: EntityName,
  businessId: string,
  recordId: string,
): Promise<RecordView> {
  return recordView(await readExisting(entity, businessId, recordId));
}

/**
 * The members of a package or service item, in the order of its member list. `ownerRead` is the
 * owner's read when it was started earlier (readExisting).
 */
export async function listMembers(
  entity: EntityName,
  businessId: string,
  recordId: string,
  ownerRead: Promise<StoredItem> = readExisting(entity, businessId, recordId),
): Promise<RecordView[]> {
  const members = entities[entity].members;
  if (!members) throw new Error(`${entity} has no members`);
  const owner = await ownerRead;
  const ids = (owner[members.field] as string[] | undefined) ?? [];
  const found = await readRecords(
    businessId,
    ids.map((id) => ({ entity: members.entity, recordId: id })),
  );
  return ids.flatMap((id) => {
    const item = found.get(`${members.entity}#${id}`);
    return item ? [recordView(item)] : [];
  });
}

/** Several records of one business in one BatchGetItem (consistent), keyed by `<entity>#<id>`. */
export async function readRecords(
  businessId: string,
  wanted: { entity: EntityName; recordId: string }[],
): Promise<Map<string, RecordFields>> {
  const items = await batchGetAll(
    wanted.map((w) => keys.record(businessId, w.entity, w.recordId)),
    { consistent: true },
  );
  return new Map(items.map((item) => [`${item.entity}#${item.id}`, item]));
}

/** One record as stored, read consistently; 404 when the business has no such record. */
export async function readExisting(
  entity: EntityName,
  businessId: string,
  recordId: string,
): Promise<StoredItem> {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.record(businessId, entity, recordId),
      ConsistentRead: true,
    }),
  );
  if (!Item) throw new NotFoundError(`No ${entities[entity].title} ${recordId} in this business`);
  return Item as StoredItem;
}

/** What a write plans from: the record, and the primary pointer of an entity with a primary rule. */
export interface WriteRead {
  current: StoredItem;
  pointer: string | null | undefined;
}

/** The record, and for an entity with a primary rule its pointer too, in one call. */
export async function readForWrite(
  entity: EntityName,
  businessId: string,
  recordId: string,
): Promise<WriteRead>;
export async function readForWrite(
  entity: EntityName,
  businessId: string,
  recordId: string,
  options: { allowMissing: true },
): Promise<{ current: StoredItem | undefined; pointer: string | null | undefined }>;
export async function readForWrite(
  entity: EntityName,
  businessId: string,
  recordId: string,
  options: { allowMissing?: boolean } = {},
): Promise<{ current: StoredItem | undefined; pointer: string | null | undefined }> {
  const { primary } = entities[entity];
  if (options.allowMissing && !primary) {
    const { Item } = await dynamo.send(
      new GetCommand({
        TableName: tableName,
        Key: keys.record(businessId, entity, recordId),
        ConsistentRead: true,
      }),
    );
    return { current: Item as StoredItem | undefined, pointer: undefined };
  }
  if (!primary) return { current: await readExisting(entity, businessId, recordId), pointer: undefined };
  const recordKey = keys.record(businessId, entity, recordId);
  const pointerKey = primary.pointer(businessId);
  const items = await batchGetAll([recordKey, pointerKey], { consistent: true });
  const current = items.find((item) => item.sk === recordKey.sk) as StoredItem | undefined;
  if (!current && !options.allowMissing)
    throw new NotFoundError(`No ${entities[entity].title} ${recordId} in this business`);
  const pointer = items.find((item) => item.sk === pointerKey.sk);
  return { current, pointer: pointedAt(primary, pointer) };
}
