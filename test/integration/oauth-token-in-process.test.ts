import { randomUUID } from 'node:crypto';
import { type DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { decodeJwt } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dynamoClient } from '#lib/db/client.ts';
import { NotFoundError } from '#lib/http/errors.ts';
import { endUserGrant } from '#lib/oauth/grants.ts';
import { revokeToken } from '#lib/oauth/revocation.ts';
import { issueTokens } from '#lib/oauth/tokens.ts';
import { logger } from '#lib/observability/logger.ts';
import { api } from '../support/api.ts';
import { grantIdOf, mcpStatus, readGrant, refreshWith, setGrant } from '../support/grant-items.ts';
import {
  OFFLINE_SCOPE,
  obtainTokens,
  postForm,
  REDIRECT_URI,
  registerClient,
  startAuthorization,
} from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';

/**
 * The token and revocation endpoints' lib called in this process against the harness's DynamoDB
 * Local, for what the harness cannot show: answers AWS gives and DynamoDB Local never does
 * (injected with a client middleware), the parameters of reads, and the security events logged.
 */
const removals: (() => void)[] = [];
afterEach(() => {
  for (const remove of removals.splice(0)) remove();
  vi.restoreAllMocks();
});

/**
 * AWS's answer to a transaction that meets another one on the same item: cancelled with
 * `TransactionConflict` on that item (here the first, the grant or the code), `None` on the
 * others, nothing written. Given to the next `times` TransactWriteItems calls.
 */
function answerTransactionConflict(client: DynamoDBClient, times: number) {
  const name = `answerTransactionConflict-${randomUUID()}`;
  let answered = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'TransactWriteItemsCommand' || answered >= times) return next(args);
      answered += 1;
      const items = (args.input as { TransactItems: unknown[] }).TransactItems;
      const codes = items.map((_, index) => (index === 0 ? 'TransactionConflict' : 'None'));
      throw new TransactionCanceledException({
        message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
        $metadata: { httpStatusCode: 400 },
        CancellationReasons: codes.map((Code) =>
          Code === 'TransactionConflict'
            ? { Code, Message: 'Transaction is ongoing for the item' }
            : { Code },
        ),
      });
    },
    { step: 'initialize', name },
  );
  removals.push(() => client.middlewareStack.remove(name));
  return { answered: () => answered };
}

/** The `security_event` names logged at warn meanwhile, with their fields. */
function watchSecurityEvents() {
  const warn = vi.spyOn(logger, 'warn');
  return () =>
    warn.mock.calls
      .map(([, fields]) => fields as Record<string, unknown> | undefined)
      .filter((fields) => fields?.security_event !== undefined);
}

async function freshGrant() {
  const tenant = await arrangeTenant();
  const { client, tokens } = await obtainTokens({ userToken: tenant.tokens.owner });
  return {
    userId: String(decodeJwt(tokens.access_token).sub),
    clientId: client.client_id,
    refreshToken: tokens.refresh_token as string,
    accessToken: tokens.access_token,
    grantId: grantIdOf(tokens.access_token),
  };
}

/** An approved request's code and the form that exchanges it. */
async function approvedCode() {
  const tenant = await arrangeTenant();
  const client = await registerClient();
  const started = await startAuthorization({ clientId: client.client_id, scope: OFFLINE_SCOPE });
  const decision = await api('POST', `/api/v1/oauth/requests/${started.requestId}/approve`, {
    token: tenant.tokens.owner,
  });
  const code = new URL(decision.body.redirect_to).searchParams.get('code') as string;
  return {
    clientId: client.client_id,
    form: {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: started.verifier,
      client_id: client.client_id,
    },
  };
}

describe('DynamoDB Local never answers TransactionConflict: injected', () => {
  it('retries a refresh that met a concurrent transaction, and keeps the grant', async () => {
    const { clientId, refreshToken, grantId } = await freshGrant();
    const conflict = answerTransactionConflict(dynamoClient, 1);

    const refreshed = await issueTokens({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: clientId,
    });

    expect(conflict.answered()).toBe(1);
    expect(grantIdOf(refreshed.access_token)).toBe(grantId);
    expect((await readGrant(grantId))?.revoked_at).toBeUndefined();
    expect((await refreshWith(refreshed.refresh_token as string, clientId)).status).toBe(200);
  });

  it('still revokes the grant of a truly old refresh token whose transactions met conflicts', async () => {
    // Prepare: the token was rotated away more than 30 s ago.
    const { clientId, refreshToken, grantId, userId } = await freshGrant();
    const rotated = await refreshWith(refreshToken, clientId);
    await setGrant(grantId, { rotated_at: new Date(Date.now() - 31_000).toISOString() });
    const conflict = answerTransactionConflict(dynamoClient, 2);
    const events = watchSecurityEvents();

    // Act
    const reused = await issueTokens({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: clientId,
    }).catch((error: unknown) => error);

    // Assess: refused, the grant revoked (the newest token too), and the reuse logged.
    expect(conflict.answered()).toBe(2);
    expect(reused).toMatchObject({ oauthCode: 'invalid_grant' });
    expect((await readGrant(grantId))?.revoked_at).toEqual(expect.any(String));
    expect((await refreshWith(rotated.body.refresh_token, clientId)).body.error).toBe('invalid_grant');
    expect(events()).toEqual([
      expect.objectContaining({
        security_event: 'refresh_token_reused',
        grant_id: grantId,
        client_id: clientId,
        user_id: userId,
      }),
    ]);
  });

  it('answers 503 temporarily_unavailable when the conflicts last, and keeps the grant', async () => {
    const { clientId, refreshToken, grantId } = await freshGrant();
    const conflict = answerTransactionConflict(dynamoClient, Number.POSITIVE_INFINITY);

    const busy = await issueTokens({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: clientId,
    }).catch((error: unknown) => error);

    expect(conflict.answered()).toBeGreaterThan(1);
    expect(busy).toMatchObject({ statusCode: 503, headers: { 'retry-after': expect.any(String) } });
    expect((await readGrant(grantId))?.revoked_at).toBeUndefined();
    for (const remove of removals.splice(0)) remove();
    expect((await refreshWith(refreshToken, clientId)).status).toBe(200);
  });

  it('retries a code exchange that met a concurrent transaction: not a second use', async () => {
    const { clientId, form } = await approvedCode();
    const conflict = answerTransactionConflict(dynamoClient, 1);

    const tokens = await issueTokens(form);

    expect(conflict.answered()).toBe(1);
    expect((await readGrant(grantIdOf(tokens.access_token)))?.revoked_at).toBeUndefined();
    expect((await refreshWith(tokens.refresh_token as string, clientId)).status).toBe(200);
  });
});

describe('security events', () => {
  it('logs code_reused when a spent code comes back from its own client, and nothing for a stranger', async () => {
    const { clientId, form } = await approvedCode();
    const first = await postForm('/oauth/token', form);
    const events = watchSecurityEvents();

    const fromStranger = await issueTokens({ ...form, client_id: 'someone-else' }).catch(
      (error: unknown) => error,
    );
    const fromItsClient = await issueTokens(form).catch((error: unknown) => error);

    expect(fromStranger).toMatchObject({ oauthCode: 'invalid_grant' });
    expect(fromItsClient).toMatchObject({ oauthCode: 'invalid_grant' });
    expect(events()).toEqual([
      expect.objectContaining({
        security_event: 'code_reused',
        grant_id: grantIdOf(first.body.access_token),
        client_id: clientId,
      }),
    ]);
  });

  it('logs grant_revoked_by_client when a client revokes its token', async () => {
    const { clientId, accessToken, grantId, userId } = await freshGrant();
    const events = watchSecurityEvents();

    await revokeToken({ token: accessToken, client_id: clientId });

    expect(events()).toEqual([
      expect.objectContaining({
        security_event: 'grant_revoked_by_client',
        grant_id: grantId,
        client_id: clientId,
        user_id: userId,
      }),
    ]);
    expect(await mcpStatus(accessToken)).toBe(401);
  });

  it('logs grant_ended_by_user once when a person ends their grant, and nothing for anyone else', async () => {
    const { clientId, accessToken, grantId, userId } = await freshGrant();
    const events = watchSecurityEvents();

    const byStranger = await endUserGrant(randomUUID(), grantId).catch((error: unknown) => error);
    await endUserGrant(userId, grantId);
    await endUserGrant(userId, grantId);

    expect(byStranger).toBeInstanceOf(NotFoundError);
    expect(events()).toEqual([
      expect.objectContaining({
        security_event: 'grant_ended_by_user',
        grant_id: grantId,
        client_id: clientId,
        user_id: userId,
      }),
    ]);
    expect(await mcpStatus(accessToken)).toBe(401);
  });

  it('logs grant_issued (an info line) when a code is exchanged', async () => {
    const { clientId, form } = await approvedCode();
    const info = vi.spyOn(logger, 'info');

    const issued = await issueTokens(form);

    const lines = info.mock.calls.map(([, fields]) => fields as Record<string, unknown> | undefined);
    expect(lines).toContainEqual(
      expect.objectContaining({
        security_event: 'grant_issued',
        grant_id: grantIdOf(issued.access_token),
        client_id: clientId,
      }),
    );
  });
});

describe('the grant read behind every access-token check', () => {
  it('reads strongly consistently, alone and together with the keys (DynamoDB Local always does: the parameters are asserted)', async () => {
    // Prepare: a cold container's lib/, with its DynamoDB client's reads recorded.
    const { accessToken, grantId } = await freshGrant();
    vi.resetModules();
    const [{ verifyAssistantToken }, container, settings] = await Promise.all([
      import('#lib/auth/assistant-token.ts'),
      import('#lib/db/client.ts'),
      import('#lib/oauth/settings.ts'),
    ]);
    const reads: { command: string; input: Record<string, unknown> }[] = [];
    container.dynamoClient.middlewareStack.add(
      (next, context) => async (args) => {
        reads.push({ command: String(context.commandName), input: args.input as Record<string, unknown> });
        return next(args);
      },
      { step: 'initialize', name: 'recordReads' },
    );
    const resource = settings.resources().mcp;
    const verify = () => verifyAssistantToken(accessToken, resource, settings.resourceChallenge(resource));

    // Act: the first check reads the grant with the keys (none held yet), the second alone.
    await verify();
    await verify();

    // Assess
    expect(reads.map((read) => read.command)).toEqual(['BatchGetItemCommand', 'GetItemCommand']);
    const [batch, single] = reads as [(typeof reads)[0], (typeof reads)[0]];
    const batchRequest = (batch.input.RequestItems as Record<string, Record<string, unknown>>)[
      container.tableName
    ];
    expect(batchRequest?.ConsistentRead).toBe(true);
    expect(single.input.ConsistentRead).toBe(true);
    expect(JSON.stringify(single.input.Key)).toContain(`OAUTH_GRANT#${grantId}`);
  });
});
