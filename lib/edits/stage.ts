/** Staging a changeset: each proposed item checked against the business, then stored all or none. */
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { EditsPrincipal } from '#lib/auth/principal.ts';
import { batchGetAll } from '#lib/db/batch-get.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys, RECORD_PREFIX } from '#lib/db/keys.ts';
import { queryAll } from '#lib/db/query-all.ts';
import { fieldsOf, type Header, type Item, loadOwn, view } from '#lib/edits/changeset-store.ts';
import { useSessionAlongside } from '#lib/edits/sessions.ts';
import { ConflictError, NotFoundError, ValidationError, type ValidationIssue } from '#lib/http/errors.ts';
import {
  assertSameRequest,
  type IdempotentCreate,
  REQUEST_HASH_ATTRIBUTE,
} from '#lib/http/idempotency/keyed-create.ts';
import { toValidationIssues } from '#lib/http/validation.ts';
import { type EntityName, entities } from '#lib/records/entities.ts';
import type { RecordFields } from '#lib/records/record-types.ts';
import { schemasOf } from '#lib/records/schemas.ts';
import { mergeIntoRecord } from '#lib/records/writes/complete-fields.ts';

export interface StagedItemInput {
  entity: EntityName;
  action: 'create' | 'update' | 'delete';
  record_id?: string | undefined;
  fields?: Record<string, unknown> | undefined;
}

/**
 * Stage a changeset in a session. With `idempotentCreate` (an Idempotency-Key) the changeset's id
 * is the key's, and a re-run first looks for it: found (the first run's answer was lost), it
 * answers with the changeset as it is now (422 for another request) and writes nothing, so an
 * applied or discarded changeset is never overwritten.
 */
export async function stageChangeset(
  user: EditsPrincipal,
  sessionId: string,
  input: { summary?: string | undefined; items: StagedItemInput[] },
  idempotentCreate?: IdempotentCreate,
) {
  if (idempotentCreate) {
    const staged = await stagedBefore(user, idempotentCreate);
    if (staged) return staged;
  }
  const { session, result: records } = await useSessionAlongside(user, sessionId, (businessId) =>
    queryAll({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :records)',
      ExpressionAttributeValues: { ':pk': keys.business(businessId).pk, ':records': RECORD_PREFIX },
      ConsistentRead: true,
    }),
  );
  const businessId = session.business_id;
  const existing = new Map(records.map((item) => [`${item.entity}#${item.id}`, item]));
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  const changesetId = idempotentCreate?.id ?? randomUUID();
  const items: Item[] = [];

  for (const [index, staged] of input.items.entries()) {
    const at = (...loc: (string | number)[]) => ['body', 'items', index, ...loc];
    const fail = (loc: (string | number)[], msg: string, type = 'invalid_item') =>
      issues.push({ loc, msg, type });
    const isProfile = staged.entity === 'profile';
    // The profile's id is always `profile`, so an update of it may leave record_id out.
    const recordId = isProfile
      ? (staged.record_id ?? 'profile')
      : staged.action === 'create'
        ? randomUUID()
        : staged.record_id;
    if (isProfile && staged.action !== 'update') {
      // Every business is created with its profile: it is only ever updated.
      fail(at('action'), "every business has its profile: update it (record_id 'profile')");
      continue;
    }
    if (staged.action !== 'create' && !recordId) {
      fail(at('record_id'), `record_id is required to ${staged.action}`);
      continue;
    }
    if (staged.action === 'create' && staged.record_id !== undefined && !isProfile) {
      fail(at('record_id'), 'a create gets its id from the service; leave record_id out');
      continue;
    }
    const key = `${staged.entity}#${recordId}`;
    if (seen.has(key)) {
      fail(at('record_id'), 'one item per record in a changeset');
      continue;
    }
    seen.add(key);
    const current = existing.get(key);
    const fields = staged.fields ?? {};
    const base = {
      id: randomUUID(),
      index,
      entity: staged.entity,
      action: staged.action,
      record_id: recordId ?? '',
    };

    if (staged.action === 'create') {
      const parsed = schemasOf(staged.entity).write.safeParse(fields);
      if (!parsed.success) {
        issues.push(...prefixed(toValidationIssues('body', parsed.error), at('fields')));
        continue;
      }
      issues.push(...missingReferences(staged.entity, parsed.data, existing, at('fields')));
      items.push({
        ...base,
        fields: parsed.data,
        before: null,
        after: null,
        base_version: null,
        ticked: true,
        status: 'staged',
        outcome: null,
      });
      continue;
    }

    if (!current) {
      fail(at('record_id'), `no ${entities[staged.entity].title} ${recordId} in this business`, 'not_found');
      continue;
    }
    if (staged.action === 'delete') {
      items.push({
        ...base,
        fields: null,
        before: fieldsOf(staged.entity, current),
        after: null,
        base_version: Number(current.version),
        ticked: true,
        status: 'staged',
        outcome: null,
      });
      continue;
    }
    const parsed = schemasOf(staged.entity).patch.safeParse(fields);
    if (!parsed.success || Object.keys(fields).length === 0) {
      if (parsed.success) fail(at('fields'), 'an update needs at least one field');
      else issues.push(...prefixed(toValidationIssues('body', parsed.error), at('fields')));
      continue;
    }
    try {
      mergeIntoRecord(staged.entity, current, fields);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      issues.push(...prefixed(error.details as ValidationIssue[], at('fields')));
      continue;
    }
    issues.push(...missingReferences(staged.entity, fields, existing, at('fields')));
    const before = Object.fromEntries(Object.keys(fields).map((field) => [field, current[field] ?? null]));
    items.push({
      ...base,
      fields,
      before,
      after: null,
      base_version: Number(current.version),
      ticked: true,
      status: 'staged',
      outcome: null,
    });
  }
  issues.push(...(await missingPhotos(businessId, items)));
  if (issues.length > 0) throw new ValidationError('Some items cannot be staged; nothing was staged', issues);

  const now = new Date().toISOString();
  const header: Header = {
    id: changesetId,
    business_id: businessId,
    session_id: sessionId,
    opened_by: user.userId,
    summary: input.summary ?? null,
    status: 'staged',
    created_at: now,
    applied_at: null,
    reverted_at: null,
    discarded_at: null,
  };
  // Items first, header last: a changeset exists only once its header does, so a failure half-way
  // leaves unreachable items, never a half-staged changeset. (101 writes exceed one transaction.)
  for (let start = 0; start < items.length; start += 25) {
    await batchPut(
      items.slice(start, start + 25).map((item) => ({
        ...keys.changesetItem(changesetId, item.index),
        changeset_id: changesetId,
        ...item,
      })),
    );
  }
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...(idempotentCreate ? { [REQUEST_HASH_ATTRIBUTE]: idempotentCreate.requestHash } : {}),
        ...keys.changeset(changesetId),
        ...keys.changesetOrder(businessId, now, changesetId),
        ...header,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return view(header, items);
}

/** The changeset this key staged before, if any (its header is written last, so it is whole). */
async function stagedBefore(user: EditsPrincipal, idempotentCreate: IdempotentCreate) {
  try {
    const { header, items } = await loadOwn(user, idempotentCreate.id);
    assertSameRequest(header, idempotentCreate);
    return view(header, items);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

function prefixed(issues: ValidationIssue[], prefix: (string | number)[]): ValidationIssue[] {
  return issues.map((issue) => ({ ...issue, loc: [...prefix, ...issue.loc.slice(1)] }));
}

/** Referenced records (location_id) must exist in this business when the item is staged. */
function missingReferences(
  entity: EntityName,
  fields: RecordFields,
  existing: Map<string, RecordFields>,
  at: (string | number)[],
): ValidationIssue[] {
  return Object.entries(entities[entity].fields).flatMap(([field, spec]) => {
    const value = fields[field];
    if (!spec.references || spec.references === 'photo' || typeof value !== 'string') return [];
    return existing.has(`${spec.references}#${value}`)
      ? []
      : [
          {
            loc: [...at, field],
            msg: `References a ${spec.references} that does not exist in this business`,
            type: 'reference',
          },
        ];
  });
}

async function missingPhotos(businessId: string, items: Item[]): Promise<ValidationIssue[]> {
  const wanted = items.flatMap((item) =>
    Object.entries(entities[item.entity].fields)
      .filter(([field, spec]) => spec.references === 'photo' && typeof item.fields?.[field] === 'string')
      .map(([field]) => ({ item, field, photoId: String(item.fields?.[field]) })),
  );
  if (wanted.length === 0) return [];
  const ids = [...new Set(wanted.map((w) => w.photoId))];
  const photos = await batchGetAll(ids.map((id) => keys.photo(businessId, id)));
  const live = new Set(photos.filter((photo) => !photo.deleted_at).map((photo) => String(photo.id)));
  return wanted
    .filter((w) => !live.has(w.photoId))
    .map((w) => ({
      loc: ['body', 'items', w.item.index, 'fields', w.field],
      msg: 'References a photo that does not exist in this business',
      type: 'reference',
    }));
}

async function batchPut(items: Record<string, unknown>[]): Promise<void> {
  let pending = items.map((Item) => ({ PutRequest: { Item } }));
  for (let attempt = 0; pending.length > 0 && attempt < 8; attempt++) {
    const result = await dynamo.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
    pending = (result.UnprocessedItems?.[tableName] ?? []) as typeof pending;
    if (pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt));
  }
  if (pending.length > 0) throw new ConflictError('The changeset could not be stored; retry');
}
