import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cognitoAccessTokenClaims } from '../../infra/local/dev-issuer.ts';

/**
 * JWT_KEY_SET, the issuer's key set a deployment hands the console functions: read when the
 * console auth loads (lib/auth/console-token.ts), refused there when it is not a key set, and used
 * to verify without asking the issuer.
 */
const ISSUER = 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_KeySet123';
const CLIENT_ID = 'keyset0client0id';
let closedJwksUrl: string;

/** A fresh console-token module (it keeps its verifier per container, as in Lambda). */
async function loadConsoleAuth(keySet: string | undefined) {
  vi.resetModules();
  vi.stubEnv('JWT_ISSUER', ISSUER);
  vi.stubEnv('JWT_AUDIENCE', CLIENT_ID);
  vi.stubEnv('JWKS_URL', closedJwksUrl);
  vi.stubEnv('JWT_KEY_SET', keySet);
  return (await import('#lib/auth/console-token.ts')).consoleAuth;
}

beforeAll(async () => {
  // A port nothing listens on: any fetch of the key set would fail (as a 503).
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  closedJwksUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/.well-known/jwks.json`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('JWT_KEY_SET', () => {
  it('verifies a token with a key of the given set, with the issuer unreachable', async () => {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const kid = randomUUID();
    const keySet = { keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' }] };
    const consoleAuth = await loadConsoleAuth(JSON.stringify(keySet));
    consoleAuth.prepare();
    const token = await new SignJWT(
      cognitoAccessTokenClaims({ subject: 'sub-1', clientId: CLIENT_ID, email: 'a@example.com' }),
    )
      .setProtectedHeader({ alg: 'RS256', kid })
      .setIssuer(ISSUER)
      .setSubject('sub-1')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);

    await expect(consoleAuth.authenticate({ authorization: `Bearer ${token}` })).resolves.toMatchObject({
      subject: 'sub-1',
      email: 'a@example.com',
    });
  });

  it('fails the load when it is not JSON', async () => {
    const consoleAuth = await loadConsoleAuth('{keys: [');

    expect(() => consoleAuth.prepare()).toThrow(
      'JWT_KEY_SET must be a JSON Web Key Set ({"keys": [...]}); it is not JSON',
    );
  });

  it('fails the load when it is JSON but not a key set, naming where', async () => {
    const notAnObject = await loadConsoleAuth('[]');
    expect(() => notAnObject.prepare()).toThrow(
      'JWT_KEY_SET must be a JSON Web Key Set ({"keys": [...]}); wrong at: (root)',
    );
    const consoleAuth = await loadConsoleAuth('{"keys":[{"kid":"k1","n":"AQAB"}]}');
    expect(() => consoleAuth.prepare()).toThrow(
      'JWT_KEY_SET must be a JSON Web Key Set ({"keys": [...]}); wrong at: keys.0.kty',
    );
  });
});
