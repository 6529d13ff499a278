import { randomBytes, randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { UserPrincipal } from '#lib/auth/principal.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { queryAll } from '#lib/db/query-all.ts';
import { storedItem } from '#lib/db/stored-item.ts';
import { ConflictError, ForbiddenError, GoneError, NotFoundError } from '#lib/http/errors.ts';
import { startedAhead } from '#lib/http/started-ahead.ts';
import { type ConsentRequestItem, consentRequestItem, withParams } from '#lib/oauth/authorize.ts';
import { hashSecret } from '#lib/oauth/hash-secret.ts';
import { redirectHost } from '#lib/oauth/redirect-uris.ts';
import { CODE_SECONDS, GRANT_MAX_SECONDS, SCOPE_DESCRIPTIONS } from '#lib/oauth/settings.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * The three consent operations (docs/interface.md, 'Areas and their credentials'). The first
 * console user to read or decide a pending request owns it; to anyone else it does not exist (404).
 * Approving needs the user to hold at least one business; it answers the client's redirect URI with
 * a single-use 60-second code, and denying with error=access_denied, both carrying `state` and
 * `iss`. A denial sends the browser back only to a pre-registered client: anyone can give a
 * dynamic or metadata-document client any redirect URI, and a denial involves no trust in the
 * client, so redirecting it would let a link to the console bounce a person to any page. For those
 * clients the answer has no `redirect_to`, and the console shows the denial with the way back as a
 * plain link (`client_link`) the person may follow.
 */
export interface ConsentDecision {
  redirect_to: string | null;
  client_link: string | null;
}

const INELIGIBLE_REASON =
  'You do not manage any business yet: an assistant could not edit anything for you. Ask an owner to add you as an owner or editor.';

export async function readConsentRequest(user: UserPrincipal, requestId: string) {
  // The memberships depend only on the user: they go out beside the request's read. The earlier
  // consent needs the request's client, so it goes out beside the claim (loadOwnedRequest).
  const eligibility = startedAhead(holdsAnyBusiness(user.userId));
  let consented: Promise<boolean> | undefined;
  const request = await loadOwnedRequest(user, requestId, (found) => {
    consented = startedAhead(hasConsentedBefore(user.userId, found));
  });
  const [eligible, consentedBefore] = await Promise.all([eligibility, consented ?? false]);
  return {
    id: request.id,
    client_id: request.client_id,
    client_name: request.client_name,
    client_host: redirectHost(request.redirect_uri),
    client_source: request.client_source,
    redirect_uri: request.redirect_uri,
    scopes: request.scopes.map((name) => ({ name, description: SCOPE_DESCRIPTIONS[name] })),
    resource: request.resource,
    expires_at: request.expires_at,
    status: isExpired(request) ? ('expired' as const) : request.status,
    eligible,
    ineligible_reason: eligible ? null : INELIGIBLE_REASON,
    consented_before: consentedBefore,
  };
}

export async function decideConsentRequest(
  user: UserPrincipal,
  requestId: string,
  decision: 'approve' | 'deny',
): Promise<ConsentDecision> {
  // An approval needs the user to hold a business: asked beside the request's read.
  const eligibility = decision === 'approve' ? startedAhead(holdsAnyBusiness(user.userId)) : undefined;
  const request = await readVisibleRequest(user, requestId);
  if (request.status !== 'pending') throw new ConflictError(`This request was already ${request.status}`);
  if (isExpired(request)) throw new GoneError('This request has expired; start again from the assistant');
  // A request nobody has opened yet is claimed by the decision's own write.
  const decided = {
    Update: {
      TableName: tableName,
      Key: keys.oauthConsentRequest(request.id),
      UpdateExpression: 'SET #status = :decided, decided_at = :now, owner_user_id = :user',
      ConditionExpression:
        '#status = :pending AND (attribute_not_exists(owner_user_id) OR owner_user_id = :user)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':decided': decision === 'approve' ? 'approved' : 'denied',
        ':pending': 'pending',
        ':user': user.userId,
        ':now': new Date().toISOString(),
      },
    },
  };

  if (decision === 'deny') {
    await writeDecision(user, requestId, [decided]);
    const back = withParams(request.redirect_uri, {
      error: 'access_denied',
      error_description: 'The user denied the request',
      state: request.state,
    });
    return request.client_source === 'preregistered'
      ? { redirect_to: back, client_link: null }
      : { redirect_to: null, client_link: back };
  }

  if (!(await eligibility)) throw new ForbiddenError(INELIGIBLE_REASON);
  const code = randomBytes(32).toString('base64url');
  const grantId = randomUUID();
  const now = Date.now();
  await writeDecision(user, requestId, [
    decided,
    {
      Put: {
        TableName: tableName,
        Item: {
          ...keys.oauthCode(hashSecret(code)),
          grant_id: grantId,
          client_id: request.client_id,
          client_name: request.client_name,
          client_source: request.client_source,
          redirect_uri: request.redirect_uri,
          code_challenge: request.code_challenge,
          resource: request.resource,
          scopes: request.scopes,
          user_id: user.userId,
          // The account behind the user id, so that each refresh can ask whether it is still active.
          account_issuer: user.issuer,
          account_subject: user.subject,
          expires_at: new Date(now + CODE_SECONDS * 1000).toISOString(),
          // Kept a day so that a second use is recognised as reuse (and revokes what it issued).
          expires_at_epoch: Math.ceil(now / 1000) + 24 * 3600,
        },
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: {
          ...keys.oauthConsent(user.userId, request.client_id),
          scopes: request.scopes,
          approved_at: new Date(now).toISOString(),
        },
      },
    },
    ...personsGrantRecords(user, grantId, code, now),
  ]);
  return { redirect_to: withParams(request.redirect_uri, { code, state: request.state }), client_link: null };
}

const isExpired = (request: ConsentRequestItem) => Date.parse(request.expires_at) <= Date.now();

/**
 * What lets an operator end every grant of a person (user-grants-end.ts), written with the
 * approval: the grant in the user's partition, with its code's key and expiry, since the code may
 * still become the grant; and, when the token names an address, that the address is this user's.
 * Both outlive any grant the approval can start.
 */
function personsGrantRecords(user: UserPrincipal, grantId: string, code: string, now: number) {
  const expiresAtEpoch = Math.ceil(now / 1000) + GRANT_MAX_SECONDS + 24 * 3600;
  return [
    {
      Put: {
        TableName: tableName,
        Item: {
          ...keys.userOAuthGrant(user.userId, grantId),
          grant_id: grantId,
          code_hash: hashSecret(code),
          code_expires_at: new Date(now + CODE_SECONDS * 1000).toISOString(),
          expires_at_epoch: expiresAtEpoch,
        },
      },
    },
    ...(user.email
      ? [
          {
            Put: {
              TableName: tableName,
              Item: {
                ...keys.oauthUserOfEmail(user.email, user.userId),
                user_id: user.userId,
                last_approved_at: new Date(now).toISOString(),
                expires_at_epoch: expiresAtEpoch,
              },
            },
          },
        ]
      : []),
  ];
}

/** The request as this user may see it: theirs or nobody's yet; 404 when another user owns it. */
async function readVisibleRequest(user: UserPrincipal, requestId: string): Promise<ConsentRequestItem> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.oauthConsentRequest(requestId), ConsistentRead: true }),
  );
  if (!Item) throw notFound(requestId);
  const request = consentRequestItem.fromItem(Item);
  if (request.owner_user_id !== undefined && request.owner_user_id !== user.userId) throw notFound(requestId);
  return request;
}

const notFound = (requestId: string) => new NotFoundError(`No consent request ${requestId}`);

/**
 * The request, claimed for this user if nobody owns it yet; 404 when another user owns it.
 * `beside(request)` starts reads that need the request while the claim is written.
 */
async function loadOwnedRequest(
  user: UserPrincipal,
  requestId: string,
  beside: (request: ConsentRequestItem) => void,
): Promise<ConsentRequestItem> {
  const request = await readVisibleRequest(user, requestId);
  beside(request);
  if (request.owner_user_id === user.userId) return request;
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.oauthConsentRequest(requestId),
        UpdateExpression: 'SET owner_user_id = :user',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(owner_user_id) OR owner_user_id = :user)',
        ExpressionAttributeValues: { ':user': user.userId },
      }),
    );
  } catch (error) {
    // Another user claimed it between our read and this write.
    if (error instanceof ConditionalCheckFailedException) throw notFound(requestId);
    throw error;
  }
  return { ...request, owner_user_id: user.userId };
}

/** Owners and editors hold a business; an assistant can only act where its user does. */
async function holdsAnyBusiness(userId: string): Promise<boolean> {
  const memberships = await queryAll({
    TableName: tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :user',
    ExpressionAttributeValues: { ':user': keys.memberByUser(userId, '').gsi1pk },
  });
  return memberships.some((m) => m.role === 'owner' || m.role === 'editor');
}

/** That a user approved a client before, and for which scopes (written by an approval below). */
const consentItem = storedItem<{ scopes: string[]; approved_at: string }>('OAuth consent', () =>
  z.object({ scopes: z.array(z.string()), approved_at: z.string() }),
);

async function hasConsentedBefore(userId: string, request: ConsentRequestItem): Promise<boolean> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.oauthConsent(userId, request.client_id) }),
  );
  if (!Item) return false;
  const approved = new Set(consentItem.fromItem(Item).scopes);
  return request.scopes.every((scope) => approved.has(scope));
}

async function writeDecision(
  user: UserPrincipal,
  requestId: string,
  items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>,
) {
  try {
    await dynamo.send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    // A concurrent decision got there first, or another user opened the request meanwhile (then,
    // to this user, it does not exist).
    await readVisibleRequest(user, requestId);
    throw new ConflictError('This request was already decided');
  }
}
