import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { agentEntities } from '#lib/records/entities.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { validRequest } from '../support/route-requests.ts';
import { tenantMatrixGaps } from '../support/tenant-matrix.ts';
import type { TenantWorld } from '../support/tenant-world.ts';

/**
 * The tenant matrix (test/integration/tenant-matrix-*.test.ts) derives its cases from the route
 * table. This fails, without any services, as soon as a route appears that it cannot derive cases
 * for: an auth kind it does not know, a path parameter it cannot fill with a tenant's real id, or
 * a body it cannot make valid.
 */
describe('tenant matrix coverage', () => {
  it('knows every auth kind and every path parameter of the route table', () => {
    expect(routeTable.length).toBeGreaterThan(0);
    expect(tenantMatrixGaps()).toEqual([]);
  });

  it('builds a request with a valid body for every route', () => {
    const id = () => randomUUID();
    const world = {
      marker: 'M',
      victim: {
        businessId: id(),
        records: Object.fromEntries(agentEntities.map((definition) => [definition.name, id()])),
        sessionId: id(),
        changesetId: id(),
        changesetItemId: id(),
        changeLogEntryId: id(),
        photoId: id(),
        consentRequestId: id(),
        grantId: id(),
        inviteId: 'invite-id',
        ownerUserId: id(),
        webhookId: id(),
        webhookDeliveryId: id(),
      },
      galleryPhotoId: id(),
    } as unknown as TenantWorld;

    for (const route of routeTable) {
      const request = validRequest(route, world);
      expect(request.path, route.operationId).not.toMatch(/[{}]/);
      if (route.request.body) expect(request.body, route.operationId).toBeDefined();
    }
  });
});
