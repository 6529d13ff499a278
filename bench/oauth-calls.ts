import { createHash, randomBytes } from 'node:crypto';
import type { HarnessInfo } from '../infra/local/harness-process.ts';

export interface OAuthCallRow {
  step: string;
  status: number;
  calls: number;
  authCalls: number;
}

type ResourcePath = '/mcp' | '/api/v1/edits';

/**
 * One assistant connecting, as the DynamoDB calls of each step show them: registration,
 * authorize, the consent page's read and approval, the code exchange, a refresh, and edits reads
 * with the resulting assistant token next to the same reads with a console token.
 */
export async function measureOAuthCalls(harness: HarnessInfo): Promise<OAuthCallRow[]> {
  const business = harness.credentials.businesses[0];
  if (!business) throw new Error('no demo business');
  const { rows, accessToken } = await connectAssistant(harness, '/api/v1/edits');
  for (const [who, token] of [
    ['assistant token', accessToken],
    ['console token', business.tokens.owner],
  ] as const) {
    const response = await fetch(`${harness.baseUrl}/api/v1/edits/businesses/${business.id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    rows.push(countsOf(`edits read with ${who}: GET /businesses/{id}`, response));
  }
  return rows;
}

/** An access token of the first demo business's owner's assistant, for one resource. */
export async function assistantToken(harness: HarnessInfo, resourcePath: ResourcePath): Promise<string> {
  return (await connectAssistant(harness, resourcePath)).accessToken;
}

function countsOf(step: string, response: Response): OAuthCallRow {
  if (response.status >= 400) throw new Error(`${step} answered ${response.status}`);
  return {
    step,
    status: response.status,
    calls: Number(response.headers.get('x-local-dynamodb-calls')),
    authCalls: Number(response.headers.get('x-local-dynamodb-auth-calls')),
  };
}

/** Register, authorize, approve as the demo owner, exchange the code, refresh once. */
async function connectAssistant(harness: HarnessInfo, resourcePath: ResourcePath) {
  const business = harness.credentials.businesses[0];
  if (!business) throw new Error('no demo business');
  const rows: OAuthCallRow[] = [];
  const record = (step: string, response: Response) => {
    rows.push(countsOf(step, response));
    return response;
  };
  const url = (path: string) => `${harness.baseUrl}${path}`;
  const form = (body: Record<string, string>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body),
  });
  const redirectUri = 'http://127.0.0.1:43117/callback';
  const owner = { authorization: `Bearer ${business.tokens.owner}` };

  const registered = record(
    'register (dynamic registration)',
    await fetch(url('/oauth/register'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Bench assistant', redirect_uris: [redirectUri] }),
    }),
  );
  const clientId = ((await registered.json()) as { client_id: string }).client_id;
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    // offline_access: the grant gets the refresh token the next step uses.
    scope: 'edits:read edits:write offline_access',
    resource: url(resourcePath),
    state: 'bench',
  });
  const authorized = record(
    'authorize',
    await fetch(url(`/oauth/authorize?${query}`), { redirect: 'manual' }),
  );
  const requestId = new URL(authorized.headers.get('location') ?? '').searchParams.get('request_id');
  record(
    'consent: read (first read claims it)',
    await fetch(url(`/api/v1/oauth/requests/${requestId}`), { headers: owner }),
  );
  const approved = record(
    'consent: approve',
    await fetch(url(`/api/v1/oauth/requests/${requestId}/approve`), { method: 'POST', headers: owner }),
  );
  const code = new URL(((await approved.json()) as { redirect_to: string }).redirect_to).searchParams.get(
    'code',
  );
  const exchanged = record(
    'token: authorization_code',
    await fetch(
      url('/oauth/token'),
      form({
        grant_type: 'authorization_code',
        code: code ?? '',
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: clientId,
      }),
    ),
  );
  const tokens = (await exchanged.json()) as { refresh_token: string };
  const refreshed = record(
    'token: refresh_token',
    await fetch(
      url('/oauth/token'),
      form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId }),
    ),
  );
  const { access_token: accessToken } = (await refreshed.json()) as { access_token: string };
  return { rows, accessToken };
}
