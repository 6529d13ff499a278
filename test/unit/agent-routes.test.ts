import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AgentPrincipal } from '#lib/auth/principal.ts';
import type { HandlerInput } from '#lib/http/pipeline.ts';
import type { createAgentRecord } from '#lib/records/agent/operations.ts';
import { type AgentOperationId, type AgentRoutes, agentRoute, agentRoutes } from '#lib/routes/agent.ts';

/**
 * Every agent operation id the type admits. `satisfies` refuses a missing id and one the type does
 * not know, so this list is exactly `AgentOperationId`; the test below holds the route table to it.
 */
const operationIds = {
  listFaqs: true,
  createFaq: true,
  getFaq: true,
  replaceFaq: true,
  updateFaq: true,
  deleteFaq: true,
  listJobPostings: true,
  createJobPosting: true,
  getJobPosting: true,
  replaceJobPosting: true,
  updateJobPosting: true,
  deleteJobPosting: true,
  listLocations: true,
  createLocation: true,
  getLocation: true,
  replaceLocation: true,
  updateLocation: true,
  deleteLocation: true,
  listPackages: true,
  createPackage: true,
  getPackage: true,
  replacePackage: true,
  updatePackage: true,
  deletePackage: true,
  setPackageServiceItems: true,
  listPackageServiceItems: true,
  listServiceItems: true,
  createServiceItem: true,
  getServiceItem: true,
  replaceServiceItem: true,
  updateServiceItem: true,
  deleteServiceItem: true,
  setServiceItemServices: true,
  listServiceItemServices: true,
  listServices: true,
  createService: true,
  getService: true,
  replaceService: true,
  updateService: true,
  deleteService: true,
  listTeamMembers: true,
  createTeamMember: true,
  getTeamMember: true,
  replaceTeamMember: true,
  updateTeamMember: true,
  deleteTeamMember: true,
} satisfies Record<AgentOperationId, true>;

type InputOf<Id extends AgentOperationId> = HandlerInput<AgentRoutes[Id], AgentPrincipal>;

describe('agent routes, typed by operation id', () => {
  it('builds at run time exactly the operation ids the type derives from the entity definitions', () => {
    expect(Object.keys(agentRoutes).sort()).toEqual(Object.keys(operationIds).sort());
  });

  it('refuses a misspelt id when compiling, and still when loading', () => {
    // @ts-expect-error: no such operation; tsc (npm run lint) fails if this line compiles.
    expect(() => agentRoute('updateServce')).toThrow('No agent route updateServce');
  });

  it('gives each kind of route the request parts its type says, so handler inputs follow the route', () => {
    const parts = (id: AgentOperationId) => Object.keys(agentRoute(id).request).sort();
    expect(parts('listFaqs')).toEqual(['params', 'query']);
    expect(parts('createFaq')).toEqual(['body', 'params']);
    expect(parts('getFaq')).toEqual(['params']);
    expect(parts('replaceService')).toEqual(['body', 'headers', 'params']);
    expect(parts('updateService')).toEqual(['body', 'headers', 'params']);
    expect(parts('deleteService')).toEqual(['headers', 'params']);
    expect(parts('setPackageServiceItems')).toEqual(['body', 'headers', 'params']);
    expect(parts('listPackageServiceItems')).toEqual(['params']);

    expectTypeOf<InputOf<'listFaqs'>['query']>().toEqualTypeOf<{
      cursor?: string | undefined;
      limit: number;
    }>();
    expectTypeOf<InputOf<'updateService'>['headers']>().toEqualTypeOf<{ 'if-match'?: number | undefined }>();
    expectTypeOf<InputOf<'updateService'>['params']['service_id']>().toEqualTypeOf<string>();
    expectTypeOf<InputOf<'getFaq'>['body']>().toEqualTypeOf<undefined>();
    // A create takes the create route's input; wired to a route without a body it does not compile.
    type CreateInput = Parameters<typeof createAgentRecord>[1];
    expectTypeOf<InputOf<'createFaq'>>().toMatchTypeOf<CreateInput>();
    expectTypeOf<InputOf<'getFaq'>>().not.toMatchTypeOf<CreateInput>();
  });
});
