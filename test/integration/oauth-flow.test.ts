import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { api } from '../support/api.ts';
import {
  baseUrl,
  discover,
  insecure,
  obtainTokens,
  postForm,
  postJsonFrom,
  randomLoopbackAddress,
  registerClient,
} from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';

describe('discovery', () => {
  it('publishes RFC 8414 authorization server metadata, the issuer identical everywhere', async () => {
    const as = await discover();
    const issuer = baseUrl();

    expect(as).toEqual({
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      registration_endpoint: `${issuer}/oauth/register`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      jwks_uri: `${issuer}/oauth/jwks`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      scopes_supported: ['edits:read', 'edits:write', 'offline_access'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
  });

  it.each([
    ['mcp', '/mcp'],
    ['api/v1/edits', '/api/v1/edits'],
  ])('publishes protected resource metadata for %s (RFC 9728)', async (suffix, resourcePath) => {
    const response = await api('GET', `/.well-known/oauth-protected-resource/${suffix}`);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      resource: `${baseUrl()}${resourcePath}`,
      authorization_servers: [baseUrl()],
      scopes_supported: ['edits:read', 'edits:write'],
      bearer_methods_supported: ['header'],
    });
    expect(response.body.resource_name).toEqual(expect.any(String));
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it.each([
    '/.well-known/openid-configuration',
    '/.well-known/oauth-authorization-server/mcp',
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-protected-resource/api/v1/other',
  ])('answers 404 (never 5xx) at the unknown well-known path %s', async (path) => {
    const response = await api('GET', path);

    expect(response.status).toBe(404);
    expect(response.body.error).toBe('not_found');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers CORS preflights of the browser-facing endpoints', async () => {
    for (const path of [
      '/.well-known/oauth-authorization-server',
      '/oauth/register',
      '/oauth/token',
      '/oauth/revoke',
    ]) {
      const response = await fetch(`${baseUrl()}${path}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://assistant.example', 'access-control-request-method': 'POST' },
      });

      expect(response.status, path).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-headers')).toContain('content-type');
    }
  });
});

describe('the whole flow with oauth4webapi', () => {
  it('registers, authorizes, gets consent, exchanges the code, refreshes and revokes', async () => {
    // Prepare: a console user who owns a business.
    const tenant = await arrangeTenant();

    // Act: discovery, registration, authorize, approve, code exchange (validateAuthResponse checks iss).
    const { as, client, tokens } = await obtainTokens({ userToken: tenant.tokens.owner });

    // Assess: an ES256 access token for the default resource (/mcp), 15 minutes, verifiable by JWKS.
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(900);
    expect(tokens.scope).toBe('edits:read edits:write offline_access');
    const jwks = createRemoteJWKSet(new URL(`${baseUrl()}/oauth/jwks`));
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, {
      issuer: baseUrl(),
      audience: `${baseUrl()}/mcp`,
    });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(payload).toMatchObject({
      client_id: client.client_id,
      scope: 'edits:read edits:write offline_access',
    });
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(900);

    // Act: refresh rotates the refresh token.
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(
        as,
        client,
        oauth.None(),
        tokens.refresh_token as string,
        insecure,
      ),
    );
    expect(refreshed.refresh_token).toEqual(expect.any(String));
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

    // Act: revoke the new refresh token; the grant is gone, so refreshing again fails.
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, oauth.None(), refreshed.refresh_token as string, insecure),
    );
    const after = await postForm('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: refreshed.refresh_token as string,
      client_id: client.client_id,
    });
    expect(after.status).toBe(400);
    expect(after.body.error).toBe('invalid_grant');
    expect(after.headers.get('cache-control')).toBe('no-store');
  });

  it('registers clients dynamically, refusing bad redirect URIs as RFC 7591 errors', async () => {
    const good = await registerClient({
      redirect_uris: ['https://app.example/cb', 'com.example.app:/oauth'],
    });
    expect(good.client_id).toEqual(expect.any(String));

    for (const uri of [
      'javascript:alert(1)',
      'data:text/html,x',
      'file:///etc/passwd',
      'http://app.example/cb',
      'nope',
    ]) {
      const response = await api('POST', '/oauth/register', { json: { redirect_uris: [uri] } });
      expect(response.status, uri).toBe(400);
      expect(response.body.error, uri).toBe('invalid_redirect_uri');
    }
    const badScope = await api('POST', '/oauth/register', {
      json: { redirect_uris: ['https://app.example/cb'], scope: 'admin' },
    });
    expect(badScope.body.error).toBe('invalid_client_metadata');
    const malformed = await api('POST', '/oauth/register', {
      json: { redirect_uris: 'https://app.example/cb' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toBe('invalid_request');
  });

  it('registers a client that names its application_type, as MCP 2026-07-28 clients must', async () => {
    for (const [applicationType, uri] of [
      ['native', 'http://127.0.0.1:43117/callback'],
      ['web', 'https://app.example/cb'],
    ]) {
      const response = await api('POST', '/oauth/register', {
        json: { redirect_uris: [uri], application_type: applicationType, token_endpoint_auth_method: 'none' },
      });
      expect(response.status, applicationType).toBe(201);
      expect(response.body.redirect_uris, applicationType).toEqual([uri]);
    }
  });

  it('rate-limits registrations per source address, far above what one client needs', async () => {
    const source = randomLoopbackAddress();
    const body = { client_name: 'Eager', redirect_uris: ['http://127.0.0.1/cb'] };

    // Prepare/Act: register from one address until refused (60 a minute; two windows at most).
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<typeof postJsonFrom>> | undefined;
    while (!refused && statuses.length < 121) {
      const response = await postJsonFrom(source, '/oauth/register', body);
      statuses.push(response.status);
      if (response.status !== 201) refused = response;
    }

    // Assess
    expect(refused?.status).toBe(429);
    expect(refused?.body.error).toBe('temporarily_unavailable');
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(0);
    expect(statuses.length - 1).toBeGreaterThanOrEqual(60);
    expect((await postJsonFrom(randomLoopbackAddress(), '/oauth/register', body)).status).toBe(201);
  });
});
