import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dynamoClient, tableName } from '#lib/db/client.ts';
import { revokeToken } from '#lib/oauth/revocation.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import {
  type AgentTenant,
  arrangeAgentTenant,
  collectionPath,
  createRecordVia,
  itemPath,
  minimalBodies,
} from '../support/agents.ts';
import { mcpStatus } from '../support/grant-items.ts';
import { callInProcess } from '../support/in-process-route.ts';
import { obtainTokens } from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';

/**
 * A credential revoked a moment ago must not work, so every read that finds one is strongly
 * consistent: an agent key's lookup on every agent route (alone, or in the BatchGetItem it shares
 * with the operation's read), and a refresh token's lookup when it is revoked. DynamoDB Local always
 * reads consistently, so no answer could show a stale read: an SDK middleware on lib/'s DynamoDB
 * client records the reads' parameters instead, with the route's own handler run in this process.
 */

interface Read {
  command: string;
  input: Record<string, unknown>;
}

let reads: Read[] = [];
const RECORDER = 'recordCredentialReads';

beforeAll(() => {
  dynamoClient.middlewareStack.add(
    (next, context) => async (args) => {
      reads.push({ command: String(context.commandName), input: args.input as Record<string, unknown> });
      return next(args);
    },
    { step: 'initialize', name: RECORDER },
  );
  return () => {
    dynamoClient.middlewareStack.remove(RECORDER);
  };
});
afterEach(() => {
  reads = [];
});

type Key = Record<string, { S?: string } | string>;
const keyText = (key: Key) => JSON.stringify(key);

/** The reads that looked up an item whose partition starts with `prefix`, and whether each was consistent. */
function readsOf(prefix: string): { command: string; consistent: boolean }[] {
  return reads.flatMap(({ command, input }) => {
    if (command === 'GetItemCommand') {
      return keyText(input.Key as Key).includes(`"${prefix}`)
        ? [{ command, consistent: input.ConsistentRead === true }]
        : [];
    }
    if (command === 'BatchGetItemCommand') {
      const request = (input.RequestItems as Record<string, { Keys: Key[]; ConsistentRead?: boolean }>)[
        tableName
      ];
      return request?.Keys.some((key) => keyText(key).includes(`"${prefix}`))
        ? [{ command, consistent: request.ConsistentRead === true }]
        : [];
    }
    return [];
  });
}

describe('agent keys are read strongly consistently (DynamoDB Local always does: the parameters are asserted)', () => {
  let tenant: AgentTenant;
  beforeAll(async () => {
    tenant = await arrangeAgentTenant();
  });
  const agentRoute = (operationId: string) => {
    const route = routeTable.find((candidate) => candidate.operationId === operationId);
    if (!route) throw new Error(`no route ${operationId}`);
    return route;
  };
  const withKey = () => ({ authorization: `Bearer ${tenant.key}` });

  it('on a get (the key in the record’s BatchGetItem), a list (beside the page’s Query) and a create', async () => {
    const faq = await createRecordVia(tenant, 'faq');

    const got = await callInProcess(agentRoute('getFaq'), {
      url: itemPath(tenant.businessId, 'faq', faq.id),
      headers: withKey(),
    });
    expect(got.status).toBe(200);
    expect(readsOf('AGENT_KEY#')).toEqual([{ command: 'BatchGetItemCommand', consistent: true }]);
    reads = [];

    const listed = await callInProcess(agentRoute('listFaqs'), {
      url: `${collectionPath(tenant.businessId, 'faq')}?limit=1`,
      headers: withKey(),
    });
    expect(listed.status).toBe(200);
    expect(readsOf('AGENT_KEY#')).toEqual([{ command: 'GetItemCommand', consistent: true }]);
    reads = [];

    const created = await callInProcess(agentRoute('createFaq'), {
      url: collectionPath(tenant.businessId, 'faq'),
      headers: withKey(),
      json: minimalBodies.faq,
    });
    expect(created.status).toBe(201);
    expect(readsOf('AGENT_KEY#')).toEqual([{ command: 'GetItemCommand', consistent: true }]);
  });

  it('on every route an agent key opens', async () => {
    const agentRoutes = routeTable.filter((route) => route.auth === 'agent');
    expect(agentRoutes.length).toBeGreaterThan(40);
    for (const route of agentRoutes) {
      reads = [];
      // Any id will do: the key is checked before the record is looked for or the body read.
      const url = route.path
        .replace('{business_id}', tenant.businessId)
        .replace(/\{\w+\}/g, () => randomUUID());

      const answer = await callInProcess(route, { url, headers: withKey() });

      expect(answer.status, route.operationId).not.toBe(401);
      const keyReads = readsOf('AGENT_KEY#');
      expect(keyReads.length, route.operationId).toBeGreaterThan(0);
      expect(
        keyReads.every((read) => read.consistent),
        route.operationId,
      ).toBe(true);
    }
  });
});

describe('revoking a refresh token reads it strongly consistently (the parameters are asserted)', () => {
  it('whatever the hint, and the revocation ends the grant', async () => {
    const tenant = await arrangeTenant();
    const { client, tokens } = await obtainTokens({
      userToken: tenant.tokens.owner,
      scope: 'edits:read edits:write offline_access',
    });
    const refreshToken = tokens.refresh_token as string;

    // A wrong hint looks for an access token first, then finds the refresh token all the same.
    await revokeToken({ token: refreshToken, token_type_hint: 'access_token', client_id: client.client_id });
    await revokeToken({ token: refreshToken, token_type_hint: 'refresh_token', client_id: client.client_id });

    expect(readsOf('OAUTH_REFRESH#')).toEqual([
      { command: 'GetItemCommand', consistent: true },
      { command: 'GetItemCommand', consistent: true },
    ]);
    expect(await mcpStatus(tokens.access_token)).toBe(401);
  });
});
