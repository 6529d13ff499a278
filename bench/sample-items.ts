import type { RouteDefinition } from '#lib/http/route.ts';
import { agentEntities, type EntityDefinition } from '#lib/records/entities.ts';
import type { Stack } from './fixture-calls.ts';
import { createAgentRecord, ROUTE_FIXTURES, type RouteSample, sharedFixtureIds } from './sample-fixtures.ts';

/**
 * Records for the cold starts' sample requests to act on (infra/local/sample-event.ts,
 * `itemIds`), made through the running stack with its agent key from each entity's example, so a
 * get, replace, update or member list finds its record and does its work instead of answering 404.
 */
export function createSampleItem(harness: Stack, entity: EntityDefinition): Promise<string> {
  if (!entity.collection) throw new Error(`${entity.name} has no agent collection`);
  return createAgentRecord(harness, entity.collection, entity.example);
}

/**
 * What the internal media API knows of the demo data: the demo business's first uploaded photo and
 * the industry gallery's first photo (both have bytes in S3; infra/local/seed.ts makes them).
 */
async function demoPhotoIds(harness: Stack): Promise<{ photo: string; gallery: string }> {
  const business = harness.credentials.businesses[0];
  if (!business) throw new Error('no demo business');
  const list = async <T>(path: string): Promise<T[]> => {
    const response = await fetch(`${harness.baseUrl}/api/v1/internal/media/${path}`, {
      headers: { 'x-internal-api-key': harness.credentials.internal_api_key },
    });
    if (response.status !== 200) throw new Error(`listing ${path} answered ${response.status}`);
    return ((await response.json()) as { items: T[] }).items;
  };
  const photos = await list<{ asset_id: string; photo_source: string }>(`photos?business_id=${business.id}`);
  const photo = photos.find((item) => item.photo_source === 'upload')?.asset_id;
  const gallery = (await list<{ asset_id: string }>('gallery'))[0]?.asset_id;
  if (!photo || !gallery) throw new Error('the demo data has no uploaded photo or no gallery photo');
  return { photo, gallery };
}

/** Where `sampleItemIds` keeps the gallery photo: its routes name it `photo_id` too (`routeItemIds`). */
const GALLERY_PHOTO = 'gallery_photo_id';

/**
 * Ids of items that exist, by the name of the path parameter (or form field) that names one: a
 * record of each agent entity (`faq_id`…), made for the run; the demo business's photo, as
 * `photo_id` and as the photo import's `source_asset_id`; the gallery's photo; and the fixtures the
 * console, edits and OAuth routes share (bench/sample-fixtures.ts, under keys of their own).
 */
export async function sampleItemIds(harness: Stack): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const entity of agentEntities) {
    if (entity.idParam) ids[entity.idParam] = await createSampleItem(harness, entity);
  }
  const photos = await demoPhotoIds(harness);
  return {
    ...ids,
    photo_id: photos.photo,
    source_asset_id: photos.photo,
    [GALLERY_PHOTO]: photos.gallery,
    ...(await sharedFixtureIds(harness)),
  };
}

/** The ids one route's sample names: the gallery's routes name their photo `photo_id` too. */
function routeItemIds(route: RouteDefinition, shared: Record<string, string>): Record<string, string> {
  const gallery = shared[GALLERY_PHOTO];
  return route.path.includes('/gallery/{photo_id}') && gallery ? { ...shared, photo_id: gallery } : shared;
}

/** The record an agent delete removes, so that each of its requests needs one of its own. */
export function deletedEntity(route: RouteDefinition): EntityDefinition | undefined {
  if (route.auth !== 'agent' || route.method !== 'DELETE') return undefined;
  return agentEntities.find((entity) => entity.idParam && route.path.includes(`{${entity.idParam}}`));
}

/** Whether each sample request of `route` needs what it names made anew (it uses it up). */
export function madePerRequest(route: RouteDefinition): boolean {
  return deletedEntity(route) !== undefined || ROUTE_FIXTURES[route.operationId]?.perRequest === true;
}

/**
 * What one sample request of `route` names (infra/local/sample-event.ts, `SampleExtras`): the
 * shared items (sampleItemIds, routeItemIds), with its route's fixture (bench/sample-fixtures.ts)
 * or a new record in place of the one a delete would remove.
 */
export async function sampleFor(
  harness: Stack,
  route: RouteDefinition,
  shared: Record<string, string>,
): Promise<RouteSample> {
  const ids = routeItemIds(route, shared);
  const fixture = ROUTE_FIXTURES[route.operationId];
  if (fixture) {
    const made = await fixture.make(harness, shared);
    return { ...made, itemIds: { ...ids, ...made.itemIds } };
  }
  const entity = deletedEntity(route);
  if (!entity?.idParam) return { itemIds: ids };
  return { itemIds: { ...ids, [entity.idParam]: await createSampleItem(harness, entity) } };
}
