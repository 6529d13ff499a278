import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { queryAll } from '#lib/db/query-all.ts';
import { storedItem } from '#lib/db/stored-item.ts';
import { NotFoundError, OAuthError } from '#lib/http/errors.ts';
import { isClientBlocked } from '#lib/oauth/client-blocks.ts';
import { fetchClientMetadataDocument, isClientMetadataUrl } from '#lib/oauth/client-metadata-document.ts';
import { clientNameProblem } from '#lib/oauth/client-name.ts';
import { registeredScopes } from '#lib/oauth/client-scopes.ts';
import { redirectUriProblem } from '#lib/oauth/redirect-uris.ts';
import { admitInWindow } from '#lib/rate/fixed-window.ts';
import { sourceKey } from '#lib/rate/source-key.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * OAuth clients (docs/oauth.md, 'Clients'). A client is either an https URL whose Client ID
 * Metadata Document describes it (fetched when needed, see client-metadata-document.ts), or a
 * public client that registered itself (RFC 7591) or was registered with the oauth-client CLI.
 */
export interface OAuthClient {
  client_id: string;
  client_name?: string | undefined;
  redirect_uris: string[];
  source: 'registration' | 'cli' | 'metadata_document';
  /** The scopes it registered, space-separated; absent: any scope the server supports. */
  scope?: string | undefined;
}

interface StoredClient extends OAuthClient {
  created_at: string;
  revoked_at?: string;
  scope: string;
  /** Dynamic registrations only: when an unused one expires (TTL; removed by its first grant). */
  expires_at_epoch?: number;
}

/** A registered client's item (a cached metadata document is another kind, client-metadata-document.ts). */
const clientItem = storedItem<StoredClient>('OAuth client', () =>
  z.object({
    client_id: z.string(),
    client_name: z.optional(z.string()),
    redirect_uris: z.array(z.string()),
    source: z.enum(['registration', 'cli']),
    scope: z.string(),
    created_at: z.string(),
    revoked_at: z.optional(z.string()),
    expires_at_epoch: z.optional(z.number()),
  }),
);

/**
 * Registrations one source address may make per minute: far above a client that registers on every
 * connect.
 */
export const REGISTRATIONS_PER_MINUTE = 60;
const REGISTRATION_LIMIT = { name: 'registration', limit: REGISTRATIONS_PER_MINUTE, windowSeconds: 60 };

/**
 * How long a dynamic registration lives if it never completes a grant: anyone may register, so
 * the ones nobody uses must not pile up. The code exchange removes the expiry.
 */
export const UNUSED_REGISTRATION_SECONDS = 24 * 60 * 60;

/** A registration past its expiry is gone, even before DynamoDB's TTL (which runs late) deletes it. */
const isExpired = (item: Record<string, unknown>) =>
  typeof item.expires_at_epoch === 'number' && item.expires_at_epoch * 1000 <= Date.now();

/**
 * The client behind a client_id, or undefined when there is none, it was revoked, or its URL is
 * blocked (a blocked URL is never fetched). `sourceIp` is the caller's, whose document fetches are
 * limited (client-metadata-document.ts: a refused fetch is a RateLimitedError).
 */
export async function resolveClient(clientId: string, sourceIp: string): Promise<OAuthClient | undefined> {
  if (isClientMetadataUrl(clientId)) {
    if (await isClientBlocked(clientId)) return undefined;
    return fetchClientMetadataDocument(clientId, sourceIp);
  }
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.oauthClient(clientId) }),
  );
  if (!Item || Item.revoked_at || Item.source === 'metadata_document' || isExpired(Item)) return undefined;
  return clientItem.fromItem(Item);
}

export interface ClientInput {
  redirect_uris: string[];
  client_name?: string | undefined;
  scope?: string | undefined;
}

/** Dynamic client registration (RFC 7591), rate-limited per source (an IPv6 source by its /64). */
export async function registerClient(input: ClientInput, sourceIp: string) {
  await admitInWindow(
    REGISTRATION_LIMIT,
    sourceKey(sourceIp),
    'Too many client registrations from this address; retry shortly',
  );
  return createClient(input, 'registration');
}

/**
 * Register a public client; redirect URIs, name and scopes are checked against the rules of
 * redirect-uris.ts, client-name.ts and client-scopes.ts.
 */
export async function createClient(input: ClientInput, source: 'registration' | 'cli') {
  for (const uri of input.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', problem);
  }
  const nameProblem = input.client_name === undefined ? undefined : clientNameProblem(input.client_name);
  if (nameProblem) throw new OAuthError('invalid_client_metadata', nameProblem);
  const scopes = registeredScopes(input.scope);
  if (!Array.isArray(scopes)) {
    throw new OAuthError('invalid_client_metadata', `Unsupported scope: ${scopes.unknown}`);
  }
  const createdAt = new Date();
  const client: StoredClient = {
    client_id: randomUUID(),
    client_name: input.client_name,
    redirect_uris: [...new Set(input.redirect_uris)],
    source,
    scope: scopes.join(' '),
    created_at: createdAt.toISOString(),
    ...(source === 'registration'
      ? { expires_at_epoch: Math.floor(createdAt.getTime() / 1000) + UNUSED_REGISTRATION_SECONDS }
      : {}),
  };
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.oauthClient(client.client_id),
        ...keys.oauthClientListing(client.created_at, client.client_id),
        ...client,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return {
    client_id: client.client_id,
    client_id_issued_at: Math.floor(createdAt.getTime() / 1000),
    ...(client.client_name === undefined ? {} : { client_name: client.client_name }),
    redirect_uris: client.redirect_uris,
    token_endpoint_auth_method: 'none' as const,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    scope: client.scope,
  };
}

/** Every registered client, oldest first (the CLI's list). */
export async function listClients(): Promise<StoredClient[]> {
  const items = await queryAll({
    TableName: tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.oauthClientListing('', '').gsi1pk },
  });
  return items.map((item) => clientItem.fromItem(item));
}

/** Revoke a registered client: /oauth/authorize refuses it from now on. */
export async function revokeClient(clientId: string): Promise<StoredClient> {
  try {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.oauthClient(clientId),
        UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)',
        ConditionExpression: 'attribute_exists(pk) AND #source <> :document',
        ExpressionAttributeNames: { '#source': 'source' },
        ExpressionAttributeValues: { ':now': new Date().toISOString(), ':document': 'metadata_document' },
        ReturnValues: 'ALL_NEW',
      }),
    );
    // ALL_NEW always returns the item the condition found.
    return clientItem.fromItem(Attributes ?? {});
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw new NotFoundError(`No client ${clientId}`);
    throw error;
  }
}
