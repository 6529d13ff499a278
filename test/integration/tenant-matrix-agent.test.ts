import { beforeAll, describe, expect, it } from 'vitest';
import { agentRoute } from '#lib/routes/agent.ts';
import { matrixRoutes, refusalProblems, routeRefusalProblems } from '../support/tenant-matrix.ts';
import { arrangeTenantWorld, type TenantWorld } from '../support/tenant-world.ts';

/** Tenant matrix (test/support/tenant-matrix.ts) of the agent API. */
describe('tenant matrix: agent API', () => {
  let world: TenantWorld;
  beforeAll(async () => {
    world = await arrangeTenantWorld();
  });

  it.each(matrixRoutes(['agent']).map((route) => [route.operationId, route] as const))(
    "%s refuses every credential that is not the victim's",
    async (_name, route) => {
      expect(await routeRefusalProblems(route, world)).toEqual([]);
    },
  );

  it('fails when a credential gets through, and names the leaked marker', async () => {
    const problems = await refusalProblems(agentRoute('getFaq'), world, {
      name: 'the victim key itself',
      headers: { authorization: `Bearer ${world.victim.agentKey}` },
      expect: 'forbidden',
    });

    expect(problems.join('\n')).toContain('answered 200: the credential was accepted');
    expect(problems.join('\n')).toContain("the body carries the other tenant's marker");
  });
});
