import { decodeJwt, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { readSigningKeys } from '#lib/oauth/signing-key.ts';
import { grantIdOf, mcpStatus, readGrant, refreshWith, setGrant } from '../support/grant-items.ts';
import { obtainTokens, postForm } from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';

/** POST /oauth/revoke (RFC 7009): either kind of token ends its grant, for its own client only. */
async function freshGrant() {
  const tenant = await arrangeTenant();
  const { client, tokens } = await obtainTokens({ userToken: tenant.tokens.owner });
  return {
    clientId: client.client_id,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token as string,
    grantId: grantIdOf(tokens.access_token),
  };
}

const revoke = (form: Record<string, string>) => postForm('/oauth/revoke', form);

describe('revoking a refresh token', () => {
  it('ends its grant, and answers 200 for a token it does not know', async () => {
    const { clientId, accessToken, refreshToken } = await freshGrant();

    const unknown = await revoke({ token: 'rt_unknown', client_id: clientId });
    const known = await revoke({ token: refreshToken, client_id: clientId });

    expect(unknown.status).toBe(200);
    expect(known.status).toBe(200);
    expect((await refreshWith(refreshToken, clientId)).body.error).toBe('invalid_grant');
    expect(await mcpStatus(accessToken)).toBe(401);
  });

  it('finds it whatever the hint says', async () => {
    const { clientId, refreshToken, grantId } = await freshGrant();

    const response = await revoke({
      token: refreshToken,
      client_id: clientId,
      token_type_hint: 'access_token',
    });

    expect(response.status).toBe(200);
    expect((await readGrant(grantId))?.revoked_at).toEqual(expect.any(String));
  });
});

describe('revoking an access token', () => {
  it.each([
    ['with the access_token hint', { token_type_hint: 'access_token' }],
    ['with the wrong hint', { token_type_hint: 'refresh_token' }],
    ['with no hint', {}],
  ])(
    'ends its grant %s: its access tokens are 401 at /mcp, its refresh tokens invalid_grant',
    async (_name, hint) => {
      const { clientId, accessToken, refreshToken, grantId } = await freshGrant();
      expect(await mcpStatus(accessToken)).toBe(200);

      const response = await revoke({ token: accessToken, client_id: clientId, ...hint });

      expect(response.status).toBe(200);
      expect(await mcpStatus(accessToken)).toBe(401);
      expect((await refreshWith(refreshToken, clientId)).body.error).toBe('invalid_grant');
      expect((await readGrant(grantId))?.revoked_at).toEqual(expect.any(String));
    },
  );

  it('revokes with an expired but genuine access token', async () => {
    // Prepare: a real grant; its access token has expired (signed with the published key file).
    const { clientId, grantId, accessToken } = await freshGrant();
    const expired = await resignedAccessToken(accessToken, { expiredSecondsAgo: 60 });

    const response = await revoke({ token: expired, client_id: clientId });

    expect(response.status).toBe(200);
    expect((await readGrant(grantId))?.revoked_at).toEqual(expect.any(String));
  });

  it('changes nothing for a token with our claims signed by a key we never published', async () => {
    const { clientId, grantId, accessToken } = await freshGrant();
    const forged = await forgedAccessToken(accessToken);

    const response = await revoke({ token: forged, client_id: clientId });

    expect(response.status).toBe(200);
    expect((await readGrant(grantId))?.revoked_at).toBeUndefined();
    expect(await mcpStatus(accessToken)).toBe(200);
  });

  it('changes nothing for a genuine token of another issuer or audience', async () => {
    const { clientId, grantId, accessToken } = await freshGrant();
    const otherAudience = await resignedAccessToken(accessToken, { aud: 'https://other.example/mcp' });
    const otherIssuer = await resignedAccessToken(accessToken, { iss: 'https://other.example' });

    for (const token of [otherAudience, otherIssuer]) {
      expect((await revoke({ token, client_id: clientId })).status).toBe(200);
    }
    expect((await readGrant(grantId))?.revoked_at).toBeUndefined();
  });
});

describe('another client’s token (RFC 7009 §2.1)', () => {
  it.each([
    ['refresh token', 'refreshToken'],
    ['access token', 'accessToken'],
  ] as const)(
    'refuses to revoke a %s for another client_id: 400 invalid_grant, grant kept',
    async (_name, kind) => {
      const grant = await freshGrant();

      const response = await revoke({ token: grant[kind], client_id: 'another-client' });

      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
      expect((await readGrant(grant.grantId))?.revoked_at).toBeUndefined();
      expect((await refreshWith(grant.refreshToken, grant.clientId)).status).toBe(200);
    },
  );

  it('refuses a request without client_id: 400 invalid_request, grant kept', async () => {
    const { clientId, refreshToken, grantId } = await freshGrant();

    const response = await revoke({ token: refreshToken });

    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_request');
    expect((await readGrant(grantId))?.revoked_at).toBeUndefined();
    expect((await refreshWith(refreshToken, clientId)).status).toBe(200);
  });
});

describe('a grant that ended', () => {
  it('still takes a revocation of its tokens', async () => {
    const { clientId, refreshToken, grantId } = await freshGrant();
    await setGrant(grantId, { ends_at_epoch: Math.floor(Date.now() / 1000) - 1 });

    expect((await revoke({ token: refreshToken, client_id: clientId })).status).toBe(200);
    expect((await readGrant(grantId))?.revoked_at).toEqual(expect.any(String));
  });
});

/** The same claims signed again with the stack's real signing key, some of them changed. */
async function resignedAccessToken(
  like: string,
  change: { expiredSecondsAgo?: number; aud?: string; iss?: string },
): Promise<string> {
  const { current } = (await readSigningKeys()) as { current: JWK };
  return signedLike(like, await importJWK(current, 'ES256'), current.kid as string, change);
}

/** The same claims signed by a key nobody published, under the real key's kid. */
async function forgedAccessToken(like: string): Promise<string> {
  const { current } = (await readSigningKeys()) as { current: JWK };
  const { privateKey } = await generateKeyPair('ES256');
  return signedLike(like, privateKey, current.kid as string, {});
}

function signedLike(
  like: string,
  key: Parameters<SignJWT['sign']>[0],
  kid: string,
  change: { expiredSecondsAgo?: number; aud?: string; iss?: string },
): Promise<string> {
  const claims = decodeJwt(like);
  const now = Math.floor(Date.now() / 1000);
  const expiresAt = change.expiredSecondsAgo === undefined ? now + 300 : now - change.expiredSecondsAgo;
  return new SignJWT({ client_id: claims.client_id, scope: claims.scope, gid: claims.gid })
    .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' })
    .setIssuer(change.iss ?? String(claims.iss))
    .setAudience(change.aud ?? String(claims.aud))
    .setSubject(String(claims.sub))
    .setIssuedAt(expiresAt - 900)
    .setExpirationTime(expiresAt)
    .sign(key);
}
