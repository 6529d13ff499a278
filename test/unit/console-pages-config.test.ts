import { describe, expect, it } from 'vitest';
import { ConsolePagesConfig } from '../../console-pages/config.ts';
import { consolePagesHeaders } from '../../console-pages/headers.ts';

const cognito = {
  apiUrl: 'https://abc123.execute-api.eu-west-1.amazonaws.com',
  signIn: {
    authorizeUrl: 'https://shop.auth.eu-west-1.amazoncognito.com/oauth2/authorize',
    tokenUrl: 'https://shop.auth.eu-west-1.amazoncognito.com/oauth2/token',
    logoutUrl: 'https://shop.auth.eu-west-1.amazoncognito.com/logout',
    clientId: '4abc',
    scopes: ['openid', 'email'],
  },
};

describe('console pages config.json', () => {
  it('accepts what CDK writes for Cognito managed login', () => {
    expect(ConsolePagesConfig.safeParse(cognito).success).toBe(true);
  });

  it('refuses a script URL, a missing client, an unknown field and a scope with a space', () => {
    const refused = [
      { ...cognito, apiUrl: 'javascript:alert(1)' },
      { ...cognito, signIn: { ...cognito.signIn, clientId: '' } },
      { ...cognito, extra: true },
      { ...cognito, signIn: { ...cognito.signIn, scopes: ['openid email'] } },
    ];
    expect(refused.map((config) => ConsolePagesConfig.safeParse(config).success)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('console pages headers', () => {
  it('let the pages connect only to themselves, the API and the sign-in origin, and forbid framing', () => {
    const headers = consolePagesHeaders({
      apiOrigins: [`${cognito.apiUrl}/`],
      signInOrigin: cognito.signIn.tokenUrl,
    });

    expect(headers['content-security-policy']).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
        "connect-src 'self' https://abc123.execute-api.eu-west-1.amazonaws.com https://shop.auth.eu-west-1.amazoncognito.com; " +
        "object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    );
    expect(headers).toMatchObject({
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'strict-transport-security': 'max-age=31536000',
    });
  });

  it('refuses an origin that is not a URL rather than write it into the policy', () => {
    expect(() =>
      consolePagesHeaders({ apiOrigins: ["'unsafe-inline'"], signInOrigin: 'https://a.example' }),
    ).toThrow();
  });
});
