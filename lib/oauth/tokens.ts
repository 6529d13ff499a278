import { createHash, timingSafeEqual } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { OAuthError } from '#lib/http/errors.ts';
import { transactOnConditions } from '#lib/oauth/grant-transaction.ts';
import { hashSecret } from '#lib/oauth/hash-secret.ts';
import { refreshTokens } from '#lib/oauth/refresh.ts';
import { revokeGrant } from '#lib/oauth/revocation.ts';
import { securityEvent } from '#lib/oauth/security-events.ts';
import { accessTokenSeconds, GRANT_MAX_SECONDS, REFRESH_TOKEN_SECONDS } from '#lib/oauth/settings.ts';
import { signingKeyAhead } from '#lib/oauth/signing-key.ts';
import { authorizationCodeItem, type CodeItem, type RefreshItem } from '#lib/oauth/token-items.ts';
import { assertSameResource, invalidGrant, type TokenRequest } from '#lib/oauth/token-request.ts';
import { newRefreshToken, tokenResponse } from '#lib/oauth/token-response.ts';

/**
 * POST /oauth/token.
 *
 * A consent approval leaves a code; exchanging it starts a grant (client, user, resource, scopes).
 * Only a grant that includes `offline_access` gets refresh tokens; without it the grant is a
 * session that ends when its one access token expires. Refresh tokens are opaque, stored as
 * SHA-256 hashes, and rotated (lib/oauth/refresh.ts). A grant ends 90 days after consent however
 * often it is refreshed, and no refresh token outlives it. Access tokens are 15-minute JWTs naming
 * their grant (`gid`), so revoking a grant stops them too. Public clients send their client_id with
 * every request (RFC 6749 §3.2.1): a token or code presented by another client is refused without
 * touching the grant.
 */

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * `admitted` is the caller's source count (lib/oauth/endpoint-limits.ts), started before this runs:
 * it goes out beside the first read and is awaited before anything is written.
 */
export async function issueTokens(request: TokenRequest, admitted: Promise<void> = Promise.resolve()) {
  if (request.grant_type === 'authorization_code') return exchangeCode(request, admitted);
  if (request.grant_type === 'refresh_token') return refreshTokens(request, admitted);
  throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
}

async function exchangeCode(request: TokenRequest, admitted: Promise<void>) {
  const { code, redirect_uri: redirectUri, code_verifier: verifier, client_id: clientId } = request;
  const missing = Object.entries({
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    client_id: clientId,
  })
    .filter(([, value]) => !value)
    .map(([name]) => name);
  if (missing.length > 0) throw new OAuthError('invalid_request', `Missing ${missing.join(', ')}`);
  const codeKey = keys.oauthCode(hashSecret(code as string));
  // The signing key does not depend on the code: its reads go out beside the code's.
  const signingKey = signingKeyAhead();
  const [{ Item }] = await Promise.all([
    dynamo.send(new GetCommand({ TableName: tableName, Key: codeKey, ConsistentRead: true })),
    admitted,
  ]);
  if (!Item) throw invalidGrant('The code is not valid');
  const stored = authorizationCodeItem.fromItem(Item);
  if (stored.used_at) {
    // A spent code may sit in a log or a referrer: only its own client, proving it with the
    // redirect URI and the PKCE verifier, can show that someone else redeemed it first.
    const fromItsClient =
      stored.client_id === clientId &&
      stored.redirect_uri === redirectUri &&
      pkceMatches(verifier as string, stored.code_challenge);
    if (fromItsClient) await codeReused(stored);
    throw invalidGrant('The code was already used');
  }
  if (Date.parse(stored.expires_at) <= Date.now()) throw invalidGrant('The code has expired');
  if (stored.client_id !== clientId) throw invalidGrant('The code was issued to another client');
  if (stored.redirect_uri !== redirectUri)
    throw invalidGrant('redirect_uri differs from the authorization request');
  if (!pkceMatches(verifier as string, stored.code_challenge))
    throw invalidGrant('code_verifier does not match');
  assertSameResource(request.resource, stored.resource);

  const createdAt = new Date().toISOString();
  const { refreshToken, endsAtEpoch, refreshItem } = grantLife(stored);
  const exchanged = await transactOnConditions([
    {
      Update: {
        TableName: tableName,
        Key: codeKey,
        UpdateExpression: 'SET used_at = :now',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(used_at)',
        ExpressionAttributeValues: { ':now': new Date().toISOString() },
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: {
          ...keys.oauthGrant(stored.grant_id),
          ...keys.oauthGrantOfUser(stored.user_id, createdAt, stored.grant_id),
          grant_id: stored.grant_id,
          client_id: stored.client_id,
          client_name: stored.client_name,
          client_source: stored.client_source,
          user_id: stored.user_id,
          account_issuer: stored.account_issuer,
          account_subject: stored.account_subject,
          resource: stored.resource,
          scopes: stored.scopes,
          generation: 1,
          rotated_at: createdAt,
          created_at: createdAt,
          last_used_at: createdAt,
          ends_at_epoch: endsAtEpoch,
          expires_at_epoch: refreshItem.expires_at_epoch,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    clientStillAllowed(stored),
    {
      Put: {
        TableName: tableName,
        Item: {
          ...keys.oauthClientGrant(stored.client_id, stored.grant_id),
          grant_id: stored.grant_id,
          expires_at_epoch: endsAtEpoch,
        },
      },
    },
    ...(refreshToken === undefined
      ? []
      : [
          {
            Put: {
              TableName: tableName,
              Item: { ...keys.oauthRefreshToken(hashSecret(refreshToken)), ...refreshItem },
            },
          },
        ]),
  ]);
  if (!exchanged.written) {
    // The code was marked used (or its grant created) by a concurrent exchange that also held
    // the verifier: a second use.
    if (exchanged.failed.some((index) => index !== CLIENT_CHECK)) await codeReused(stored);
    throw invalidGrant('The client was revoked or blocked');
  }
  securityEvent('grant_issued', {
    grant_id: stored.grant_id,
    client_id: stored.client_id,
    user_id: stored.user_id,
  });
  return tokenResponse(refreshItem, refreshItem.scopes, refreshToken, signingKey);
}

/** A spent code presented again by its own client: someone redeemed it, so its grant ends. */
async function codeReused(code: CodeItem): Promise<never> {
  await revokeGrant(code.grant_id);
  securityEvent('code_reused', { grant_id: code.grant_id, client_id: code.client_id, user_id: code.user_id });
  throw invalidGrant('The code was already used; everything issued with it is revoked');
}

/** The position of clientStillAllowed in the exchange's transaction. */
const CLIENT_CHECK = 2;

/**
 * What a code's grant is given (docs/oauth.md, 'Grants and tokens'). With `offline_access`
 * granted: a first refresh token, a grant that lives 30 days from its last refresh and at most 90
 * from consent. Without it: no refresh token, and a grant that ends when its one access token
 * expires, so it leaves the person's connected assistants then and nothing can renew it.
 * `refreshItem` carries what the token response is signed from either way; its expiry is the
 * grant item's.
 */
function grantLife(code: CodeItem): {
  refreshToken: string | undefined;
  endsAtEpoch: number;
  refreshItem: RefreshItem;
} {
  const now = nowSeconds();
  const offline = code.scopes.includes('offline_access');
  const endsAtEpoch = offline ? now + GRANT_MAX_SECONDS : now + accessTokenSeconds();
  return {
    refreshToken: offline ? newRefreshToken() : undefined,
    endsAtEpoch,
    refreshItem: {
      grant_id: code.grant_id,
      generation: 1,
      client_id: code.client_id,
      user_id: code.user_id,
      account_subject: code.account_subject,
      resource: code.resource,
      scopes: code.scopes,
      expires_at_epoch: offline ? now + REFRESH_TOKEN_SECONDS : endsAtEpoch,
    },
  };
}

/**
 * The exchange's guard against a client revoked or blocked meanwhile: revoking a client marks it
 * first and then ends the grants it finds, so a grant is either found or never created. A
 * registered client's first grant also keeps it: the 24-hour expiry of an unused registration is
 * removed, unless it has already passed.
 */
function clientStillAllowed(code: CodeItem) {
  if (code.client_source === 'metadata_document') {
    return {
      ConditionCheck: {
        TableName: tableName,
        Key: keys.oauthClientBlock(code.client_id),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  }
  return {
    Update: {
      TableName: tableName,
      Key: keys.oauthClient(code.client_id),
      UpdateExpression: 'REMOVE expires_at_epoch',
      // An unused registration that expired during the consent is gone, whether or not the TTL
      // has deleted it yet: its code must not bring it back.
      ConditionExpression:
        'attribute_exists(pk) AND attribute_not_exists(revoked_at) AND (attribute_not_exists(expires_at_epoch) OR expires_at_epoch > :now)',
      ExpressionAttributeValues: { ':now': nowSeconds() },
    },
  };
}

/** PKCE S256 (RFC 7636 §4.6), compared in constant time. */
function pkceMatches(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
