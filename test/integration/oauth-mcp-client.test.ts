import { randomUUID } from 'node:crypto';
import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { decodeJwt } from 'jose';
import { describe, expect, inject, it } from 'vitest';
import { api } from '../support/api.ts';
import { documentHits, scriptDocument } from '../support/document-host.ts';
import {
  CLIENT_NAME,
  callbackParams,
  MemoryProvider,
  REDIRECT_URL,
  recordingFetch,
} from '../support/mcp-client.ts';
import { approveAuthorization, baseUrl } from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';

/**
 * Interoperability with the MCP TypeScript SDK's client-side OAuth: its `auth()` orchestrator,
 * driven the way its HTTP transports drive it, with an in-memory OAuthClientProvider. Where
 * oauth-flow.test.ts checks the protocol with a spec-strict client, this checks that the client
 * most assistants build on discovers our server, registers (or presents a Client ID Metadata
 * Document), gets consent, exchanges the code for the resource it found, and refreshes.
 */
const editsResource = () => `${baseUrl()}/api/v1/edits`;
const host = () => inject('documentHost');
const httpsHost = () => inject('documentHostHttps');

describe('the MCP TypeScript SDK as the client (auth() with an OAuthClientProvider)', () => {
  it('discovers from the 401, registers, gets consent, exchanges the code for the edits API and refreshes', async () => {
    // Prepare: a console user who owns a business; an assistant with nothing stored yet.
    const tenant = await arrangeTenant();
    const provider = new MemoryProvider();
    const { fetchFn, named } = recordingFetch();
    const serverUrl = editsResource();

    // Act: a call without a token, and the challenge read as the SDK's transports read it.
    const challenge = await fetch(`${serverUrl}/claims`);
    expect(challenge.status).toBe(401);
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(challenge);
    expect(resourceMetadataUrl?.href).toBe(`${baseUrl()}/.well-known/oauth-protected-resource/api/v1/edits`);
    expect(scope).toBe('edits:read edits:write');
    // A client that wants refresh tokens adds offline_access, which our metadata lists, to the
    // challenge's scopes; the SDK registers with and asks for what it is given.
    const options = { serverUrl, resourceMetadataUrl, scope: `${scope} offline_access`, fetchFn };
    const started = await auth(provider, options);

    // Assess: the SDK registered (RFC 7591), bound the registration to our issuer, and sent the
    // browser to our authorization endpoint with PKCE, state, the scopes and the resource.
    expect(started).toBe('REDIRECT');
    expect(named('POST', '/oauth/register')).toHaveLength(1);
    expect(provider.savedClientInformation).toHaveLength(1);
    const client = provider.savedClientInformation[0];
    expect(client).toMatchObject({
      client_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      client_name: CLIENT_NAME,
      redirect_uris: [REDIRECT_URL],
      token_endpoint_auth_method: 'none',
      scope: 'edits:read edits:write offline_access',
      issuer: baseUrl(),
    });
    expect(provider.authorizationUrls).toHaveLength(1);
    const authorizationUrl = provider.authorizationUrls[0] as URL;
    expect(`${authorizationUrl.origin}${authorizationUrl.pathname}`).toBe(`${baseUrl()}/oauth/authorize`);
    expect(Object.fromEntries(authorizationUrl.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: client?.client_id,
      redirect_uri: REDIRECT_URL,
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
      state: provider.states[0],
      scope: 'edits:read edits:write offline_access',
      resource: serverUrl,
    });

    // Act: the browser goes there; the console user approves; the browser comes back with a code.
    const { callback } = await approveAuthorization(authorizationUrl, tenant.tokens.owner);
    const returned = callbackParams(callback);
    expect(returned.iss).toBe(baseUrl());
    expect(returned.state).toBe(provider.states[0]);
    const exchanged = await auth(provider, { ...options, authorizationCode: returned.code as string });

    // Assess: tokens for the edits API (the SDK sent `resource` at both endpoints), which work there.
    expect(exchanged).toBe('AUTHORIZED');
    expect(named('POST', '/oauth/token').map((r) => r.form)).toEqual([
      expect.objectContaining({
        grant_type: 'authorization_code',
        client_id: client?.client_id,
        redirect_uri: REDIRECT_URL,
        resource: serverUrl,
      }),
    ]);
    const tokens = provider.current;
    expect(tokens).toMatchObject({
      token_type: 'Bearer',
      expires_in: 900,
      scope: 'edits:read edits:write offline_access',
      refresh_token: expect.stringMatching(/^rt_/),
      issuer: baseUrl(),
    });
    expect(decodeJwt(tokens.access_token)).toMatchObject({
      iss: baseUrl(),
      aud: serverUrl,
      client_id: client?.client_id,
    });
    const claims = await api('GET', '/api/v1/edits/claims', { token: tokens.access_token });
    expect(claims.status).toBe(200);
    expect(claims.body.data).toEqual([
      { business_id: tenant.businessId, name: expect.any(String), role: 'owner' },
    ]);

    // Act: what the transports do on the next 401: auth() again, which refreshes with the stored token.
    const refreshed = await auth(provider, options);

    // Assess: a refresh-token grant for the same resource, a rotated refresh token, a new access token.
    expect(refreshed).toBe('AUTHORIZED');
    expect(named('POST', '/oauth/token')[1]?.form).toMatchObject({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client?.client_id,
      resource: serverUrl,
    });
    expect(named('POST', '/oauth/register')).toHaveLength(1);
    expect(provider.authorizationUrls).toHaveLength(1);
    const next = provider.current;
    expect(next.refresh_token).toMatch(/^rt_/);
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect(next.access_token).not.toBe(tokens.access_token);
    expect(decodeJwt(next.access_token)).toMatchObject({ aud: serverUrl, client_id: client?.client_id });
    expect((await api('GET', '/api/v1/edits/claims', { token: next.access_token })).status).toBe(200);
  });

  it('finds the tool server’s metadata from its URL alone, and gets a session for /mcp: no refresh token without offline_access', async () => {
    // Prepare: /mcp itself does not answer yet; the SDK only needs its well-known metadata here.
    const tenant = await arrangeTenant();
    const provider = new MemoryProvider();
    const { fetchFn, named } = recordingFetch();
    const options = { serverUrl: `${baseUrl()}/mcp`, fetchFn };

    // Act
    const started = await auth(provider, options);
    const authorizationUrl = provider.authorizationUrls[0] as URL;
    const { callback } = await approveAuthorization(authorizationUrl, tenant.tokens.owner);
    const exchanged = await auth(provider, {
      ...options,
      authorizationCode: callbackParams(callback).code as string,
    });

    // Assess: path-aware RFC 9728 discovery, the PRM's scopes asked for, an access token for /mcp.
    expect([started, exchanged]).toEqual(['REDIRECT', 'AUTHORIZED']);
    expect(named('GET', '/.well-known/oauth-protected-resource/mcp')).not.toEqual([]);
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${baseUrl()}/mcp`);
    expect(authorizationUrl.searchParams.get('scope')).toBe('edits:read edits:write');
    expect(decodeJwt(provider.current.access_token)).toMatchObject({ aud: `${baseUrl()}/mcp` });
    expect(provider.current).toMatchObject({ scope: 'edits:read edits:write' });
    expect(provider.current.refresh_token).toBeUndefined();

    // Act and assess: on the next 401 there is nothing to refresh with: the SDK asks for consent again.
    expect(await auth(provider, options)).toBe('REDIRECT');
    expect(named('POST', '/oauth/token')).toHaveLength(1);
    expect(provider.authorizationUrls).toHaveLength(2);
  });
});

describe('the MCP TypeScript SDK with a Client ID Metadata Document', () => {
  it('presents its https clientMetadataUrl as client_id instead of registering; our server fetches it; the flow completes', async () => {
    // Prepare: the client's document at an https URL (the SDK takes no other), on the document
    // host, which the harness trusts and its SSRF guard may reach.
    const tenant = await arrangeTenant();
    const path = `/clients/${randomUUID()}.json`;
    const clientMetadataUrl = `${httpsHost()}${path}`;
    await scriptDocument(host(), path, {
      status: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'max-age=300' },
      body: JSON.stringify({
        client_id: clientMetadataUrl,
        client_name: CLIENT_NAME,
        redirect_uris: [REDIRECT_URL],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      }),
    });
    const provider = new MemoryProvider({ clientMetadataUrl });
    const { fetchFn, named } = recordingFetch();
    const options = { serverUrl: editsResource(), scope: 'edits:read edits:write offline_access', fetchFn };

    // Act: discovery from the resource URL alone (path-aware RFC 9728, then RFC 8414), authorize.
    const started = await auth(provider, options);
    const discovered = [
      named('GET', '/.well-known/oauth-protected-resource/api/v1/edits').length,
      named('GET', '/.well-known/oauth-authorization-server').length,
    ];
    const authorizationUrl = provider.authorizationUrls[0] as URL;
    const { requestId, callback } = await approveAuthorization(authorizationUrl, tenant.tokens.owner);
    const returned = callbackParams(callback);
    const exchanged = await auth(provider, { ...options, authorizationCode: returned.code as string });

    // Assess: the SDK chose the document over registration, as our metadata allows.
    expect(started).toBe('REDIRECT');
    expect(discovered).toEqual([1, 1]);
    expect(named('POST', '/oauth/register')).toEqual([]);
    expect(authorizationUrl.searchParams.get('client_id')).toBe(clientMetadataUrl);
    expect(authorizationUrl.searchParams.get('resource')).toBe(editsResource());
    // Our server fetched the document over https and named the client as it says.
    expect(await documentHits(host(), path)).toBe(1);
    const consent = await api('GET', `/api/v1/oauth/requests/${requestId}`, { token: tenant.tokens.owner });
    expect(consent.body).toMatchObject({
      client_id: clientMetadataUrl,
      client_name: CLIENT_NAME,
      status: 'approved',
    });
    expect(returned).toMatchObject({ iss: baseUrl(), state: provider.states[0] });

    // Assess: tokens for the document client and the edits API.
    expect(exchanged).toBe('AUTHORIZED');
    expect(named('POST', '/oauth/token')[0]?.form).toMatchObject({
      grant_type: 'authorization_code',
      client_id: clientMetadataUrl,
      resource: editsResource(),
    });
    const tokens = provider.current;
    expect(decodeJwt(tokens.access_token)).toMatchObject({
      aud: editsResource(),
      client_id: clientMetadataUrl,
    });
    const claims = await api('GET', '/api/v1/edits/claims', { token: tokens.access_token });
    expect(claims.status).toBe(200);
    expect(claims.body.data).toEqual([
      { business_id: tenant.businessId, name: expect.any(String), role: 'owner' },
    ]);

    // Act and assess: the refresh works for a document client too.
    expect(await auth(provider, options)).toBe('AUTHORIZED');
    expect(provider.current.refresh_token).not.toBe(tokens.refresh_token);
  });
});
