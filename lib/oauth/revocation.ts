/**
 * OAuth revocation (RFC 7009), apart from issuing (tokens.ts): the revocation endpoint's function
 * then bundles neither the signing key nor a Secrets Manager client, which its grants do not allow.
 *
 * A refresh token or an access token of ours ends its whole grant. The token must have been issued
 * to the client_id sent with it (RFC 7009 §2.1): a token of another client is refused with 400
 * invalid_grant (RFC 6749 §5.2: "issued to another client") and nothing is revoked. A token we do
 * not know, or cannot verify, is a 200 that changes nothing (RFC 7009 §2.2). `token_type_hint`
 * only orders the lookups; a wrong hint still finds the token (RFC 7009 §2.1).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createLocalJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { OAuthError } from '#lib/http/errors.ts';
import { admitClient } from '#lib/oauth/endpoint-limits.ts';
import { hashSecret } from '#lib/oauth/hash-secret.ts';
import { CLOCK_TOLERANCE_SECONDS, liveKeys } from '#lib/oauth/key-schedule.ts';
import { readPublishedKeys } from '#lib/oauth/published-keys.ts';
import { securityEvent } from '#lib/oauth/security-events.ts';
import { issuer, resources } from '#lib/oauth/settings.ts';

export interface RevocationRequest {
  token: string;
  token_type_hint?: string | undefined;
  client_id: string;
}

/** Whose grant a token names. */
interface TokenOwner {
  grant_id: string;
  client_id: string;
  user_id: string;
}

export async function revokeToken(request: RevocationRequest): Promise<void> {
  const lookups =
    request.token_type_hint === 'access_token'
      ? [accessTokenOwner, refreshTokenOwner]
      : [refreshTokenOwner, accessTokenOwner];
  let owner: TokenOwner | undefined;
  for (const lookup of lookups) {
    owner = await lookup(request.token);
    if (owner) break;
  }
  if (!owner) return;
  if (owner.client_id !== request.client_id) {
    throw new OAuthError('invalid_grant', 'The token was issued to another client; nothing was revoked');
  }
  await admitClient('revoke', owner.client_id);
  await revokeGrant(owner.grant_id);
  securityEvent('grant_revoked_by_client', owner);
}

async function refreshTokenOwner(token: string): Promise<TokenOwner | undefined> {
  // Consistent: a token issued a moment ago (a rotation) must be found, or its revocation is lost.
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.oauthRefreshToken(hashSecret(token)),
      ConsistentRead: true,
    }),
  );
  if (!Item) return undefined;
  return {
    grant_id: String(Item.grant_id),
    client_id: String(Item.client_id),
    user_id: String(Item.user_id),
  };
}

/**
 * The grant of an access token we signed: signature by one of the published keys (read from the
 * table, as the resource servers do), our issuer, one of our resources as audience. An expired
 * token is still genuine, and its grant may live on through refresh tokens: it may be revoked.
 */
async function accessTokenOwner(token: string): Promise<TokenOwner | undefined> {
  if (token.split('.').length !== 3) return undefined;
  const published = await readPublishedKeys();
  const jwks = createLocalJWKSet({
    keys: liveKeys(published?.keys ?? [], Date.now()).map((key) => key.jwk),
  });
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, jwks, {
      issuer: issuer(),
      audience: Object.values(resources()),
      algorithms: ['ES256'],
      typ: 'at+jwt',
      requiredClaims: ['sub', 'exp', 'client_id', 'gid'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    }));
  } catch (error) {
    // jose checks the signature, issuer and audience before the expiry.
    if (error instanceof errors.JWTExpired) payload = error.payload;
    else if (error instanceof errors.JOSEError) return undefined;
    else throw error;
  }
  return {
    grant_id: String(payload.gid),
    client_id: String(payload.client_id),
    user_id: String(payload.sub),
  };
}

/**
 * End a grant: its access tokens are refused at the next check, its refresh tokens at the next
 * refresh. A grant that is gone already (expired and removed) stays gone.
 */
export async function revokeGrant(grantId: string): Promise<void> {
  try {
    await dynamo.send(new UpdateCommand(revocation(grantId)));
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/**
 * End a grant of this user's, in one write: what it held before (whether it was still standing,
 * and its client), or undefined when there is no such grant of theirs.
 */
export async function revokeUsersGrant(
  grantId: string,
  userId: string,
): Promise<{ wasStanding: boolean; clientId: string } | undefined> {
  const base = revocation(grantId);
  try {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        ...base,
        ConditionExpression: `${base.ConditionExpression} AND user_id = :user`,
        ExpressionAttributeValues: { ...base.ExpressionAttributeValues, ':user': userId },
        ReturnValues: 'ALL_OLD',
      }),
    );
    return { wasStanding: Attributes?.revoked_at === undefined, clientId: String(Attributes?.client_id) };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/** A grant's revocation: the first time stays (a second revoke changes nothing); never recreated. */
function revocation(grantId: string) {
  return {
    TableName: tableName,
    Key: keys.oauthGrant(grantId),
    UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':now': new Date().toISOString() } as Record<string, string>,
  };
}
