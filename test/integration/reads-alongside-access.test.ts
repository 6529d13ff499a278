import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { loadDevIssuer } from '../../infra/local/dev-issuer.ts';
import { api } from '../support/api.ts';
import { arrangeTenant, platformAdminToken, type Tenant } from '../support/tenants.ts';

/**
 * Console reads guarded by an access check send the read together with the check (one round trip
 * as the harness counts them; a business summary's two reads go out at once beside the check), as
 * does a schedule PUT with the read its write is conditioned on; items read by key go out in the
 * check's own BatchGetItem (lib/db/item-reader.ts). A refused caller gets the check's answer,
 * nothing read and nothing written.
 */
describe('console reads alongside their access check', () => {
  let tenant: Tenant;
  let other: Tenant;
  const roundTrips = (response: { headers: Headers }) =>
    Number(response.headers.get('x-local-dynamodb-round-trips'));
  /** The operations sent, sorted: calls sent together may be counted in either order. */
  const operations = (response: { headers: Headers }) =>
    (response.headers.get('x-local-dynamodb-operations') ?? '').split(',').sort().join(',');

  beforeAll(async () => {
    tenant = await arrangeTenant();
    other = await arrangeTenant();
    const put = await api('PUT', `/api/v1/businesses/${tenant.businessId}/blog_posts/auto_schedule`, {
      token: tenant.tokens.owner,
      json: {},
    });
    expect(put.status).toBe(200);
  });

  // What each sends: the schedule and the business item join the check's BatchGetItem; a Query cannot.
  const reads = () => [
    {
      name: 'getBlogAutoSchedule',
      path: `/api/v1/businesses/${tenant.businessId}/blog_posts/auto_schedule`,
      sent: 'BatchGetItem',
    },
    {
      name: 'listChangesets',
      path: `/api/v1/edits/businesses/${tenant.businessId}/changesets`,
      sent: 'BatchGetItem,Query',
    },
    {
      name: 'listChangeLog',
      path: `/api/v1/edits/businesses/${tenant.businessId}/change-log`,
      sent: 'BatchGetItem,Query',
    },
    {
      name: 'getEditBusiness',
      path: `/api/v1/edits/businesses/${tenant.businessId}`,
      sent: 'BatchGetItem,Query',
    },
  ];

  it('answers the owner in one round trip', async () => {
    for (const { name, path, sent } of reads()) {
      const response = await api('GET', path, { token: tenant.tokens.owner });

      expect(response.status, name).toBe(200);
      expect(response.body.success, name).toBe(true);
      expect(roundTrips(response), name).toBe(1);
      expect(operations(response), name).toBe(sent);
    }
  });

  it("answers another tenant's owner 403 with nothing of what was read", async () => {
    for (const { name, path } of reads()) {
      const response = await api('GET', path, { token: other.tokens.owner });

      expect(response.status, name).toBe(403);
      expect(Object.keys(response.body).sort(), name).toEqual(['error', 'request_id', 'success']);
      expect(JSON.stringify(response.body), name).not.toMatch(/frequency|record_counts/);
    }
  });

  it('answers a missing schedule 404 to a member, and 403 to a stranger before the 404', async () => {
    const path = `/api/v1/businesses/${other.businessId}/blog_posts/auto_schedule`;

    expect((await api('GET', path, { token: other.tokens.owner })).status).toBe(404);
    expect((await api('GET', path, { token: tenant.tokens.owner })).status).toBe(403);
  });

  it('puts a schedule after reading it beside the check: one round trip to change nothing, two to change it', async () => {
    const path = `/api/v1/businesses/${tenant.businessId}/blog_posts/auto_schedule`;
    const current = (await api('GET', path, { token: tenant.tokens.owner })).body.data;

    // The schedule was put with every default (beforeAll): the same body again changes nothing.
    const same = await api('PUT', path, { token: tenant.tokens.owner, json: {} });
    expect(same.status).toBe(200);
    expect(same.body.data.updated_at).toBe(current.updated_at);
    expect(roundTrips(same)).toBe(1);
    expect(operations(same)).toBe('BatchGetItem');

    const changed = await api('PUT', path, { token: tenant.tokens.owner, json: { frequency_type: 'daily' } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.frequency_type).toBe('daily');
    expect(roundTrips(changed)).toBe(2);
    // The schedule and its change event's outbox entry, in one transaction (docs/events.md).
    expect(operations(changed)).toBe('BatchGetItem,TransactWriteItems');

    const refused = await api('PUT', path, {
      token: other.tokens.owner,
      json: { frequency_type: 'monthly' },
    });
    expect(refused.status).toBe(403);
    expect((await api('GET', path, { token: tenant.tokens.owner })).body.data.frequency_type).toBe('daily');
  });

  it('takes two PUTs at once: both answer 200 and the schedule ends as one of them', async () => {
    const path = `/api/v1/businesses/${tenant.businessId}/blog_posts/auto_schedule`;
    const puts = await Promise.all(
      (['weekly', 'monthly'] as const).map((frequency_type) =>
        api('PUT', path, { token: tenant.tokens.owner, json: { frequency_type } }),
      ),
    );

    expect(puts.map((put) => put.status)).toEqual([200, 200]);
    const final = (await api('GET', path, { token: tenant.tokens.owner })).body.data;
    expect(puts.map((put) => put.body.data)).toContainEqual(final);
  });

  it('lists platform admins to an admin in one round trip, and refuses anyone else', async () => {
    // A user's first request may also remember the user (a write after the check): not this one.
    await api('GET', '/api/v1/admin/users', { token: platformAdminToken() });
    const admin = await api('GET', '/api/v1/admin/users', { token: platformAdminToken() });
    expect(admin.status).toBe(200);
    expect(Array.isArray(admin.body.data)).toBe(true);
    expect(roundTrips(admin)).toBe(1);
    expect(operations(admin)).toBe('BatchGetItem,Query');

    const owner = await api('GET', '/api/v1/admin/users', { token: tenant.tokens.owner });
    expect(owner.status).toBe(403);
    expect(owner.body.data).toBeUndefined();
  });

  it("reads an invitee's entry in the admin check's own call, and writes nothing for anyone else", async () => {
    const email = `invitee-${randomUUID()}@example.com`;
    await api('GET', '/api/v1/admin/users', { token: platformAdminToken() });
    const refused = await api('POST', '/api/v1/admin/users', { token: tenant.tokens.owner, json: { email } });
    expect(refused.status).toBe(403);
    expect(operations(refused)).toBe('BatchGetItem');

    // The check's user and admin items and the invitee's entry, then the invite's transaction.
    const invited = await api('POST', '/api/v1/admin/users', {
      token: platformAdminToken(),
      json: { email },
    });
    expect(invited.status).toBe(201);
    expect(invited.body.data).toMatchObject({ email, status: 'pending' });
    expect(invited.headers.get('x-local-dynamodb-operations')).toBe('BatchGetItem,TransactWriteItems');

    // Inviting again finds the invite beside the check and refreshes it: the same id.
    const again = await api('POST', '/api/v1/admin/users', { token: platformAdminToken(), json: { email } });
    expect(again.status).toBe(201);
    expect(again.body.data.id).toBe(invited.body.data.id);
    expect(again.headers.get('x-local-dynamodb-operations')).toBe('BatchGetItem,UpdateItem');

    const listed = await api('GET', '/api/v1/admin/users', { token: platformAdminToken() });
    expect(listed.body.data.filter((entry: { email: string }) => entry.email === email)).toHaveLength(1);
  });

  it("reads an entry's pointer in the admin check's own call, and an invite beside its invitee's own entry", async () => {
    const email = `entry-${randomUUID()}@example.com`;
    await api('GET', '/api/v1/admin/users', { token: platformAdminToken() });
    const invited = await api('POST', '/api/v1/admin/users', {
      token: platformAdminToken(),
      json: { email },
    });
    expect(invited.status).toBe(201);
    const entry = `/api/v1/admin/users/${invited.body.data.id}`;
    const names = { first_name: 'Ada', last_name: 'Admin', email, phone: null };

    // The check's items and the pointer, the entry the pointer names, the write: three round trips.
    const changed = await api('PATCH', entry, { token: platformAdminToken(), json: names });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ id: invited.body.data.id, first_name: 'Ada' });
    expect(roundTrips(changed)).toBe(3);
    expect(operations(changed)).toBe('BatchGetItem,GetItem,TransactWriteItems');
    const refused = await api('PATCH', entry, {
      token: tenant.tokens.owner,
      json: { ...names, first_name: 'Eve' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.data).toBeUndefined();
    expect(operations(refused)).not.toContain('Transact');

    // The invitee's acceptance reads the pointer and the entry under their own e-mail together.
    const issuer = await loadDevIssuer(inject('harness').stateDir);
    const stranger = await api(
      'POST',
      `/api/v1/admin/platform-admin-invites/${invited.body.data.id}/accept`,
      {
        token: await issuer.mintToken({ email: `stranger-${randomUUID()}@example.com` }),
      },
    );
    expect(stranger.status).toBe(403);
    expect(operations(stranger)).not.toContain('Transact');
    const accepted = await api(
      'POST',
      `/api/v1/admin/platform-admin-invites/${invited.body.data.id}/accept`,
      {
        token: await issuer.mintToken({ email }),
      },
    );
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({ email, status: 'active', first_name: 'Ada' });
    expect(roundTrips(accepted)).toBe(2);
    expect(operations(accepted)).toBe('BatchGetItem,TransactWriteItems');

    const removed = await api('DELETE', entry, { token: platformAdminToken() });
    expect(removed.status).toBe(204);
    expect(roundTrips(removed)).toBe(3);
    expect(operations(removed)).toBe('BatchGetItem,GetItem,TransactWriteItems');
    const listed = await api('GET', '/api/v1/admin/users', { token: platformAdminToken() });
    expect(listed.body.data.some((found: { email: string }) => found.email === email)).toBe(false);
  });
});
