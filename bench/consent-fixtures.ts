/**
 * The fixtures of the OAuth routes (bench/sample-fixtures.ts names them in ROUTE_FIXTURES), made
 * the way an assistant and the demo business's owner make them: an authorization request of the
 * sample client waiting on consent, that request approved (its code), the token endpoint's form to
 * exchange the code, and a grant the exchange made. The client is registered once per stack, since
 * registrations are rate limited per address.
 */
import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { registerSampleClient } from '../infra/local/sample-event.ts';
import { demoBusiness, oncePerStack, type Stack, send } from './fixture-calls.ts';

type Client = NonNullable<Awaited<ReturnType<typeof registerSampleClient>>['oauthClient']>;

/** The client the consent fixtures authorize, one per stack. */
const sampleClient = oncePerStack(async (stack): Promise<Client> => {
  const { oauthClient } = await registerSampleClient(stack.baseUrl);
  if (!oauthClient) throw new Error('no sample client');
  return oauthClient;
});

/** An assistant's authorization request, as the sample client sends it, waiting on consent. */
export async function consentRequest(
  stack: Stack,
): Promise<{ requestId: string; verifier: string; client: Client }> {
  const client = await sampleClient(stack);
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL('/oauth/authorize', stack.baseUrl);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    // As an assistant that stays connected asks: its exchange also writes a refresh token.
    scope: 'edits:read edits:write offline_access',
    resource: client.resource,
    state: 'bench',
  }).toString();
  const response = await fetch(url, { redirect: 'manual' });
  const location = response.headers.get('location');
  const requestId = location ? new URL(location, stack.baseUrl).searchParams.get('request_id') : null;
  if (response.status !== 302 || !requestId) {
    throw new Error(`authorizing the sample client answered ${response.status} (${location})`);
  }
  return { requestId, verifier, client };
}

/** A consent request approved by the demo business's owner: its code, for the sample client. */
async function approvedCode(stack: Stack): Promise<{ code: string; verifier: string; client: Client }> {
  const { requestId, verifier, client } = await consentRequest(stack);
  const approved = await send(
    stack,
    'POST',
    `/api/v1/oauth/requests/${requestId}/approve`,
    demoBusiness(stack).owner,
  );
  const redirect = approved.body.redirect_to;
  const code = typeof redirect === 'string' ? new URL(redirect).searchParams.get('code') : null;
  if (approved.status !== 200 || !code) throw new Error(`approving consent answered ${approved.status}`);
  return { code, verifier, client };
}

/** The token endpoint's form for an approved code: what the client sends to exchange it. */
export async function codeExchange(stack: Stack): Promise<Record<string, string>> {
  const { code, verifier, client } = await approvedCode(stack);
  return {
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirectUri,
    code_verifier: verifier,
    client_id: client.clientId,
  };
}

/** A grant of the demo business's owner: consent approved, its code exchanged for tokens. */
export async function ownersGrant(stack: Stack): Promise<string> {
  const exchanged = await fetch(`${stack.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(await codeExchange(stack)),
  });
  const tokens = (await exchanged.json()) as { access_token?: string };
  if (exchanged.status !== 200 || !tokens.access_token) {
    throw new Error(`exchanging the code answered ${exchanged.status}: ${JSON.stringify(tokens)}`);
  }
  // The access token is a JWT naming its grant (`gid`); the bench only needs the id, not a check.
  return String(decodeJwt(tokens.access_token).gid);
}
