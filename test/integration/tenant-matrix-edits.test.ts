import { beforeAll, describe, expect, it } from 'vitest';
import { matrixRoutes, routeRefusalProblems } from '../support/tenant-matrix.ts';
import { arrangeTenantWorld, type TenantWorld } from '../support/tenant-world.ts';

/** Tenant matrix (test/support/tenant-matrix.ts) of the edits API (console JWTs and assistant tokens). */
describe('tenant matrix: edits API', () => {
  let world: TenantWorld;
  beforeAll(async () => {
    world = await arrangeTenantWorld();
  });

  it.each(matrixRoutes(['edits']).map((route) => [route.operationId, route] as const))(
    "%s refuses every credential that is not the victim's",
    async (_name, route) => {
      expect(await routeRefusalProblems(route, world)).toEqual([]);
    },
  );
});
