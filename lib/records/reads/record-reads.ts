/**
 * Reading records, always consistently: the public reads (one, a member list, a batch) and the
 * read a write plans from (the record, and for an entity with a primary rule its pointer with it).
 * A page of records is in record-list.ts: it signs cursors, and only functions that page read
 * their keys.
 */
import { batchGetAll } from '#lib/db/batch-get.ts';
import { directReader, type ItemReader } from '#lib/db/item-reader.ts';
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
  reads: ItemReader = directReader,
): Promise<RecordView> {
  return recordView(await readExisting(entity, businessId, recordId, reads));
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

/**
 * One record as stored, read consistently; 404 when the business has no such record. `reads`: the
 * request's reader, for a read that may share a call with others (lib/db/item-reader.ts).
 */
export async function readExisting(
  entity: EntityName,
  businessId: string,
  recordId: string,
  reads: ItemReader = directReader,
): Promise<StoredItem> {
  const Item = await reads.get(keys.record(businessId, entity, recordId), { consistent: true });
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
  options?: { reads?: ItemReader },
): Promise<WriteRead>;
export async function readForWrite(
  entity: EntityName,
  businessId: string,
  recordId: string,
  options: { allowMissing: true; reads?: ItemReader },
): Promise<{ current: StoredItem | undefined; pointer: string | null | undefined }>;
export async function readForWrite(
  entity: EntityName,
  businessId: string,
  recordId: string,
  { allowMissing = false, reads = directReader }: { allowMissing?: boolean; reads?: ItemReader } = {},
): Promise<{ current: StoredItem | undefined; pointer: string | null | undefined }> {
  const { primary } = entities[entity];
  const recordKey = keys.record(businessId, entity, recordId);
  if (allowMissing && !primary) {
    const Item = await reads.get(recordKey, { consistent: true });
    return { current: Item as StoredItem | undefined, pointer: undefined };
  }
  if (!primary)
    return { current: await readExisting(entity, businessId, recordId, reads), pointer: undefined };
  const pointerKey = primary.pointer(businessId);
  const items = await reads.getMany([recordKey, pointerKey], { consistent: true });
  const current = items.find((item) => item.sk === recordKey.sk) as StoredItem | undefined;
  if (!current && !allowMissing)
    throw new NotFoundError(`No ${entities[entity].title} ${recordId} in this business`);
  const pointer = items.find((item) => item.sk === pointerKey.sk);
  return { current, pointer: pointedAt(primary, pointer) };
}
