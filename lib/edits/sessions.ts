import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { assertHoldsBusiness, loadBusinessAccess } from '#lib/auth/business-access.ts';
import type { EditsPrincipal } from '#lib/auth/principal.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import type { EditSessionView } from '#lib/edits/schemas.ts';
import { ConflictError, NotFoundError } from '#lib/http/errors.ts';
import {
  assertSameRequest,
  type IdempotentCreate,
  REQUEST_HASH_ATTRIBUTE,
} from '#lib/http/idempotent-create.ts';

/** A session closes 60 minutes after its last use, or 24 hours after it was opened (DESIGN §6). */
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
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException) || !idempotentCreate) throw error;
    const { Item } = await dynamo.send(
      new GetCommand({ TableName: tableName, Key: keys.editSession(session.id), ConsistentRead: true }),
    );
    if (!Item) throw error;
    assertSameRequest(Item, idempotentCreate);
    return toView(Item as unknown as StoredSession, true);
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
 * open (409 otherwise). Using it keeps it open for another 60 minutes.
 */
export async function useSession(user: EditsPrincipal, sessionId: string): Promise<EditSessionView> {
  const session = await loadOwnSession(user, sessionId);
  await assertHoldsBusiness(user, session.business_id);
  const now = Date.now();
  if (now >= closesAt(session)) throw new ConflictError('This edit session is closed; open a new one');
  const lastUsed = new Date(now).toISOString();
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.editSession(sessionId),
        UpdateExpression: 'SET last_used_at = :now',
        // Not closed by idleness in the meantime (a concurrent use only moves it later).
        ConditionExpression: 'last_used_at > :idleCutoff',
        ExpressionAttributeValues: {
          ':now': lastUsed,
          ':idleCutoff': new Date(now - SESSION_IDLE_MS).toISOString(),
        },
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException)
      throw new ConflictError('This edit session is closed');
    throw error;
  }
  return toView({ ...session, last_used_at: lastUsed }, true, now);
}

async function loadOwnSession(user: EditsPrincipal, sessionId: string): Promise<StoredSession> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.editSession(sessionId), ConsistentRead: true }),
  );
  if (!Item || Item.opened_by !== user.userId) throw new NotFoundError(`No edit session ${sessionId}`);
  return Item as unknown as StoredSession;
}
