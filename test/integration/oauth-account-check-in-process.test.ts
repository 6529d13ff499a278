import { randomUUID } from 'node:crypto';
import type { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { hashSecret } from '#lib/oauth/hash-secret.ts';
import type { logger as Logger } from '#lib/observability/logger.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { functionConfigurations } from '../../infra/local/function-configuration.ts';
import { localTemplates } from '../../infra/local/iam/template-cache.ts';
import { grantIdOf, mcpStatus, readGrant, readRefreshToken } from '../support/grant-items.ts';
import { callInProcess } from '../support/in-process-route.ts';
import { obtainTokens } from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';

/**
 * A refresh asks the stage's Cognito user pool whether the account that approved the grant is
 * still active (lib/auth/account-status.ts). The harness has no Cognito, so the token endpoint's
 * handler runs in this process with CONSOLE_USER_POOL_ID set to the pool the local synth gives it
 * (so its role allows the call: in-process-iam.ts checks it), against the
 * harness's DynamoDB Local; its real CognitoIdentityProviderClient signs and sends each request
 * into an SDK middleware that gives Cognito's answer on the wire ("Cognito's answer injected"),
 * which the SDK's own deserializer and retries then read as they would AWS's.
 */
let POOL_ID: string;
const tokenRoute = routeTable.find((route) => route.operationId === 'issueOAuthToken');
if (!tokenRoute) throw new Error('no issueOAuthToken route');

/** One HTTP answer of Cognito's JSON protocol (AWS JSON 1.1). */
interface CognitoAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** AdminGetUser's answer for an account of the pool, enabled or not. */
const userAnswer = (subject: string, enabled: boolean): CognitoAnswer => ({
  status: 200,
  body: {
    Username: subject,
    Enabled: enabled,
    UserStatus: 'CONFIRMED',
    UserAttributes: [{ Name: 'sub', Value: subject }],
    UserCreateDate: 1_767_225_600,
    UserLastModifiedDate: 1_767_225_600,
  },
});
const errorAnswer = (status: number, type: string, message: string): CognitoAnswer => ({
  status,
  body: { __type: type, message },
});
const USER_NOT_FOUND = errorAnswer(400, 'UserNotFoundException', 'User does not exist.');
const THROTTLED = errorAnswer(400, 'TooManyRequestsException', 'Rate exceeded');
const INTERNAL_ERROR = errorAnswer(500, 'InternalErrorException', 'Internal error');

/** What reached "Cognito": each request as sent, after signing. */
interface SentRequest {
  host: string;
  target: string;
  body: Record<string, unknown>;
}

let answer: (request: SentRequest) => CognitoAnswer;
const sent: SentRequest[] = [];
let log: typeof Logger;

/**
 * Cognito's answer injected: innermost in the client's stack, where the request would leave for
 * the network, so the serializer, the signer, the retries and the deserializer are all the SDK's.
 */
function injectCognitoAnswers(client: CognitoIdentityProviderClient) {
  client.middlewareStack.add(
    () => async (args) => {
      const request = args.request as { hostname: string; headers: Record<string, string>; body: string };
      const seen = {
        host: request.hostname,
        target: String(request.headers['x-amz-target']),
        body: JSON.parse(request.body) as Record<string, unknown>,
      };
      sent.push(seen);
      const { status, body } = answer(seen);
      return {
        output: undefined as never,
        response: {
          statusCode: status,
          headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() },
          body: new TextEncoder().encode(JSON.stringify(body)),
        },
      };
    },
    { step: 'deserialize', priority: 'low', name: 'cognitoAnswerInjected' },
  );
}

beforeAll(async () => {
  // A cold container of the token function on a stage with its own user pool.
  const { templates } = await localTemplates();
  POOL_ID = String(
    functionConfigurations(templates).get('issueOAuthToken')?.environment.CONSOLE_USER_POOL_ID,
  );
  process.env.CONSOLE_USER_POOL_ID = POOL_ID;
  vi.resetModules();
  const [accounts, logging] = await Promise.all([
    import('#lib/auth/account-status.ts'),
    import('#lib/observability/logger.ts'),
  ]);
  injectCognitoAnswers(accounts.accountDirectory());
  log = logging.logger;
});
afterAll(() => {
  delete process.env.CONSOLE_USER_POOL_ID;
  vi.resetModules();
});
beforeEach(() => {
  sent.length = 0;
});
afterEach(() => vi.restoreAllMocks());

/** The `security_event` lines logged at warn meanwhile. */
function watchSecurityEvents() {
  const warn = vi.spyOn(log, 'warn');
  return () =>
    warn.mock.calls
      .map(([, fields]) => fields as Record<string, unknown> | undefined)
      .filter((fields) => fields?.security_event !== undefined);
}

/** A grant approved by a fresh tenant's owner through the harness, and the account behind it. */
async function approvedGrant() {
  const tenant = await arrangeTenant();
  const { client, tokens } = await obtainTokens({ userToken: tenant.tokens.owner });
  const account = decodeJwt(tenant.tokens.owner);
  return {
    clientId: client.client_id,
    refreshToken: tokens.refresh_token as string,
    accessToken: tokens.access_token,
    grantId: grantIdOf(tokens.access_token),
    userId: String(decodeJwt(tokens.access_token).sub),
    subject: String(account.sub),
    issuer: String(account.iss),
  };
}

/** POST /oauth/token through the token function's own handler, in this process. */
const refreshInProcess = (refreshToken: string, clientId: string) =>
  callInProcess(tokenRoute, {
    url: '/oauth/token',
    form: { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId },
  });

describe('the account behind a grant', () => {
  it('is recorded by the approval: its issuer and subject on the grant, its subject on each refresh token', async () => {
    const grant = await approvedGrant();

    expect(await readGrant(grant.grantId)).toMatchObject({
      account_issuer: grant.issuer,
      account_subject: grant.subject,
    });
    expect((await readRefreshToken(grant.refreshToken))?.account_subject).toBe(grant.subject);

    answer = () => userAnswer(grant.subject, true);
    const refreshed = await refreshInProcess(grant.refreshToken, grant.clientId);
    const next = (refreshed.body as { refresh_token: string }).refresh_token;
    expect((await readRefreshToken(next))?.account_subject).toBe(grant.subject);
  });
});

describe("a refresh asks the user pool whether the approving account is still active (Cognito's answer injected)", () => {
  it('refreshes the grant of an enabled account, having asked the pool once for exactly that account', async () => {
    const grant = await approvedGrant();
    answer = () => userAnswer(grant.subject, true);

    const refreshed = await refreshInProcess(grant.refreshToken, grant.clientId);

    expect(refreshed.status).toBe(200);
    expect(sent).toEqual([
      {
        host: `cognito-idp.${POOL_ID.split('_')[0]}.amazonaws.com`,
        target: 'AWSCognitoIdentityProviderService.AdminGetUser',
        body: { UserPoolId: POOL_ID, Username: grant.subject },
      },
    ]);
    const accessToken = (refreshed.body as { access_token: string }).access_token;
    expect(await mcpStatus(accessToken)).toBe(200);
  });

  it.each([
    ['disabled', 'grant_ended_account_disabled', (subject: string) => userAnswer(subject, false)],
    ['deleted (UserNotFoundException)', 'grant_ended_account_deleted', () => USER_NOT_FOUND],
  ] as const)(
    'ends the grant of an account %s: invalid_grant, its tokens refused, %s logged',
    async (_case, event, cognito) => {
      const grant = await approvedGrant();
      answer = () => cognito(grant.subject);
      const events = watchSecurityEvents();

      const refused = await refreshInProcess(grant.refreshToken, grant.clientId);

      expect(refused).toMatchObject({
        status: 400,
        body: { error: 'invalid_grant', error_description: expect.stringMatching(/no longer active/) },
      });
      expect((await readGrant(grant.grantId))?.revoked_at).toEqual(expect.any(String));
      expect(await mcpStatus(grant.accessToken)).toBe(401);
      expect(events()).toEqual([
        {
          security_event: event,
          grant_id: grant.grantId,
          client_id: grant.clientId,
          user_id: grant.userId,
        },
      ]);
      expect(JSON.stringify(events())).not.toContain(grant.refreshToken);
      // Ended for good: an enabled answer later does not bring it back.
      answer = () => userAnswer(grant.subject, true);
      expect((await refreshInProcess(grant.refreshToken, grant.clientId)).body).toMatchObject({
        error: 'invalid_grant',
      });
    },
  );

  it.each([
    ['throttles past the SDK’s retries (TooManyRequestsException)', THROTTLED],
    ['fails (InternalErrorException, a 500)', INTERNAL_ERROR],
  ])(
    'answers 503 temporarily_unavailable with retry-after when the pool %s, and keeps the grant',
    async (_case, failure) => {
      const grant = await approvedGrant();
      answer = () => failure;
      const events = watchSecurityEvents();

      const busy = await refreshInProcess(grant.refreshToken, grant.clientId);

      expect(busy).toMatchObject({
        status: 503,
        headers: { 'retry-after': expect.any(String) },
        body: { error: 'temporarily_unavailable' },
      });
      // The SDK retried as it does against AWS (three attempts), and nothing was ended.
      expect(sent).toHaveLength(3);
      expect(events()).toEqual([]);
      expect((await readGrant(grant.grantId))?.revoked_at).toBeUndefined();
      expect(await mcpStatus(grant.accessToken)).toBe(200);

      answer = () => userAnswer(grant.subject, true);
      expect((await refreshInProcess(grant.refreshToken, grant.clientId)).status).toBe(200);
    },
  );

  it('asks nothing for a grant approved before approvals recorded the account, and refreshes it', async () => {
    const grant = await approvedGrant();
    // As its refresh tokens were written then: no account_subject.
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.oauthRefreshToken(hashSecret(grant.refreshToken)),
        UpdateExpression: 'REMOVE account_subject',
      }),
    );
    answer = () => USER_NOT_FOUND;

    const refreshed = await refreshInProcess(grant.refreshToken, grant.clientId);

    expect(refreshed.status).toBe(200);
    expect(sent).toEqual([]);
    expect((await readGrant(grant.grantId))?.revoked_at).toBeUndefined();
  });
});
