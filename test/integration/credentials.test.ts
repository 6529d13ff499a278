import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  agentAuth,
  assertAgentMayAccess,
  createAgentKey,
  hashAgentKey,
  listAgentKeys,
} from '#lib/auth/agent-keys.ts';
import { internalAuth } from '#lib/auth/internal-api-key.ts';
import { revokeAgentKey } from '#lib/auth/revoke-agent-key.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { ForbiddenError, UnauthorizedError } from '#lib/http/errors.ts';

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('agent keys (against DynamoDB Local)', () => {
  it('stores only the hash of a key and authenticates with the key', async () => {
    const businessId = randomUUID();
    const { key, record } = await createAgentKey({
      name: 'writer',
      businesses: [businessId],
      scopes: ['read', 'write'],
    });

    const stored = await dynamo.send(
      new GetCommand({ TableName: tableName, Key: keys.agentKey(hashAgentKey(key)) }),
    );
    expect(stored.Item?.key_id).toBe(record.key_id);
    expect(JSON.stringify(stored.Item)).not.toContain(key);

    const principal = await agentAuth.authenticate(bearer(key));
    expect(principal).toEqual({
      kind: 'agent',
      keyId: record.key_id,
      name: 'writer',
      businesses: [businessId],
      scopes: ['read', 'write'],
    });
  });

  it('rejects unknown, malformed and revoked keys with 401', async () => {
    const { key, record } = await createAgentKey({ name: 'short-lived', businesses: '*', scopes: ['read'] });
    await revokeAgentKey(record.key_id);

    for (const headers of [{}, bearer('agk_unknown'), bearer('not-an-agent-key'), bearer(key)]) {
      await expect(agentAuth.authenticate(headers)).rejects.toBeInstanceOf(UnauthorizedError);
    }
    const listed = (await listAgentKeys()).find((k) => k.key_id === record.key_id);
    expect(listed?.revoked_at).toBeDefined();
  });

  it('limits a key to its businesses and scopes', async () => {
    const mine = randomUUID();
    const { key } = await createAgentKey({ name: 'reader', businesses: [mine], scopes: ['read'] });
    const agent = await agentAuth.authenticate(bearer(key));

    expect(() => assertAgentMayAccess(agent, mine, 'read')).not.toThrow();
    expect(() => assertAgentMayAccess(agent, mine, 'write')).toThrow(ForbiddenError);
    expect(() => assertAgentMayAccess(agent, randomUUID(), 'read')).toThrow(ForbiddenError);
  });

  it('lists keys by their public id through gsi1, never exposing hashes', async () => {
    const { record } = await createAgentKey({ name: 'listed', businesses: '*', scopes: ['read'] });
    const page = await dynamo.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
        ExpressionAttributeValues: {
          ':pk': keys.agentKeyById(record.key_id).gsi1pk,
          ':sk': keys.agentKeyById(record.key_id).gsi1sk,
        },
      }),
    );

    expect(page.Items).toHaveLength(1);
    const listed = (await listAgentKeys()).find((k) => k.key_id === record.key_id);
    expect(listed).toEqual(record);
  });
});

describe('internal API key', () => {
  it('accepts the configured keys (current and previous) and rejects others with 401', async () => {
    internalAuth.prepare();
    const configured = (process.env.INTERNAL_API_KEYS ?? '').split(',');
    const valid = configured[0] ?? '';

    expect(configured).toHaveLength(2);
    for (const key of configured) {
      await expect(internalAuth.authenticate({ 'x-internal-api-key': key })).resolves.toEqual({
        kind: 'internal-service',
      });
    }
    for (const headers of [
      {},
      { 'x-internal-api-key': `${valid}x` },
      { 'x-internal-api-key': '' },
      { 'x-internal-api-key': configured.join(',') },
    ]) {
      await expect(internalAuth.authenticate(headers)).rejects.toBeInstanceOf(UnauthorizedError);
    }
  });
});
