import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { assertHoldsBusiness, loadBusinessAccess } from '#lib/auth/business-access.ts';
import type { EditsPrincipal } from '#lib/auth/principal.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { createItemReader, type ItemReader } from '#lib/db/item-reader.ts';
import { type ItemKey, keys } from '#lib/db/keys.ts';
import { storedItem } from '#lib/db/stored-item.ts';
import { readHolderAccessAndRecords } from '#lib/edits/holder-access-and-records.ts';
import type { EditSessionView } from '#lib/edits/schemas.ts';
import { ConflictError, NotFoundError } from '#lib/http/errors.ts';
import {
  assertSameRequest,
  type IdempotentCreate,
  REQUEST_HASH_ATTRIBUTE,
} from '#lib/http/idempotency/keyed-create.ts';
import type { StoredItem } from '#lib/records/record-types.ts';
import * as z from '#lib/validation/zod.ts';

/** A session closes 60 minutes after its last use, or 24 hours after it was opened. */
export const SESSION_IDLE_MS = 60 * 60 * 1000;
export const SESSION_MAX_MS = 24 * 60 * 60 * 1000;

interface StoredSession {
  id: string;
  business_id: string;
  opened_by: string;
  client_id: string | null;
  created_at: string;
  last_used_at: string;
}

const sessionItem = storedItem<StoredSession>('edit session', () =>
  z.object({
    id: z.string(),
    business_id: z.string(),
    opened_by: z.string(),
    client_id: z.nullable(z.string()),
    created_at: z.string(),
    last_used_at: z.string(),
  }),
);

const closesAt = (session: StoredSession) =>
  Math.min(
    Date.parse(session.last_used_at) + SESSION_IDLE_MS,
    Date.parse(session.created_at) + SESSION_MAX_MS,
  );

function toView(session: StoredSession, holds: boolean, now = Date.now()): EditSessionView {
  return {
    id: session.id,
    business_id: session.business_id,
    is_open: holds && now < closesAt(session),
    opened_by: session.opened_by,
    client_id: session.client_id,
    created_at: session.created_at,
    last_used_at: session.last_used_at,
    expires_at: new Date(closesAt(session)).toISOString(),
  };
}

/**
 * Open a session on a business the caller holds (owner, editor, or a platform admin). With
 * `idempotentCreate` (an Idempotency-Key) the session's id is the key's: a re-run that finds it
 * already opened answers with it (422 for another request).
 */
export async function openSession(
  user: EditsPrincipal,
  businessId: string,
  idempotentCreate?: IdempotentCreate,
): Promise<EditSessionView> {
  await assertHoldsBusiness(user, businessId);
  const now = new Date();
  const session: StoredSession = {
    id: idempotentCreate?.id ?? randomUUID(),
    business_id: businessId,
    opened_by: user.userId,
    client_id: user.kind === 'assistant' ? user.clientId : null,
    created_at: now.toISOString(),
    last_used_at: now.toISOString(),
  };
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...(idempotentCreate ? { [REQUEST_HASH_ATTRIBUTE]: idempotentCreate.requestHash } : {}),
          ...keys.editSession(session.id),
          ...session,
          // DynamoDB's TTL removes the item some time after it can no longer be used.
          expires_at_epoch: Math.ceil((now.getTime() + SESSION_MAX_MS) / 1000),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
        // A re-run with the same key is refused with the session the first run opened.
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException) || !idempotentCreate || !error.Item) throw error;
    const opened = unmarshall(error.Item);
    assertSameRequest(opened, idempotentCreate);
    return toView(sessionItem.fromItem(opened), true);
  }
  return toView(session, true, now.getTime());
}

/** Read a session (its opener only; anyone else gets 404), with whether it is still open. */
export async function readSession(user: EditsPrincipal, sessionId: string): Promise<EditSessionView> {
  const session = await loadOwnSession(user, sessionId);
  const access = await loadBusinessAccess(user, session.business_id);
  const holds = access.isPlatformAdmin || access.role === 'owner' || access.role === 'editor';
  return toView(session, holds);
}

/**
 * The session, if the caller opened it, still holds its business (403 otherwise) and it is still
 * open (409 otherwise); using it keeps it open for another 60 minutes. With it, `read` of the
 * session's business: one conditional UpdateItem reads and touches the session, then the access
 * check and `read` go out at once (two round trips; items `read` reads by key through `reads` join
 * the check's BatchGetItem). `read`'s result is returned only once the check has passed.
 */
export async function useSessionAlongside<T>(
  user: EditsPrincipal,
  sessionId: string,
  read: (businessId: string, reads: ItemReader) => Promise<T>,
): Promise<{ session: EditSessionView; result: T }> {
  const touched = await touchSession(user, sessionId);
  const businessId = touched.session.business_id;
  const reads = createItemReader();
  const [access, result] = await Promise.allSettled([
    assertHoldsBusiness(user, businessId, reads),
    touched.open ? read(businessId, reads) : Promise.resolve(undefined),
  ]);
  const session = inUse(touched, access);
  if (result.status === 'rejected') throw result.reason;
  return { session, result: result.value as T };
}

/**
 * useSessionAlongside for a caller that knows the session's business already (a changeset names both): the
 * touch and the access check go out together, the check reading `recordKeys` with it (one round
 * trip). `records` holds those of them that exist.
 */
export async function useSessionOfBusiness(
  user: EditsPrincipal,
  sessionId: string,
  businessId: string,
  recordKeys: ItemKey[] = [],
): Promise<{ session: EditSessionView; records: StoredItem[] }> {
  const [touched, access] = await Promise.allSettled([
    touchSession(user, sessionId),
    readHolderAccessAndRecords(user, businessId, recordKeys),
  ]);
  if (touched.status === 'rejected') throw touched.reason;
  const session = inUse(touched.value, access);
  // A changeset is staged in a session of its own business; anything else is not the caller's.
  if (session.business_id !== businessId) throw new NotFoundError(`No edit session ${sessionId}`);
  return {
    session,
    records: access.status === 'fulfilled' ? access.value.records : [],
  };
}

/** The errors of a session's use, in order: not the caller's (404, thrown by the touch), 403, then closed (409). */
function inUse(touched: Touched, access: PromiseSettledResult<unknown>): EditSessionView {
  if (access.status === 'rejected') throw access.reason;
  if (!touched.open) throw new ConflictError('This edit session is closed; open a new one');
  return toView(touched.session, true, touched.at);
}

interface Touched {
  session: StoredSession;
  open: boolean;
  at: number;
}

/**
 * Mark the session used, in one conditional UpdateItem that returns it: only if the caller opened
 * it and it is still open (not idle for 60 minutes, not 24 hours old). When the condition fails, the
 * item DynamoDB found, returned with the failure, tells a session that is not the caller's (404) from
 * one that has closed.
 */
async function touchSession(user: EditsPrincipal, sessionId: string): Promise<Touched> {
  const now = Date.now();
  try {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.editSession(sessionId),
        UpdateExpression: 'SET last_used_at = :now',
        // A concurrent use only moves last_used_at later, so it cannot close the session meanwhile.
        ConditionExpression:
          'attribute_exists(pk) AND opened_by = :user AND last_used_at > :idleCutoff AND created_at > :ageCutoff',
        ExpressionAttributeValues: {
          ':now': new Date(now).toISOString(),
          ':user': user.userId,
          ':idleCutoff': new Date(now - SESSION_IDLE_MS).toISOString(),
          ':ageCutoff': new Date(now - SESSION_MAX_MS).toISOString(),
        },
        ReturnValues: 'ALL_NEW',
        // A refused touch carries the session as it found it: telling a missing or foreign session
        // (404) from a closed one (409) needs no second read.
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    // ALL_NEW always returns the item the condition found.
    return { session: sessionItem.fromItem(Attributes ?? {}), open: true, at: now };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    // The exception's item is in DynamoDB's wire format: lib-dynamodb translates answers, not errors.
    const found = error.Item ? unmarshall(error.Item) : undefined;
    return { session: ownSession(user, sessionId, found), open: false, at: now };
  }
}

async function loadOwnSession(user: EditsPrincipal, sessionId: string): Promise<StoredSession> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.editSession(sessionId), ConsistentRead: true }),
  );
  return ownSession(user, sessionId, Item);
}

/** The stored session, when it exists and the user opened it: otherwise it is not theirs to see. */
function ownSession(
  user: EditsPrincipal,
  sessionId: string,
  item: Record<string, unknown> | undefined,
): StoredSession {
  if (!item || item.opened_by !== user.userId) throw new NotFoundError(`No edit session ${sessionId}`);
  return sessionItem.fromItem(item);
}
