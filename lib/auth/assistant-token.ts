import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt, decodeProtectedHeader, errors, type JWTPayload, jwtVerify } from 'jose';
import { type AssistantPrincipal, type Authenticator, bearerToken } from '#lib/auth/principal.ts';
import { PublishedKeySet } from '#lib/auth/published-key-set.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { type ItemKey, keys } from '#lib/db/keys.ts';
import { HttpError, ServiceUnavailableError, UnauthorizedError } from '#lib/http/errors.ts';
import { grantEndsAtEpoch } from '#lib/oauth/grant-end.ts';
import { CLOCK_TOLERANCE_SECONDS } from '#lib/oauth/key-schedule.ts';
import { parsePublishedKeys, publishedKeysKey } from '#lib/oauth/published-keys.ts';
import { issuer, resourceChallenge, resources } from '#lib/oauth/settings.ts';
import { logger } from '#lib/observability/logger.ts';

/**
 * Access tokens of our own authorization server: ES256 JWTs for exactly one resource
 * (`aud`), naming a grant that must be neither revoked nor past its 90-day end. The grant is read
 * every time, with a strongly consistent read, so a revoked grant stops at once, like a revoked
 * agent key: an eventually consistent read could still see it live for a moment after revocation.
 *
 * The keys come from the published-keys item in the table (lib/oauth/published-keys.ts), never
 * over the public JWKS route, and are kept per container (lib/auth/published-key-set.ts). When
 * the copy is fresh and knows the token's kid, the signature is checked first and the grant read
 * alone; otherwise one BatchGetItem reads the grant and the item together, so the keys never cost
 * a round trip of their own. Keys that cannot be loaded are a 503, never a 401.
 */
const keySet = new PublishedKeySet();

/** Grant ids are UUIDs; anything else in `gid` cannot be a token we signed. */
const GRANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const sameKey = (item: { pk?: unknown; sk?: unknown }, key: ItemKey) =>
  item.pk === key.pk && item.sk === key.sk;

/** The grant and the published-keys item in one call; whether the keys were read and usable. */
async function readGrantAndKeys(grantKey: ItemKey, now: number) {
  const keysKey = publishedKeysKey();
  const result = await dynamo.send(
    new BatchGetCommand({
      RequestItems: { [tableName]: { Keys: [grantKey, keysKey], ConsistentRead: true } },
    }),
  );
  const items = result.Responses?.[tableName] ?? [];
  const unprocessed = (result.UnprocessedKeys?.[tableName]?.Keys ?? []) as ItemKey[];
  let keysRead = false;
  if (!unprocessed.some((key) => sameKey(key, keysKey))) {
    try {
      const published = parsePublishedKeys(items.find((item) => sameKey(item, keysKey)));
      if (published) {
        keySet.accept(published.keys, now);
        keysRead = true;
      } else logger.error('No published-keys item: access tokens cannot be verified');
    } catch (error) {
      logger.error('The published-keys item could not be read; keeping the last good keys', { error });
    }
  }
  // DynamoDB hands back keys it could not read under load: the grant is needed, so ask again.
  const grant = unprocessed.some((key) => sameKey(key, grantKey))
    ? await readGrant(grantKey)
    : items.find((item) => sameKey(item, grantKey));
  return { grant, keysRead };
}

async function readGrant(grantKey: ItemKey) {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: grantKey, ConsistentRead: true }),
  );
  return Item;
}

export async function verifyAssistantToken(
  token: string,
  resource: string,
  challenge: string,
): Promise<AssistantPrincipal> {
  const invalid = (message: string) => new UnauthorizedError(message, `${challenge}, error="invalid_token"`);
  let kid: string | undefined;
  let grantId: string;
  try {
    kid = decodeProtectedHeader(token).kid;
    grantId = String(decodeJwt(token).gid);
  } catch {
    throw invalid('The access token is not valid');
  }
  if (!GRANT_ID.test(grantId)) throw invalid('The access token is not valid');

  const now = Date.now();
  const grantKey = keys.oauthGrant(grantId);
  let grant: Record<string, unknown> | undefined;
  let grantRead = false;
  if (keySet.shouldRead(kid, now)) {
    const read = await readGrantAndKeys(grantKey, now);
    grant = read.grant;
    grantRead = true;
    if (!read.keysRead && !keySet.has(kid, now)) {
      throw new ServiceUnavailableError('The token keys could not be loaded; retry shortly', 'token_keys');
    }
  }

  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keySet.getKey(now), {
      issuer: issuer(),
      audience: resource,
      algorithms: ['ES256'],
      typ: 'at+jwt',
      requiredClaims: ['sub', 'exp', 'client_id', 'scope', 'gid'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    }));
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw invalid('The access token has expired');
    if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'aud') {
      throw invalid('The access token was issued for another resource');
    }
    if (error instanceof errors.JOSEError) throw invalid('The access token is not valid');
    throw error;
  }
  if (!grantRead) grant = await readGrant(grantKey);
  if (!grant || grant.revoked_at) throw invalid('The access was revoked; sign in again');
  if (grantEndsAtEpoch(grant) * 1000 <= Date.now()) {
    throw invalid('The access has ended; sign in again');
  }
  return {
    kind: 'assistant',
    userId: String(payload.sub),
    clientId: String(payload.client_id),
    scopes: String(payload.scope).split(' ').filter(Boolean),
    grantId,
  };
}

/** 403 insufficient_scope (RFC 6750 §3.1) naming the scope the operation needs. */
export function assertScope(
  principal: AssistantPrincipal,
  scope: string | undefined,
  challenge: string,
): void {
  assertScopes(principal, scope === undefined ? [] : [scope], challenge);
}

/**
 * 403 insufficient_scope when the token lacks any of `scopes`, naming all of them in one
 * challenge: a client that asks again for what one challenge named is then sure to get through,
 * rather than meeting a second challenge for the next scope (MCP authorization: scope challenges).
 */
export function assertScopes(
  principal: AssistantPrincipal,
  scopes: readonly string[],
  challenge: string,
): void {
  const needed = [...new Set(scopes)];
  if (needed.every((scope) => principal.scopes.includes(scope))) return;
  const named = needed.join(' ');
  throw new HttpError(403, 'FORBIDDEN', `This operation needs the ${named} scope`, undefined, {
    'www-authenticate': `${challenge.replace(/, scope="[^"]*"/, '')}, error="insufficient_scope", scope="${named}"`,
  });
}

/**
 * The tool server's credential: an assistant's access token for `<issuer>/mcp`
 * (docs/tool-server.md).
 */
export const mcpAuth: Authenticator<AssistantPrincipal> = {
  kind: 'mcp',
  prepare() {
    issuer();
  },
  async authenticate(headers) {
    const resource = resources().mcp;
    const challenge = resourceChallenge(resource);
    const token = bearerToken(headers);
    if (!token) throw new UnauthorizedError('Send a bearer token in the authorization header', challenge);
    return verifyAssistantToken(token, resource, challenge);
  },
};
