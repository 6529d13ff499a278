import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import { addPhoto } from '#lib/media/photo-writes.ts';
import { api } from '../support/api.ts';
import { arrangeTenant } from '../support/tenants.ts';

const key = () => inject('harness').credentials.internal_api_key;
const usagesOf = async (photoId: string) =>
  (
    await api('GET', `/api/v1/internal/media/photos/${photoId}/usages`, {
      headers: { 'x-internal-api-key': key() },
    })
  ).body;
const photo = (businessId: string) =>
  addPhoto({ businessId, bytes: randomBytes(100), contentType: 'image/jpeg', source: 'upload' });

describe('photo usages', () => {
  it('follow agent writes: create, move to another photo, clear, delete', async () => {
    // Prepare
    const tenant = await arrangeTenant();
    const { key: agentKey } = await createAgentKey({
      name: 'usages',
      businesses: [tenant.businessId],
      scopes: ['read', 'write'],
    });
    const agent = (method: string, path: string, json?: unknown) =>
      api(method, `/api/v1/agent/businesses/${tenant.businessId}${path}`, {
        token: agentKey,
        ...(json ? { json } : {}),
      });
    const first = await photo(tenant.businessId);
    const second = await photo(tenant.businessId);

    // Act and assess: a service and a team member use the first photo.
    const service = (await agent('POST', '/services', { name: 'Cakes', photo_id: first.id })).body.data;
    const member = (await agent('POST', '/team_members', { first_name: 'Ada', photo_id: first.id })).body
      .data;
    expect(await usagesOf(first.id)).toEqual({
      asset_id: first.id,
      in_use: true,
      usages: expect.arrayContaining([
        { business_id: tenant.businessId, entity: 'service', record_id: service.id, fields: ['photo_id'] },
        { business_id: tenant.businessId, entity: 'team_member', record_id: member.id, fields: ['photo_id'] },
      ]),
    });

    await agent('PATCH', `/services/${service.id}`, { photo_id: second.id });
    expect((await usagesOf(first.id)).usages.map((u: { entity: string }) => u.entity)).toEqual([
      'team_member',
    ]);
    expect((await usagesOf(second.id)).usages.map((u: { record_id: string }) => u.record_id)).toEqual([
      service.id,
    ]);

    await agent('PATCH', `/team_members/${member.id}`, { photo_id: null });
    await agent('DELETE', `/services/${service.id}`);
    expect(await usagesOf(first.id)).toEqual({ asset_id: first.id, in_use: false, usages: [] });
    expect((await usagesOf(second.id)).in_use).toBe(false);
  });

  it('follow edits: apply, revert and undo keep them true', async () => {
    const tenant = await arrangeTenant();
    const pic = await photo(tenant.businessId);
    const edits = (method: string, path: string, json?: unknown) =>
      api(method, `/api/v1/edits${path}`, { token: tenant.tokens.owner, ...(json ? { json } : {}) });
    const session = (await edits('POST', '/sessions', { business_id: tenant.businessId })).body.data;
    const staged = (
      await edits('POST', `/sessions/${session.id}/changesets`, {
        items: [{ entity: 'package', action: 'create', fields: { name: 'Party', photo_id: pic.id } }],
      })
    ).body.data;

    await edits('POST', `/changesets/${staged.id}/apply`);
    expect((await usagesOf(pic.id)).usages).toEqual([
      expect.objectContaining({ entity: 'package', fields: ['photo_id'] }),
    ]);

    await edits('POST', `/changesets/${staged.id}/revert`);
    expect((await usagesOf(pic.id)).in_use).toBe(false);

    const log = (await edits('GET', `/businesses/${tenant.businessId}/change-log?limit=1`)).body.data;
    await edits('POST', `/businesses/${tenant.businessId}/change-log/${log[0].id}/undo`);
    expect((await usagesOf(pic.id)).in_use).toBe(true);
  });

  it('answers 404 for an unknown photo, 422 for a malformed id, 401 without the key', async () => {
    expect(
      (
        await api('GET', `/api/v1/internal/media/photos/${randomUUID()}/usages`, {
          headers: { 'x-internal-api-key': key() },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await api('GET', '/api/v1/internal/media/photos/nope/usages', {
          headers: { 'x-internal-api-key': key() },
        })
      ).status,
    ).toBe(422);
    expect((await api('GET', `/api/v1/internal/media/photos/${randomUUID()}/usages`)).status).toBe(401);
  });
});
