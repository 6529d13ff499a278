import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JWK } from 'jose';
import { inject } from 'vitest';
import type { AuthKind } from '#lib/auth/principal.ts';
import type { RouteDefinition } from '#lib/http/route.ts';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, localSubject } from '../../infra/local/dev-issuer.ts';
import type { TenantWorld } from './tenant-world.ts';
import { craftToken } from './tokens.ts';

/**
 * Every credential a route must refuse, for the tenant matrix. `unauthenticated` ones are not a
 * credential the route accepts at all (401 with WWW-Authenticate); `forbidden` ones are valid
 * credentials of the route's kind that do not reach the victim's data (403 or 404).
 */
export interface RefusedCredential {
  name: string;
  headers: Record<string, string>;
  expect: 'unauthenticated' | 'forbidden';
}

/** The route kinds the matrix knows; any other kind fails the matrix until it is added here. */
export const MATRIX_AUTH_KINDS = ['console', 'edits', 'agent', 'internal', 'mcp', 'none'] as const;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A JWT with `alg: none` and no signature, carrying the victim owner's claims. */
function unsignedToken(email: string): string {
  const jwk = JSON.parse(readFileSync(join(inject('harness').stateDir, 'issuer-key.json'), 'utf8')) as JWK;
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${encode({ alg: 'none', typ: 'JWT', kid: jwk.kid })}.${encode({
    iss: LOCAL_ISSUER,
    aud: LOCAL_AUDIENCE,
    sub: localSubject(email),
    email,
    email_verified: true,
    iat: now,
    exp: now + 3600,
  })}.`;
}

/** Credentials that are not valid anywhere, or not valid for this route's kind (all 401). */
async function unauthenticated(world: TenantWorld, kind: AuthKind): Promise<RefusedCredential[]> {
  const email = world.victim.emails.owner;
  const list: RefusedCredential[] = [
    { name: 'anonymous', headers: {}, expect: 'unauthenticated' },
    { name: 'malformed bearer', headers: bearer('not-a-token'), expect: 'unauthenticated' },
    { name: 'malformed JWT', headers: bearer('eyJhbGciOiJFUzI1NiJ9.e30.c2ln'), expect: 'unauthenticated' },
    { name: 'Basic scheme', headers: { authorization: 'Basic dXNlcjpwYXNz' }, expect: 'unauthenticated' },
    { name: 'empty bearer', headers: { authorization: 'Bearer ' }, expect: 'unauthenticated' },
    {
      name: 'expired JWT',
      headers: bearer(await craftToken(email, { expiresIn: -600 })),
      expect: 'unauthenticated',
    },
    {
      name: 'JWT of another issuer',
      headers: bearer(await craftToken(email, { issuer: 'https://evil.example' })),
      expect: 'unauthenticated',
    },
    {
      name: 'JWT for another audience',
      headers: bearer(await craftToken(email, { audience: 'another-app' })),
      expect: 'unauthenticated',
    },
    { name: 'JWT with alg none', headers: bearer(unsignedToken(email)), expect: 'unauthenticated' },
    {
      name: 'JWT signed by a foreign key',
      headers: bearer(await craftToken(email, { foreignKey: true })),
      expect: 'unauthenticated',
    },
    {
      name: 'unknown agent key',
      headers: bearer(`agk_${randomBytes(32).toString('base64url')}`),
      expect: 'unauthenticated',
    },
    { name: 'wrong internal key', headers: { 'x-internal-api-key': 'ik_wrong' }, expect: 'unauthenticated' },
  ];
  // Valid credentials of the victim's own, presented where their kind is not accepted.
  const internalKey = inject('harness').credentials.internal_api_key;
  const others: Record<string, Record<string, string>> = {
    'console JWT (victim owner)': bearer(world.victim.tokens.owner),
    'agent key (victim business)': bearer(world.victim.agentKey),
    'internal key': { 'x-internal-api-key': internalKey },
    'internal key as bearer': bearer(internalKey),
    'assistant token for the edits API (victim owner)': bearer(world.victim.assistantEditsToken),
    'assistant token for the tool server (victim owner)': bearer(world.victim.assistantMcpToken),
  };
  const acceptedBy: Record<string, AuthKind[]> = {
    'console JWT (victim owner)': ['console', 'edits'],
    'agent key (victim business)': ['agent'],
    'internal key': ['internal'],
    'internal key as bearer': [],
    'assistant token for the edits API (victim owner)': ['edits'],
    'assistant token for the tool server (victim owner)': ['mcp'],
  };
  for (const [name, headers] of Object.entries(others)) {
    if (!acceptedBy[name]?.includes(kind)) list.push({ name, headers, expect: 'unauthenticated' });
  }
  return list;
}

/** Valid credentials of the route's kind that belong to someone else (403/404). */
function forbidden(world: TenantWorld, route: RouteDefinition): RefusedCredential[] {
  const users = (): RefusedCredential[] => [
    { name: "other tenant's owner", headers: bearer(world.attacker.tokens.owner), expect: 'forbidden' },
    { name: "other tenant's editor", headers: bearer(world.attacker.tokens.editor), expect: 'forbidden' },
    { name: "other tenant's viewer", headers: bearer(world.attacker.tokens.viewer), expect: 'forbidden' },
    { name: 'user with no membership', headers: bearer(world.attacker.strangerToken), expect: 'forbidden' },
  ];
  switch (route.auth) {
    case 'console':
      return users();
    case 'edits':
      return [
        ...users(),
        {
          name: "another user's assistant token",
          headers: bearer(world.attacker.assistantEditsToken),
          expect: 'forbidden',
        },
      ];
    case 'agent':
      return [
        {
          name: 'agent key of another business',
          headers: bearer(world.attacker.agentKey),
          expect: 'forbidden',
        },
        ...(route.method === 'GET'
          ? []
          : [
              {
                name: 'read-only agent key on a write',
                headers: bearer(world.victim.readOnlyAgentKey),
                expect: 'forbidden' as const,
              },
            ]),
      ];
    // One key serves the whole platform: there is no other tenant's internal key.
    case 'internal':
      return [];
    // The tool server takes ids in JSON-RPC tool calls, not in the path: mcp-tenant-matrix.test.ts.
    case 'mcp':
      return [];
    case 'none':
      return [];
    default:
      throw new Error(`${route.operationId}: the tenant matrix does not know auth kind '${route.auth}'`);
  }
}

/** Every credential the route must refuse when it is asked for the victim's data. */
export async function refusedCredentials(
  world: TenantWorld,
  route: RouteDefinition,
): Promise<RefusedCredential[]> {
  if (!(MATRIX_AUTH_KINDS as readonly string[]).includes(route.auth)) {
    throw new Error(`${route.operationId}: the tenant matrix does not know auth kind '${route.auth}'`);
  }
  if (route.auth === 'none') return [];
  return [...(await unauthenticated(world, route.auth)), ...forbidden(world, route)];
}
