import { setTimeout as sleep } from 'node:timers/promises';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type HarnessProcess, startHarnessProcess } from '../../infra/local/harness-process.ts';
import { api } from '../support/api.ts';
import { checkIamReport } from '../support/iam-report.ts';
import { connectAssistant } from '../support/mcp-session.ts';

// Access tokens that live one second (OAUTH_ACCESS_TOKEN_SECONDS), on a stack of their own so the
// other tests keep 15-minute tokens.
let stack: HarnessProcess;

beforeAll(async () => {
  process.env.OAUTH_ACCESS_TOKEN_SECONDS = '1';
  try {
    stack = await startHarnessProcess();
  } finally {
    delete process.env.OAUTH_ACCESS_TOKEN_SECONDS;
  }
});
afterAll(async () => {
  if (stack) checkIamReport(await stack.stop());
});

it('refreshes an expired access token through the SDK client and carries on', async () => {
  // Prepare: connected as the seeded owner's assistant, asking to stay connected (offline_access).
  const owner = stack.info.credentials.businesses[0]?.tokens.owner as string;
  const { client, provider } = await connectAssistant({
    baseUrl: stack.info.baseUrl,
    userToken: owner,
    offlineAccess: true,
  });
  const before = provider.current;
  expect(before.expires_in).toBe(1);

  // Act: wait past the token's life and the verifier's 5 s clock tolerance, then call a tool.
  await sleep(7_000);
  const result = (await client.callTool({ name: 'list_businesses', arguments: {} })) as CallToolResult;

  // Assess: the transport met the 401, refreshed, and the call went through with the new token.
  expect(result.isError).toBeFalsy();
  expect((result.structuredContent as { businesses: unknown[] }).businesses).toHaveLength(1);
  expect(provider.current.access_token).not.toBe(before.access_token);
  expect(provider.current.refresh_token).not.toBe(before.refresh_token);
  // A whole OAuth sign-in on a stack of its own, a 7 s wait and a refresh: ~14 s on a quiet
  // machine, and it once passed the default 30 s on a busy one.
}, 60_000);

it('ends a grant without offline_access with its access token: no refresh, gone from the connected assistants', async () => {
  // Prepare: connected through the SDK transport's own flow, which asks only for the scopes the
  // tool server's challenge names.
  const owner = stack.info.credentials.businesses[0]?.tokens.owner as string;
  const { client, provider } = await connectAssistant({ baseUrl: stack.info.baseUrl, userToken: owner });
  expect(provider.current.refresh_token).toBeUndefined();
  expect(provider.current.scope).toBe('edits:read edits:write');
  const grantId = decodeJwt(provider.current.access_token).gid;

  // Act: wait past the token's life and the verifier's 5 s clock tolerance, then call a tool.
  await sleep(7_000);
  const call = client.callTool({ name: 'list_businesses', arguments: {} });

  // Assess: nothing to refresh with, so the SDK must send the person to consent again; the grant
  // ended with its access token and is not among the person's connected assistants.
  await expect(call).rejects.toThrow(UnauthorizedError);
  expect(provider.authorizationUrls).toHaveLength(2);
  const listed = await api('GET', '/api/v1/oauth/grants', { token: owner, baseUrl: stack.info.baseUrl });
  expect(listed.status).toBe(200);
  expect(listed.body.grants.map((grant: { grant_id: string }) => grant.grant_id)).not.toContain(grantId);
}, 60_000);
