import { agentEntities, type EntityDefinition } from '#lib/records/entities.ts';
import type { HarnessInfo } from '../infra/local/harness-process.ts';

/**
 * Records for the cold starts' sample requests to act on (infra/local/sample-event.ts,
 * `itemIds`), made through the running stack with its agent key from each entity's example, so a
 * get, replace, update or member list finds its record and does its work instead of answering 404.
 */
export async function createSampleItem(harness: HarnessInfo, entity: EntityDefinition): Promise<string> {
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
export async function sampleItemIds(harness: HarnessInfo): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const entity of agentEntities) {
    if (entity.idParam) ids[entity.idParam] = await createSampleItem(harness, entity);
  }
  return ids;
}

/** The agent entity whose records a path names by id, if it names one. */
export function entityOfPath(path: string): EntityDefinition | undefined {
  return agentEntities.find((entity) => entity.idParam && path.includes(`{${entity.idParam}}`));
}
