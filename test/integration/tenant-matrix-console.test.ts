import { beforeAll, describe, expect, it } from 'vitest';
import { blogRoutes } from '#lib/routes/blog.ts';
import { matrixRoutes, refusalProblems, routeRefusalProblems } from '../support/tenant-matrix.ts';
import { arrangeTenantWorld, type TenantWorld } from '../support/tenant-world.ts';

/** Tenant matrix (test/support/tenant-matrix.ts) of the console routes: blog, platform admins, consent. */
describe('tenant matrix: console routes', () => {
  let world: TenantWorld;
  beforeAll(async () => {
    world = await arrangeTenantWorld();
  });

  it.each(matrixRoutes(['console']).map((route) => [route.operationId, route] as const))(
    "%s refuses every credential that is not the victim's",
    async (_name, route) => {
      expect(await routeRefusalProblems(route, world)).toEqual([]);
    },
  );

  it('fails when an invalid credential is answered with anything but a 401', async () => {
    const problems = await refusalProblems(blogRoutes.getBlogAutoSchedule, world, {
      name: 'a valid token labelled invalid',
      headers: { authorization: `Bearer ${world.attacker.tokens.owner}` },
      expect: 'unauthenticated',
    });

    expect(problems.join('\n')).toContain('answered 403, expected 401');
  });
});
