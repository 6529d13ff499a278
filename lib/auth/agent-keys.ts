import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  type AgentPrincipal,
  type AgentScope,
  type Authenticator,
  bearerToken,
} from '#lib/auth/principal.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { byCodeUnits } from '#lib/db/code-unit-order.ts';
import { readerFor } from '#lib/db/item-reader.ts';
import { keys } from '#lib/db/keys.ts';
import { queryAll } from '#lib/db/query-all.ts';
import { storedItem } from '#lib/db/stored-item.ts';
import { readBesideCredential } from '#lib/http/early-read.ts';
import { ForbiddenError, UnauthorizedError } from '#lib/http/errors.ts';
import * as z from '#lib/validation/zod.ts';

const KEY_PREFIX = 'agk_';
const CHALLENGE = 'Bearer realm="business-platform-agents"';

/** What is stored about a key. The key itself is never stored, only its SHA-256. */
export interface AgentKeyRecord {
  key_id: string;
  name: string;
  businesses: '*' | string[];
  scopes: AgentScope[];
  created_at: string;
  revoked_at?: string;
}

export const agentKeyItem = storedItem<AgentKeyRecord>('agent key', () =>
  z.object({
    key_id: z.string(),
    name: z.string(),
    businesses: z.union([z.literal('*'), z.array(z.string())]),
    scopes: z.array(z.enum(['read', 'write'])),
    created_at: z.string(),
    revoked_at: z.optional(z.string()),
  }),
);

export const hashAgentKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/** Create a key; the returned `key` is shown once and cannot be recovered later. */
export async function createAgentKey(input: {
  name: string;
  businesses: '*' | string[];
  scopes: AgentScope[];
}): Promise<{ key: string; record: AgentKeyRecord }> {
  const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const record: AgentKeyRecord = {
    key_id: randomUUID(),
    name: input.name,
    // Business ids are UUIDs: case-insensitive, kept in lower case like every id the API sees.
    businesses: input.businesses === '*' ? '*' : input.businesses.map((id) => id.toLowerCase()),
    scopes: input.scopes,
    created_at: new Date().toISOString(),
  };
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...keys.agentKey(hashAgentKey(key)), ...keys.agentKeyById(record.key_id), ...record },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return { key, record };
}

/** A key's stored item found by its public id (gsi1), revoked or not; undefined when there is none. */
export async function findAgentKeyItem(keyId: string): Promise<Record<string, unknown> | undefined> {
  const { gsi1pk, gsi1sk } = keys.agentKeyById(keyId);
  const found = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
      ExpressionAttributeValues: { ':pk': gsi1pk, ':sk': gsi1sk },
    }),
  );
  return found.Items?.[0];
}

export async function listAgentKeys(): Promise<AgentKeyRecord[]> {
  const items = await queryAll({
    TableName: tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.agentKeyById('').gsi1pk },
  });
  return items
    .map((item) => agentKeyItem.fromItem(item))
    .sort((a, b) => byCodeUnits(a.created_at, b.created_at));
}

/** The agent key the request carries, if it carries one (checked against nothing yet). */
function presentedKey(headers: Record<string, string | undefined>): string | undefined {
  const key = bearerToken(headers);
  return key?.startsWith(KEY_PREFIX) ? key : undefined;
}

/**
 * An agent handler's `earlyRead`: the operation's read, sent beside the key's lookup so the two
 * cost one round trip, for a request that carries something shaped like an agent key.
 */
export const besideAgentKey = readBesideCredential((headers) => presentedKey(headers) !== undefined);

/** Automated agents: `authorization: Bearer agk_…`. */
export const agentAuth: Authenticator<AgentPrincipal> = {
  kind: 'agent',
  prepare() {},
  async authenticate(headers, request) {
    const key = presentedKey(headers);
    if (!key) {
      throw new UnauthorizedError('Send an agent key (agk_…) as a bearer token', CHALLENGE);
    }
    // Through the request's reader, the lookup shares a call with the operation's early read.
    // Consistent, so that a key revoked a moment ago is refused at once.
    const Item = await readerFor(request?.shared).get(keys.agentKey(hashAgentKey(key)), { consistent: true });
    if (!Item || Item.revoked_at) {
      throw new UnauthorizedError('The agent key is not valid', `${CHALLENGE}, error="invalid_token"`);
    }
    const record = agentKeyItem.fromItem(Item);
    return {
      kind: 'agent',
      keyId: record.key_id,
      name: record.name,
      businesses: record.businesses,
      scopes: record.scopes,
    };
  },
};

/** An agent may use a business only if its key names it (or '*') and carries the scope. */
export function assertAgentMayAccess(agent: AgentPrincipal, businessId: string, scope: AgentScope): void {
  if (
    agent.businesses !== '*' &&
    !agent.businesses.some((id) => id.toLowerCase() === businessId.toLowerCase())
  ) {
    throw new ForbiddenError('This agent key is not allowed to access this business');
  }
  if (!agent.scopes.includes(scope)) {
    throw new ForbiddenError(`This agent key lacks the '${scope}' scope`);
  }
}
