import type { RouteDefinition } from '#lib/http/route.ts';
import { agentEntities, type EntityDefinition } from '#lib/records/entities.ts';
import type { HarnessInfo } from '../infra/local/harness-process.ts';

/** What making a record needs of a running stack. */
type Stack = Pick<HarnessInfo, 'baseUrl' | 'credentials'>;

/**
 * Records for the cold starts' sample requests to act on (infra/local/sample-event.ts,
 * `itemIds`), made through the running stack with its agent key from each entity's example, so a
 * get, replace, update or member list finds its record and does its work instead of answering 404.
 */
export async function createSampleItem(harness: Stack, entity: EntityDefinition): Promise<string> {
  const business = harness.credentials.businesses[0];
  if (!business) throw new Error('no demo business');
  const response = await fetch(
    `${harness.baseUrl}/api/v1/agent/businesses/${business.id}/${entity.collection}`,
    {
      method: 'POST',
      headers: {
        authorization: `Bearer ${harness.credentials.agent_key}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(entity.example),
    },
  );
  const body = (await response.json()) as { data?: { id?: string } };
  if (response.status !== 201 || !body.data?.id) {
    throw new Error(`creating a sample ${entity.name} answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return body.data.id;
}

/** One record of each agent entity, by the name of its id's path parameter (`faq_id`…). */
export async function sampleItemIds(harness: Stack): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const entity of agentEntities) {
    if (entity.idParam) ids[entity.idParam] = await createSampleItem(harness, entity);
  }
  return ids;
}

/** The record an agent delete removes, so that each of its requests needs one of its own. */
export function deletedEntity(route: RouteDefinition): EntityDefinition | undefined {
  if (route.auth !== 'agent' || route.method !== 'DELETE') return undefined;
  return agentEntities.find((entity) => entity.idParam && route.path.includes(`{${entity.idParam}}`));
}

/**
 * The `itemIds` for one sample request of `route`: the shared records (sampleItemIds), with a new
 * one in place of the record a delete would remove.
 */
export async function itemIdsFor(
  harness: Stack,
  route: RouteDefinition,
  shared: Record<string, string>,
): Promise<Record<string, string>> {
  const entity = deletedEntity(route);
  if (!entity?.idParam) return shared;
  return { ...shared, [entity.idParam]: await createSampleItem(harness, entity) };
}
