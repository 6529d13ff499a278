import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { api } from '../support/api.ts';
import { arrangeTenant, platformAdminToken, type Tenant } from '../support/tenants.ts';
import { craftToken, issuer } from '../support/tokens.ts';

const schedulePath = (businessId: string) => `/api/v1/businesses/${businessId}/blog_posts/auto_schedule`;
const DAY_MS = 86_400_000;

describe('blog auto-schedule', () => {
  let tenant: Tenant;
  let path: string;

  beforeEach(async () => {
    tenant = await arrangeTenant();
    path = schedulePath(tenant.businessId);
  });

  describe('success', () => {
    it('answers 404 until a schedule exists', async () => {
      const response = await api('GET', path, { token: tenant.tokens.owner });

      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    });

    it('creates with the documented defaults and reads it back', async () => {
      const before = Date.now();
      const put = await api('PUT', path, { token: tenant.tokens.owner, json: {} });

      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({
        success: true,
        data: {
          business_id: tenant.businessId,
          is_enabled: true,
          auto_publish: false,
          frequency_type: 'weekly',
        },
      });
      const nextRun = Date.parse(put.body.data.next_run_at);
      expect(nextRun).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 7 * DAY_MS);
      expect(nextRun).toBeLessThanOrEqual(Date.now() + 7 * DAY_MS);

      const get = await api('GET', path, { token: tenant.tokens.viewer });
      expect(get.status).toBe(200);
      expect(get.body.data).toEqual(put.body.data);
    });

    it('is idempotent: repeating a PUT changes nothing, not even updated_at', async () => {
      const body = { frequency_type: 'monthly', auto_publish: true, is_enabled: true };
      const first = await api('PUT', path, { token: tenant.tokens.editor, json: body });
      const second = await api('PUT', path, { token: tenant.tokens.editor, json: body });

      expect(second.status).toBe(200);
      expect(second.body.data).toEqual(first.body.data);
    });

    it('recomputes next_run_at when the frequency changes and clears it when disabled', async () => {
      await api('PUT', path, { token: tenant.tokens.owner, json: { frequency_type: 'weekly' } });

      const daily = await api('PUT', path, { token: tenant.tokens.owner, json: { frequency_type: 'daily' } });
      expect(Date.parse(daily.body.data.next_run_at) - Date.now()).toBeLessThanOrEqual(DAY_MS);

      const disabled = await api('PUT', path, {
        token: tenant.tokens.owner,
        json: { frequency_type: 'daily', is_enabled: false },
      });
      expect(disabled.body.data).toMatchObject({ is_enabled: false, next_run_at: null });
      expect(disabled.body.data.created_at).toBe(daily.body.data.created_at);
    });

    it('deletes with 204 and no body, then answers 404', async () => {
      await api('PUT', path, { token: tenant.tokens.owner, json: {} });

      const deleted = await api('DELETE', path, { token: tenant.tokens.owner });
      expect(deleted.status).toBe(204);
      expect(deleted.body).toBeUndefined();

      expect((await api('GET', path, { token: tenant.tokens.owner })).status).toBe(404);
      expect((await api('DELETE', path, { token: tenant.tokens.owner })).status).toBe(404);
    });

    it('echoes the request id in the header and the body', async () => {
      const response = await api('GET', path, { token: tenant.tokens.owner });

      expect(response.headers.get('x-request-id')).toBe(response.body.request_id);
      expect(response.body.request_id).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('lets a platform admin act on any business', async () => {
      const put = await api('PUT', path, {
        token: platformAdminToken(),
        json: { frequency_type: 'biweekly' },
      });

      expect(put.status).toBe(200);
      expect((await api('GET', path, { token: tenant.tokens.viewer })).body.data.frequency_type).toBe(
        'biweekly',
      );
    });
  });

  describe('401', () => {
    const cases: [string, () => Promise<Record<string, string>>][] = [
      ['no credential', async () => ({})],
      ['a non-bearer scheme', async () => ({ authorization: 'Basic dXNlcjpwYXNz' })],
      ['a token that is not a JWT', async () => ({ authorization: 'Bearer not-a-jwt' })],
      ['an expired token', async () => bearer(await craftToken('owner@x.example', { expiresIn: -60 }))],
      [
        'a token from another issuer',
        async () => bearer(await craftToken('a@x.example', { issuer: 'https://evil.example' })),
      ],
      [
        'a token for another audience',
        async () => bearer(await craftToken('a@x.example', { audience: 'other-app' })),
      ],
      [
        'an ID token instead of an access token',
        async () => bearer(await craftToken('a@x.example', { tokenUse: 'id' })),
      ],
      [
        'a token with a bad signature',
        async () => bearer(await craftToken('a@x.example', { foreignKey: true })),
      ],
    ];

    it.each(cases)('rejects %s on every operation', async (_name, headers) => {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const response = await api(method, path, {
          headers: await headers(),
          json: method === 'PUT' ? {} : undefined,
        });

        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
        expect(response.body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
      }
    });
  });

  describe('403', () => {
    it('lets a viewer read but not write', async () => {
      await api('PUT', path, { token: tenant.tokens.owner, json: {} });

      expect((await api('GET', path, { token: tenant.tokens.viewer })).status).toBe(200);
      const put = await api('PUT', path, { token: tenant.tokens.viewer, json: { frequency_type: 'daily' } });
      expect(put.status).toBe(403);
      expect(put.body.error.code).toBe('FORBIDDEN');
      expect((await api('DELETE', path, { token: tenant.tokens.viewer })).status).toBe(403);
      expect((await api('GET', path, { token: tenant.tokens.owner })).body.data.frequency_type).toBe(
        'weekly',
      );
    });

    it("refuses another tenant's owner on every operation and leaves the data alone", async () => {
      const other = await arrangeTenant();
      await api('PUT', path, { token: tenant.tokens.owner, json: { frequency_type: 'monthly' } });

      for (const method of ['GET', 'PUT', 'DELETE']) {
        const response = await api(method, path, {
          token: other.tokens.owner,
          json: method === 'PUT' ? { frequency_type: 'daily' } : undefined,
        });
        expect(response.status).toBe(403);
      }
      const after = await api('GET', path, { token: tenant.tokens.owner });
      expect(after.body.data.frequency_type).toBe('monthly');
    });

    it('refuses a signed-in user who belongs to no business', async () => {
      const stranger = await (await issuer()).mintToken({
        email: `stranger-${randomUUID()}@nowhere.example`,
      });

      expect((await api('GET', path, { token: stranger })).status).toBe(403);
    });
  });

  describe('404', () => {
    it('answers 404 to a platform admin for a business that does not exist', async () => {
      const response = await api('GET', schedulePath(randomUUID()), { token: platformAdminToken() });

      expect(response.status).toBe(404);
    });
  });

  describe('400, 413, 415, 422', () => {
    it('rejects a business id that is not a UUID', async () => {
      const response = await api('GET', schedulePath('not-a-uuid'), { token: tenant.tokens.owner });

      expect(response.status).toBe(422);
      expect(response.body.error.details).toEqual([
        { loc: ['path', 'business_id'], msg: expect.any(String), type: 'invalid_format' },
      ]);
    });

    it('rejects an unknown frequency, a wrong type and an unknown field, naming each', async () => {
      const response = await api('PUT', path, {
        token: tenant.tokens.owner,
        json: { frequency_type: 'hourly', auto_publish: 'yes', is_admin: true },
      });

      expect(response.status).toBe(422);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      const locations = response.body.error.details.map((issue: { loc: string[] }) => issue.loc.join('.'));
      expect(locations.sort()).toEqual(['body.auto_publish', 'body.frequency_type', 'body.is_admin']);
      expect((await api('GET', path, { token: tenant.tokens.owner })).status).toBe(404);
    });

    it('rejects a body that is not an object, and a missing body', async () => {
      for (const raw of ['[]', '"weekly"', 'null']) {
        const response = await api('PUT', path, {
          token: tenant.tokens.owner,
          raw,
          headers: { 'content-type': 'application/json' },
        });
        expect(response.status).toBe(422);
      }
      expect((await api('PUT', path, { token: tenant.tokens.owner })).status).toBe(422);
    });

    it('answers malformed JSON with 400', async () => {
      const response = await api('PUT', path, {
        token: tenant.tokens.owner,
        raw: '{"frequency_type": ',
        headers: { 'content-type': 'application/json' },
      });

      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('BAD_REQUEST');
    });

    it('answers a field name JSON allows but no object may have (__proto__) with 422 naming it', async () => {
      for (const raw of [
        '{"frequency_type": "daily", "__proto__": {"is_admin": true}}',
        '{"frequency_type": "daily", "constructor": {"prototype": {}}}',
      ]) {
        const response = await api('PUT', path, {
          token: tenant.tokens.owner,
          raw,
          headers: { 'content-type': 'application/json' },
        });

        expect(response.status).toBe(422);
        expect(response.body.error.code).toBe('VALIDATION_ERROR');
        expect(response.body.error.details[0].loc[0]).toBe('body');
      }
      expect((await api('GET', path, { token: tenant.tokens.owner })).status).toBe(404);
    });

    it('answers a non-JSON content type with 415', async () => {
      const response = await api('PUT', path, {
        token: tenant.tokens.owner,
        raw: '{}',
        headers: { 'content-type': 'text/plain' },
      });

      expect(response.status).toBe(415);
    });

    it('answers an oversized body with 413', async () => {
      const response = await api('PUT', path, {
        token: tenant.tokens.owner,
        json: { frequency_type: 'daily', padding: 'x'.repeat(300 * 1024) },
      });

      expect(response.status).toBe(413);
      expect(response.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    });
  });
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
