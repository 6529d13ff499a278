import { describe, expect, inject, it } from 'vitest';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import { localUserId } from '../../infra/local/dev-issuer.ts';
import {
  agentApi,
  arrangeAgentTenant,
  collectionPath,
  createRecordVia,
  itemPath,
} from '../support/agents.ts';
import { api } from '../support/api.ts';
import { arrangeTenant } from '../support/tenants.ts';

/**
 * Media types are case-insensitive, a text body in a charset other than UTF-8
 * is a 415, and UUIDs are case-insensitive on input and lower case on output.
 */
const FAQ = { question: 'Open on Sundays?', answer: 'From 9 to 12' };

describe('request media types', () => {
  it.each([
    ['APPLICATION/JSON'],
    ['Application/Json; Charset=UTF-8'],
    ['application/json;charset="utf-8"'],
    ['application/json ; charset=utf-8'],
  ])('accepts a JSON body sent as %s', async (contentType) => {
    const tenant = await arrangeAgentTenant();

    const response = await agentApi('POST', collectionPath(tenant.businessId, 'faq'), tenant.key, {
      raw: JSON.stringify(FAQ),
      headers: { 'content-type': contentType },
    });

    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body.data).toMatchObject(FAQ);
  });

  it.each([
    ['application/json; charset=utf-16', Buffer.from(JSON.stringify(FAQ), 'utf16le')],
    ['application/json; charset=UTF-16LE', Buffer.from(JSON.stringify(FAQ), 'utf16le')],
    ['application/json; charset="iso-8859-1"', Buffer.from(JSON.stringify(FAQ), 'latin1')],
    ['text/plain', Buffer.from(JSON.stringify(FAQ))],
  ])('answers 415 ErrorResponse to a body sent as %s', async (contentType, body) => {
    const tenant = await arrangeAgentTenant();

    const response = await agentApi('POST', collectionPath(tenant.businessId, 'faq'), tenant.key, {
      raw: body,
      headers: { 'content-type': contentType },
    });

    expect(response.status).toBe(415);
    expect(response.body).toMatchObject({ success: false, error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
  });

  it('reads an upper-case form media type as a form (the token endpoint answers in OAuth terms, not 415)', async () => {
    const response = await api('POST', '/oauth/token', {
      raw: 'grant_type=authorization_code&code=nope&client_id=nope',
      headers: { 'content-type': 'APPLICATION/X-WWW-FORM-URLENCODED' },
    });

    expect(response.status).not.toBe(415);
    expect(response.body.error).toMatch(/^invalid_/);
  });
});

describe('UUIDs in any case', () => {
  it('agent API: a business id and record ids in upper case are the same ids, answered in lower case', async () => {
    const tenant = await arrangeAgentTenant();
    const upper = tenant.businessId.toUpperCase();
    const location = await createRecordVia(tenant, 'location');

    const created = await agentApi('POST', collectionPath(upper, 'job_posting'), tenant.key, {
      json: { title: 'Baker', description: 'Early shifts', location_id: location.id.toUpperCase() },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.business_id).toBe(tenant.businessId);
    expect(created.body.data.location_id).toBe(location.id);

    const read = await agentApi(
      'GET',
      itemPath(upper, 'job_posting', created.body.data.id.toUpperCase()),
      tenant.key,
    );
    expect(read.status).toBe(200);
    expect(read.body.data.id).toBe(created.body.data.id);

    const list = await agentApi('GET', collectionPath(upper, 'job_posting'), tenant.key);
    expect(list.status).toBe(200);
    expect(list.body.data.map((record: { id: string }) => record.id)).toEqual([created.body.data.id]);

    // Another tenant's id stays another tenant's id, whatever its case.
    const foreign = await agentApi(
      'GET',
      collectionPath(tenant.other.businessId.toUpperCase(), 'faq'),
      tenant.key,
    );
    expect(foreign.status).toBe(403);
  });

  it('an agent key made with a business id in upper case opens that business, in either case', async () => {
    const tenant = await arrangeAgentTenant();
    const { key } = await createAgentKey({
      name: 'upper-case',
      businesses: [tenant.businessId.toUpperCase()],
      scopes: ['read'],
    });

    for (const id of [tenant.businessId, tenant.businessId.toUpperCase()]) {
      expect((await agentApi('GET', collectionPath(id, 'faq'), key)).status, id).toBe(200);
    }
  });

  it('edits API: a business id in upper case in the path and in a body', async () => {
    const tenant = await arrangeTenant();
    const upper = tenant.businessId.toUpperCase();

    const business = await api('GET', `/api/v1/edits/businesses/${upper}`, { token: tenant.tokens.owner });
    expect(business.status, JSON.stringify(business.body)).toBe(200);
    expect(business.body.data).toMatchObject({ id: tenant.businessId, role: 'owner' });

    const session = await api('POST', '/api/v1/edits/sessions', {
      token: tenant.tokens.owner,
      json: { business_id: upper },
    });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    expect(session.body.data.business_id).toBe(tenant.businessId);

    const again = await api('GET', `/api/v1/edits/sessions/${session.body.data.id.toUpperCase()}`, {
      token: tenant.tokens.owner,
    });
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(session.body.data.id);

    const changesets = await api('GET', `/api/v1/edits/businesses/${upper}/changesets`, {
      token: tenant.tokens.owner,
    });
    expect(changesets.status).toBe(200);
  });

  it('internal media: business and user ids in upper case', async () => {
    const tenant = await arrangeTenant();
    const viewer = localUserId(tenant.emails.viewer);
    const headers = { 'x-internal-api-key': inject('harness').credentials.internal_api_key };

    const member = await api(
      'GET',
      `/api/v1/internal/media/businesses/${tenant.businessId.toUpperCase()}/members/${viewer.toUpperCase()}`,
      { headers },
    );
    expect(member.status).toBe(200);
    expect(member.body).toEqual({ business_id: tenant.businessId, user_id: viewer, is_member: true });

    const photos = await api(
      'GET',
      `/api/v1/internal/media/photos?business_id=${tenant.businessId.toUpperCase()}`,
      { headers },
    );
    expect(photos.status).toBe(200);
  });
});
