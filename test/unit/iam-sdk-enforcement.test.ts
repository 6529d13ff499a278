import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetSendQuotaCommand, SESClient } from '@aws-sdk/client-ses';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Authorization, AuthorizationQuestion } from '../../infra/local/iam/enforcer.ts';
import { localCallScope } from '../../infra/local/iam/local-account.ts';
import { type EnforcementClock, installIamEnforcement } from '../../infra/local/iam/sdk-enforcement.ts';
import { OFFLINE_CLIENT } from '../support/iam-calls.ts';

/**
 * The worker's side of IAM enforcement over real SDK clients that never reach a network: what it
 * asks for each call, and what the SDK throws when the answer is a refusal. The harness's side
 * (the evaluation) is a stub here, the one port of this unit.
 */

const SESSION = 'arn:aws:sts::000000000000:assumed-role/Role/bp-local-putThing';
const asked: AuthorizationQuestion[] = [];
let answer: Authorization = { allowed: true };
const clock: EnforcementClock = { ms: 0 };
const enforcement = installIamEnforcement({
  scope: localCallScope({ sesIdentities: ['business-platform.local'] }),
  clock: () => clock,
  ask: async (question) => {
    asked.push(question);
    return answer;
  },
});

beforeEach(() => {
  asked.length = 0;
  answer = { allowed: true };
});

const failure = async (send: () => Promise<unknown>) => {
  try {
    await send();
  } catch (error) {
    return error as Error & { $metadata?: { httpStatusCode?: number; attempts?: number } };
  }
  throw new Error('the call did not fail');
};

describe('IAM enforcement on every SDK client', () => {
  it('asks about a document client’s call once, with the actions and ARNs of the table, before it is sent', async () => {
    const client = DynamoDBDocumentClient.from(new DynamoDBClient({ ...OFFLINE_CLIENT, maxAttempts: 1 }));
    answer = { allowed: true };
    // Allowed, so it goes on to the network, which is not there (each retry would be asked about again).
    const error = await failure(() =>
      client.send(new GetCommand({ TableName: 'business-platform-local', Key: { pk: 'a', sk: 'b' } })),
    );
    expect(error.name).not.toBe('AccessDeniedException');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      clientName: 'DynamoDBClient',
      commandName: 'GetItemCommand',
      presigned: false,
      requests: [
        {
          action: 'dynamodb:GetItem',
          resource: 'arn:aws:dynamodb:us-east-1:000000000000:table/business-platform-local',
        },
      ],
    });
  });

  it('answers a refused call as AWS does: the SDK throws AccessDeniedException, 400, not retried', async () => {
    const client = DynamoDBDocumentClient.from(new DynamoDBClient(OFFLINE_CLIENT));
    answer = {
      allowed: false,
      principalArn: SESSION,
      reason: 'no-identity-policy-allows',
      request: {
        action: 'dynamodb:PutItem',
        resource: 'arn:aws:dynamodb:us-east-1:000000000000:table/business-platform-local',
        context: {},
      },
    };
    const error = await failure(() =>
      client.send(new PutCommand({ TableName: 'business-platform-local', Item: { pk: 'a', sk: 'b' } })),
    );
    expect(error.name).toBe('AccessDeniedException');
    expect(error.message).toContain(`User: ${SESSION} is not authorized to perform: dynamodb:PutItem`);
    expect(error.$metadata).toMatchObject({ httpStatusCode: 400, attempts: 1 });
    expect(clock.ms).toBeGreaterThan(0);
  });

  it('asks about a presigned URL as S3 will when it is used, and builds it whatever the answer', async () => {
    const s3 = new S3Client({ ...OFFLINE_CLIENT, forcePathStyle: true });
    enforcement.attach(s3);
    answer = { error: 'reported only' };
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'photos', Key: 'businesses/b/p' }), {
      expiresIn: 60,
    });
    expect(url).toContain('X-Amz-Signature=');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      commandName: 'GetObjectCommand',
      presigned: true,
      requests: [{ action: 's3:GetObject', resource: 'arn:aws:s3:::photos/businesses/b/p' }],
    });
  });

  it('never lets a call no mapping knows through: it is asked about as unevaluable and fails', async () => {
    const ses = new SESClient(OFFLINE_CLIENT);
    answer = { error: 'No IAM mapping' };
    const error = await failure(() => ses.send(new GetSendQuotaCommand({})));
    expect(error.message).toContain('IAM enforcement could not decide');
    expect(asked[0]).toMatchObject({ commandName: 'GetSendQuotaCommand', requests: [] });
    expect(asked[0]?.unevaluable).toMatch(/No IAM mapping for SESClient GetSendQuotaCommand/);
  });
});
