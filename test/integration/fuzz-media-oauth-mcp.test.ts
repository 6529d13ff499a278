import { beforeAll, describe, it } from 'vitest';
import { fuzzRoute } from '../support/fuzz-requests.ts';
import { matrixRoutes } from '../support/tenant-matrix.ts';
import { arrangeTenantWorld, type TenantWorld } from '../support/tenant-world.ts';

/** Schema-driven fuzz (test/support/fuzz-requests.ts) of the internal media, the OAuth server and the tool server. */
describe('fuzz: internal media, OAuth and tool server', () => {
  let world: TenantWorld;
  beforeAll(async () => {
    world = await arrangeTenantWorld();
  });

  it.each(matrixRoutes(['internal', 'none', 'mcp']).map((route) => [route.operationId, route] as const))(
    '%s answers every generated request as documented',
    async (_name, route) => {
      await fuzzRoute(route, world);
    },
    180_000,
  );
});
