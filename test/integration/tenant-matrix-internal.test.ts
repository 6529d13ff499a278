import { beforeAll, describe, expect, it } from 'vitest';
import { matrixRoutes, routeRefusalProblems } from '../support/tenant-matrix.ts';
import { arrangeTenantWorld, type TenantWorld } from '../support/tenant-world.ts';

/** Tenant matrix (test/support/tenant-matrix.ts) of the internal media routes and the tool server's HTTP surface. */
describe('tenant matrix: internal media and tool server', () => {
  let world: TenantWorld;
  beforeAll(async () => {
    world = await arrangeTenantWorld();
  });

  it.each(matrixRoutes(['internal', 'mcp']).map((route) => [route.operationId, route] as const))(
    "%s refuses every credential that is not the victim's",
    async (_name, route) => {
      expect(await routeRefusalProblems(route, world)).toEqual([]);
    },
  );
});
