import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { AuthorizationQuestion } from '../../infra/local/iam/enforcer.ts';
import { localCallScope } from '../../infra/local/iam/local-account.ts';
import { installIamEnforcement } from '../../infra/local/iam/sdk-enforcement.ts';
import { OFFLINE_CLIENT } from '../support/iam-calls.ts';

/**
 * A function's worker reuses the allowed decisions the harness gave it (sdk-enforcement.ts): one
 * installation per process, so in a file of its own. The harness's side is a stub here.
 */

const SESSION = 'arn:aws:sts::000000000000:assumed-role/Role/bp-local-getThing';
const reuse: AuthorizationQuestion[] = [];

const failure = async (send: () => Promise<unknown>) => {
  try {
    await send();
  } catch (error) {
    return error as Error;
  }
  throw new Error('the call did not fail');
};

describe('decisions reused in the worker', () => {
  it('reuses an allowed decision in the worker for a call that agrees on what decisions depend on, and counts it for the harness', async () => {
    const local = installIamEnforcement({
      scope: localCallScope({ sesIdentities: [] }),
      clock: () => undefined,
      decisionKeys: ['dynamodb:leadingkeys'],
      ask: async (question) => {
        reuse.push(question);
        return question.requests[0]?.context['dynamodb:LeadingKeys']?.includes('refused')
          ? {
              allowed: false,
              principalArn: SESSION,
              reason: 'no-identity-policy-allows',
              request: question.requests[0],
            }
          : { allowed: true };
      },
    });
    const client = DynamoDBDocumentClient.from(new DynamoDBClient({ ...OFFLINE_CLIENT, maxAttempts: 1 }));
    local.attach(client);
    const get = (pk: string) =>
      failure(() =>
        client.send(new GetCommand({ TableName: 'business-platform-local', Key: { pk, sk: 'b' } })),
      );

    await get('a');
    await get('a');
    expect(reuse).toHaveLength(1);
    expect(local.takeAllowedHere()).toEqual({
      calls: 1,
      byService: { DynamoDB: 1 },
      byAction: { 'dynamodb:GetItem': 1 },
    });
    // Another partition key is another decision (the key is one it depends on) …
    await get('c');
    expect(reuse).toHaveLength(2);
    // … and a refusal is never reused: each refused call is asked about, and logged, again.
    expect((await get('refused')).name).toBe('AccessDeniedException');
    expect((await get('refused')).name).toBe('AccessDeniedException');
    expect(reuse).toHaveLength(4);
    expect(local.takeAllowedHere().calls).toBe(0);
  });
});
