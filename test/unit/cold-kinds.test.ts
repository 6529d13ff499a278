import { describe, expect, it } from 'vitest';
import { routeTable } from '#lib/routes/route-table.ts';
import { COLD_KINDS, coldKindOf } from '../../bench/cold-kinds.ts';

const kindOf = (operationId: string) => {
  const route = routeTable.find((row) => row.operationId === operationId);
  if (!route) throw new Error(`no route ${operationId}`);
  return coldKindOf(route);
};

describe("the cold-start summary's kinds of function", () => {
  it('puts each function where its credential, calls and clients put it', () => {
    expect(kindOf('getFaq')).toBe('agent reads');
    expect(kindOf('listPackageServiceItems')).toBe('agent reads');
    expect(kindOf('updateLocation')).toBe('agent changes');
    expect(kindOf('setPackageServiceItems')).toBe('agent changes');
    expect(kindOf('createService')).toBe('agent creates');
    expect(kindOf('invitePlatformAdmin')).toBe('console and edits');
    expect(kindOf('applyChangeset')).toBe('console and edits');
    expect(kindOf('listGalleryPhotos')).toBe('internal media reads');
    expect(kindOf('getPhotoBytes')).toBe('photo bytes (the S3 client)');
    expect(kindOf('importDerivativePhoto')).toBe('photo bytes (the S3 client)');
    expect(kindOf('handleMcp')).toBe('tool server');
    expect(kindOf('issueOAuthToken')).toBe('OAuth endpoints');
    expect(kindOf('getAuthorizationServerMetadata')).toBe('documents (no credential, no call)');
    expect(kindOf('getOpenApiDocument')).toBe('documents (no credential, no call)');
  });

  it('leaves no kind empty', () => {
    const used = new Set(routeTable.map((route) => coldKindOf(route)));
    expect([...used].sort()).toEqual([...COLD_KINDS].sort());
  });
});
