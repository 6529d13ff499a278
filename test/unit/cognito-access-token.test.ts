import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserPrincipal } from '#lib/auth/principal.ts';
import { userIdFor } from '#lib/auth/user-id.ts';
import { cognitoAccessTokenClaims } from '../../infra/local/dev-issuer.ts';

/**
 * Tokens shaped exactly like a Cognito user pool's, checked by the real console auth path
 * (lib/auth/console-token.ts) against a JWKS served over HTTP as Cognito serves it. Cognito signs
 * with RS256; its access tokens carry token_use, client_id, scope, username and no aud; its ID
 * tokens carry aud and token_use "id".
 */
const ISSUER = 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf123';
const CLIENT_ID = '4h57kd9example0client0id0';
const SUB = 'f1a2b3c4-0000-4000-8000-00000000abcd';

let server: Server;
let sign: (claims: JWTPayload, options?: { issuer?: string; expiresIn?: number }) => Promise<string>;
let consoleAuth: typeof import('#lib/auth/console-token.ts').consoleAuth;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const kid = randomUUID();
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' }] });
  server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  process.env.JWT_ISSUER = ISSUER;
  process.env.JWT_AUDIENCE = CLIENT_ID;
  process.env.JWKS_URL = `http://127.0.0.1:${port}/.well-known/jwks.json`;
  ({ consoleAuth } = await import('#lib/auth/console-token.ts'));
  consoleAuth.prepare();

  sign = (claims, { issuer = ISSUER, expiresIn = 3600 } = {}) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid })
      .setIssuer(issuer)
      .setSubject(SUB)
      .setIssuedAt(now)
      .setExpirationTime(now + expiresIn)
      .sign(privateKey);
  };
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const authenticate = (token: string) => consoleAuth.authenticate({ authorization: `Bearer ${token}` });

/** An access token after our Pre Token Generation trigger ran. */
const accessToken = (overrides: Record<string, unknown> = {}) =>
  sign({
    ...cognitoAccessTokenClaims({
      subject: SUB,
      clientId: CLIENT_ID,
      email: 'admin@example.com',
      emailVerified: true,
    }),
    ...overrides,
  });

describe('console auth with Cognito tokens', () => {
  it('accepts an access token and reads the e-mail the trigger added', async () => {
    const token = await accessToken();

    expect(await authenticate(token)).toEqual<UserPrincipal>({
      kind: 'user',
      userId: userIdFor(ISSUER, SUB),
      issuer: ISSUER,
      subject: SUB,
      email: 'admin@example.com',
      emailVerified: true,
    });
  });

  it('has no aud in the access tokens it is tested with', async () => {
    const [, payload] = (await accessToken()).split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8'));

    expect(claims).not.toHaveProperty('aud');
    expect(claims).toMatchObject({ token_use: 'access', client_id: CLIENT_ID, username: SUB });
  });

  it('reads an unverified e-mail as unverified', async () => {
    const principal = await authenticate(await accessToken({ email_verified: 'false' }));

    expect(principal).toMatchObject({ email: 'admin@example.com', emailVerified: false });
  });

  it('accepts an access token without e-mail claims (trigger not run), with no e-mail', async () => {
    const {
      email: _e,
      email_verified: _v,
      ...claims
    } = cognitoAccessTokenClaims({
      subject: SUB,
      clientId: CLIENT_ID,
      email: 'x@example.com',
    });
    const principal = await authenticate(await sign(claims));

    expect(principal).toMatchObject({ email: undefined, emailVerified: false });
  });

  it('refuses an ID token of the same client', async () => {
    const idToken = await sign({
      aud: CLIENT_ID,
      token_use: 'id',
      email: 'admin@example.com',
      email_verified: true,
      'cognito:username': SUB,
    });

    await expect(authenticate(idToken)).rejects.toMatchObject({ statusCode: 401 });
  });

  it('refuses an access token of another app client', async () => {
    await expect(authenticate(await accessToken({ client_id: 'another-client' }))).rejects.toMatchObject({
      statusCode: 401,
    });
  });

  it('refuses an access token that names the client only in aud', async () => {
    const { client_id: _c, ...claims } = cognitoAccessTokenClaims({ subject: SUB, clientId: CLIENT_ID });
    await expect(authenticate(await sign({ ...claims, aud: CLIENT_ID }))).rejects.toMatchObject({
      statusCode: 401,
    });
  });

  it('refuses another user pool and an expired token', async () => {
    const otherPool = await sign(cognitoAccessTokenClaims({ subject: SUB, clientId: CLIENT_ID }), {
      issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Other',
    });
    const expired = await sign(cognitoAccessTokenClaims({ subject: SUB, clientId: CLIENT_ID }), {
      expiresIn: -60,
    });

    await expect(authenticate(otherPool)).rejects.toMatchObject({ statusCode: 401 });
    await expect(authenticate(expired)).rejects.toMatchObject({ statusCode: 401 });
  });
});
