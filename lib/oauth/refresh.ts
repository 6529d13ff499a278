import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { type AccountStatus, accountStatus } from '#lib/auth/account-status.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { OAuthError } from '#lib/http/errors.ts';
import { startedAhead } from '#lib/http/started-ahead.ts';
import { admitClient } from '#lib/oauth/endpoint-limits.ts';
import { grantEndsAtEpoch } from '#lib/oauth/grant-end.ts';
import { transactOnConditions } from '#lib/oauth/grant-transaction.ts';
import { hashSecret } from '#lib/oauth/hash-secret.ts';
import { revokeGrant } from '#lib/oauth/revocation.ts';
import { securityEvent } from '#lib/oauth/security-events.ts';
import { REFRESH_GRACE_SECONDS, REFRESH_TOKEN_SECONDS } from '#lib/oauth/settings.ts';
import { signingKeyAhead } from '#lib/oauth/signing-key.ts';
import { type RefreshItem, refreshTokenItem } from '#lib/oauth/token-items.ts';
import { assertSameResource, invalidGrant, type TokenRequest } from '#lib/oauth/token-request.ts';
import { newRefreshToken, tokenResponse } from '#lib/oauth/token-response.ts';

/**
 * POST /oauth/token with grant_type=refresh_token (the endpoint: lib/oauth/tokens.ts). A current
 * refresh token moves its grant to the next generation and is replaced; one of the generation just
 * replaced still works for 30 s (two concurrent refreshes both succeed); anything older means a
 * token was copied, and the grant is revoked. No refresh outlives the grant's 90 days, nor the
 * account of the person who approved it: one the user pool reports disabled or deleted ends the
 * grant (lib/auth/account-status.ts).
 */

const nowSeconds = () => Math.floor(Date.now() / 1000);

export async function refreshTokens(request: TokenRequest, admitted: Promise<void>) {
  if (!request.refresh_token) throw new OAuthError('invalid_request', 'Missing refresh_token');
  if (!request.client_id) throw new OAuthError('invalid_request', 'Missing client_id');
  // The signing key does not depend on the token: its reads go out beside the token's.
  const signingKey = signingKeyAhead();
  const [{ Item }] = await Promise.all([
    dynamo.send(
      new GetCommand({
        TableName: tableName,
        Key: keys.oauthRefreshToken(hashSecret(request.refresh_token)),
        ConsistentRead: true,
      }),
    ),
    admitted,
  ]);
  const token = Item && refreshTokenItem.fromItem(Item);
  if (!token || token.expires_at_epoch <= nowSeconds()) throw invalidGrant('The refresh token is not valid');
  if (request.client_id !== token.client_id) {
    throw invalidGrant('The refresh token was issued to another client');
  }
  assertSameResource(request.resource, token.resource);
  const scopes = narrowedScopes(request.scope, token.scopes);

  // The token is the client's: only now does the request count against the client's budget, and
  // only now is the user pool asked whether its person's account is still active. Both go out
  // beside the grant's read; a grant that has ended is refused whatever the pool answers.
  const account = startedAhead(accountStatus(token.account_subject));
  const [grant] = await Promise.all([readGrant(token.grant_id), admitClient('token', token.client_id)]);
  if (!grant || grant.revoked_at) throw invalidGrant('The grant was revoked; sign in again');
  const endsAtEpoch = grantEndsAtEpoch(grant);
  if (endsAtEpoch <= nowSeconds()) {
    throw invalidGrant('The grant ended 90 days after consent; sign in again');
  }
  await endIfAccountInactive(await account, token);

  const next = newRefreshToken();
  const nextItem: RefreshItem = {
    grant_id: token.grant_id,
    generation: token.generation + 1,
    client_id: token.client_id,
    user_id: token.user_id,
    account_subject: token.account_subject,
    resource: token.resource,
    scopes: token.scopes,
    expires_at_epoch: Math.min(nowSeconds() + REFRESH_TOKEN_SECONDS, endsAtEpoch),
  };
  const putNext = {
    Put: { TableName: tableName, Item: { ...keys.oauthRefreshToken(hashSecret(next)), ...nextItem } },
  };
  const now = new Date();
  // The usual case: a current token moves the grant to the next generation.
  const rotated = await transactOnConditions([
    {
      Update: {
        TableName: tableName,
        Key: keys.oauthGrant(token.grant_id),
        UpdateExpression:
          'SET generation = :next, rotated_at = :now, last_used_at = :now, expires_at_epoch = :expires',
        ConditionExpression: 'generation = :current AND attribute_not_exists(revoked_at)',
        ExpressionAttributeValues: {
          ':current': token.generation,
          ':next': token.generation + 1,
          ':now': now.toISOString(),
          ':expires': nextItem.expires_at_epoch,
        },
      },
    },
    putNext,
  ]);
  if (rotated.written) return tokenResponse(nextItem, scopes, next, signingKey);

  // Just replaced by a concurrent refresh: still good for the grace period, joining the new
  // generation. A check, not an update: concurrent checks do not conflict with each other, and
  // the rotation moments ago set last_used_at.
  const graced = await transactOnConditions([
    {
      ConditionCheck: {
        TableName: tableName,
        Key: keys.oauthGrant(token.grant_id),
        ConditionExpression:
          'generation = :next AND rotated_at > :cutoff AND attribute_not_exists(revoked_at)',
        ExpressionAttributeValues: {
          ':next': token.generation + 1,
          ':cutoff': new Date(now.getTime() - REFRESH_GRACE_SECONDS * 1000).toISOString(),
        },
      },
    },
    putNext,
  ]);
  if (graced.written) return tokenResponse(nextItem, scopes, next, signingKey);

  // Neither: revoked meanwhile, or the token was spent before the grace period (copied).
  const current = await readGrant(token.grant_id);
  if (!current || current.revoked_at) throw invalidGrant('The grant was revoked; sign in again');
  await revokeGrant(token.grant_id);
  securityEvent('refresh_token_reused', {
    grant_id: token.grant_id,
    client_id: token.client_id,
    user_id: token.user_id,
  });
  throw invalidGrant('The refresh token was used before; its grant is revoked, sign in again');
}

/**
 * A grant whose person's account was disabled or deleted in the user pool ends here, as when the
 * person or an operator ends it (its access tokens are refused at their next use), and the refresh
 * is refused. Any other status lets the refresh go on.
 */
async function endIfAccountInactive(status: AccountStatus, token: RefreshItem): Promise<void> {
  if (status !== 'disabled' && status !== 'gone') return;
  await revokeGrant(token.grant_id);
  securityEvent(status === 'disabled' ? 'grant_ended_account_disabled' : 'grant_ended_account_deleted', {
    grant_id: token.grant_id,
    client_id: token.client_id,
    user_id: token.user_id,
  });
  throw invalidGrant('The account that approved this grant is no longer active; the grant has ended');
}

async function readGrant(grantId: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.oauthGrant(grantId), ConsistentRead: true }),
  );
  return Item;
}

/** A refresh may ask for fewer scopes (for that access token), never more. */
function narrowedScopes(requested: string | undefined, granted: string[]): string[] {
  if (!requested) return granted;
  const asked = [...new Set(requested.split(/\s+/).filter(Boolean))];
  const extra = asked.filter((scope) => !granted.includes(scope));
  if (extra.length > 0) throw new OAuthError('invalid_scope', `Not granted: ${extra.join(' ')}`);
  return asked;
}
