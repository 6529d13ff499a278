import { randomUUID } from 'node:crypto';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import { createBusiness } from '#lib/businesses/business-store.ts';
import { tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { queryAll } from '#lib/db/query-all.ts';
import type { EntityName } from '#lib/records/entities.ts';
import { agentEntities, entities } from '#lib/records/entities.ts';
import { type ApiRequest, api } from './api.ts';

export interface AgentTenant {
  businessId: string;
  /** read + write, this business only */
  key: string;
  readOnlyKey: string;
  /** A second business of another tenant, with its own read + write key. */
  other: { businessId: string; key: string };
}

async function businessWithKey(): Promise<{ businessId: string; key: string }> {
  const business = await createBusiness({
    name: `Agent test ${randomUUID().slice(0, 8)}`,
    createdBy: { type: 'user', id: randomUUID() },
  });
  const { key } = await createAgentKey({
    name: 'test-agent',
    businesses: [business.id],
    scopes: ['read', 'write'],
  });
  return { businessId: business.id, key };
}

/** A fresh business with agent keys, and a neighbour in another tenant, so tests never share data. */
export async function arrangeAgentTenant(): Promise<AgentTenant> {
  const [mine, other] = await Promise.all([businessWithKey(), businessWithKey()]);
  const { key: readOnlyKey } = await createAgentKey({
    name: 'reader',
    businesses: [mine.businessId],
    scopes: ['read'],
  });
  return { businessId: mine.businessId, key: mine.key, readOnlyKey, other };
}

export const collectionPath = (businessId: string, entity: EntityName) =>
  `/api/v1/agent/businesses/${businessId}/${entities[entity].collection}`;
export const itemPath = (businessId: string, entity: EntityName, id: string) =>
  `${collectionPath(businessId, entity)}/${id}`;

/** Call the agent API with a key. */
export const agentApi = (method: string, path: string, key: string | undefined, request: ApiRequest = {}) =>
  api(method, path, { ...request, ...(key ? { token: key } : {}) });

/** A valid create body of each kind (the entity's example). */
export const minimalBodies = Object.fromEntries(
  agentEntities.map((definition) => [definition.name, definition.example]),
) as Record<Exclude<EntityName, 'profile'>, Record<string, unknown>>;

/** A field of each kind with a length limit, and its limit. */
export const limitedFields: Record<Exclude<EntityName, 'profile'>, [string, number]> = {
  faq: ['question', 500],
  job_posting: ['title', 200],
  location: ['name', 200],
  package: ['name', 200],
  service_item: ['name', 200],
  service: ['name', 200],
  team_member: ['first_name', 100],
};

export async function createRecordVia(
  tenant: { businessId: string; key: string },
  entity: EntityName,
  body?: object,
) {
  const response = await agentApi('POST', collectionPath(tenant.businessId, entity), tenant.key, {
    json: body ?? minimalBodies[entity as Exclude<EntityName, 'profile'>],
  });
  if (response.status !== 201) throw new Error(`create ${entity} failed: ${JSON.stringify(response.body)}`);
  return response.body.data as { id: string; version: number } & Record<string, unknown>;
}

/** The Change History entries of one record, oldest first, read straight from the table. */
export async function historyOf(businessId: string, recordId: string) {
  return queryAll({
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :history)',
    FilterExpression: 'record_id = :id',
    ExpressionAttributeValues: {
      ':pk': keys.business(businessId).pk,
      ':history': 'HISTORY#',
      ':id': recordId,
    },
    ConsistentRead: true,
  });
}
