import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { describe, expect, inject, it } from 'vitest';
import { localConsoleUrl } from '../../infra/local/dev-console.ts';
import { LOCAL_AUDIENCE } from '../../infra/local/dev-issuer.ts';
import { DEV_SIGN_IN_PATHS } from '../../infra/local/dev-sign-in.ts';
import { api } from '../support/api.ts';

// The dev issuer's sign-in as the console pages' adapter meets it (Cognito's authorization code
// + PKCE endpoints), and the token minting scripts use, over HTTP against the harness.

const harness = inject('harness');
const redirectUri = `${localConsoleUrl(harness.baseUrl)}/auth/callback`;
const url = (path: string) => `${harness.baseUrl}${path}`;

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://console.example' },
  body: new URLSearchParams(fields),
  redirect: 'manual' as const,
});

/** Sign in on the authorize page as `email`; the code it sends to the redirect URI, and its verifier. */
async function codeFor(email: string, overrides: Record<string, string> = {}) {
  const verifier = randomBytes(32).toString('base64url');
  const response = await fetch(
    url(DEV_SIGN_IN_PATHS.authorize),
    form({
      response_type: 'code',
      client_id: LOCAL_AUDIENCE,
      redirect_uri: redirectUri,
      state: 'the-state',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      email,
      ...overrides,
    }),
  );
  return { response, verifier, location: response.headers.get('location') ?? '' };
}

const exchange = async (code: string, verifier: string, overrides: Record<string, string> = {}) => {
  const response = await fetch(
    url(DEV_SIGN_IN_PATHS.token),
    form({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: LOCAL_AUDIENCE,
      code_verifier: verifier,
      ...overrides,
    }),
  );
  return { response, body: (await response.json()) as Record<string, string> };
};

describe('dev sign-in: authorization code + PKCE, as Cognito speaks it', () => {
  it('gives a code for the redirect URI, and the code with its verifier an access token, once', async () => {
    const { response, verifier, location } = await codeFor('Someone@Example.com');
    expect(response.status).toBe(302);
    const back = new URL(location);
    expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
    expect(back.searchParams.get('state')).toBe('the-state');
    const code = back.searchParams.get('code') ?? '';

    const first = await exchange(code, verifier);
    expect(first.response.status).toBe(200);
    // A page on another origin may read the answer, as from Cognito's token endpoint.
    expect(first.response.headers.get('access-control-allow-origin')).toBe('*');
    expect(first.response.headers.get('cache-control')).toBe('no-store');
    expect(first.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600 });
    expect(decodeJwt(first.body.access_token ?? '')).toMatchObject({
      email: 'someone@example.com',
      client_id: LOCAL_AUDIENCE,
      token_use: 'access',
    });
    const me = await api('GET', '/api/v1/oauth/grants', { token: first.body.access_token });
    expect(me.status).toBe(200);

    const again = await exchange(code, verifier);
    expect(again.response.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
  });

  it('refuses a wrong verifier or redirect URI, and the code is spent by the attempt', async () => {
    for (const wrong of <Record<string, string>[]>[
      { code_verifier: randomBytes(32).toString('base64url') },
      { redirect_uri: `${redirectUri}x` },
    ]) {
      const { location, verifier } = await codeFor('someone@example.com');
      const code = new URL(location).searchParams.get('code') ?? '';
      const refused = await exchange(code, verifier, wrong);
      expect(refused.response.status).toBe(400);
      expect(refused.body.error).toBe('invalid_grant');
      expect((await exchange(code, verifier)).body.error).toBe('invalid_grant');
    }
  });

  it('answers 400 with the reason to a bad token request', async () => {
    const { location, verifier } = await codeFor('someone@example.com');
    const code = new URL(location).searchParams.get('code') ?? '';
    const cases = [
      [{ grant_type: 'password' }, 'unsupported_grant_type'],
      [{ client_id: 'another-client' }, 'invalid_client'],
      [{ code_verifier: 'short' }, 'invalid_request'],
    ] as const;
    for (const [overrides, error] of cases) {
      const refused = await exchange(code, verifier, overrides);
      expect(refused.response.status).toBe(400);
      expect(refused.body.error).toBe(error);
    }
    const json = await fetch(url(DEV_SIGN_IN_PATHS.token), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(400);
    expect(((await json.json()) as { error_description: string }).error_description).toMatch(
      /x-www-form-urlencoded/,
    );
  });

  it('never redirects to an unregistered redirect URI or client, and requires PKCE with S256', async () => {
    const refusals: Record<string, string>[] = [
      { redirect_uri: 'https://evil.example/callback' },
      { client_id: 'another-client' },
      { code_challenge_method: 'plain' },
      { code_challenge: 'short' },
    ];
    for (const overrides of refusals) {
      const { response } = await codeFor('someone@example.com', overrides);
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    }
    const notAnEmail = await codeFor('not-an-email');
    expect(notAnEmail.response.status).toBe(400);
    expect(await notAnEmail.response.text()).toContain('is not an e-mail address');
  });

  it('logs out only to the registered sign-out URL', async () => {
    const logout = (logoutUri: string) =>
      fetch(
        url(
          `${DEV_SIGN_IN_PATHS.logout}?${new URLSearchParams({ client_id: LOCAL_AUDIENCE, logout_uri: logoutUri })}`,
        ),
        {
          redirect: 'manual',
        },
      );
    const home = `${localConsoleUrl(harness.baseUrl)}/`;
    const back = await logout(home);
    expect(back.status).toBe(302);
    expect(back.headers.get('location')).toBe(home);
    const elsewhere = await logout('https://evil.example/');
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers.get('location')).toBeNull();
  });
});

describe('POST /console/dev/token (scripts and tests)', () => {
  it('mints a token for an e-mail address, and answers 400 with the reason to a bad request', async () => {
    const token = (request: Parameters<typeof api>[2]) => api('POST', '/console/dev/token', request);

    expect((await token({ json: { email: 'Someone@Example.com' } })).status).toBe(200);
    const bad = [
      await token({ json: { email: 'not-an-email' } }),
      await token({ json: { email: 'a@b.example', role: 'admin' } }),
      await token({ raw: '{"email":', headers: { 'content-type': 'application/json' } }),
      await token({ raw: JSON.stringify({ email: 'a@b.example' }) }),
      await token({ json: { email: `${'a'.repeat(2000)}@b.example` } }),
    ];
    expect(bad.map((response) => response.status)).toEqual([400, 400, 400, 400, 400]);
    expect(bad.map((response) => response.body.message)).toEqual([
      expect.stringMatching(/email/i),
      expect.stringMatching(/role/),
      expect.stringMatching(/not valid JSON/),
      expect.stringMatching(/content-type application\/json/),
      expect.stringMatching(/at most 1024 bytes/),
    ]);
  });
});
