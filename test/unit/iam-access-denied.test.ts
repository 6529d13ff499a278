import { DynamoDBClient, DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, HeadObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import {
  GetSecretValueCommand,
  SecretsManagerClient,
  SecretsManagerServiceException,
} from '@aws-sdk/client-secrets-manager';
import { SESClient, SESServiceException, SendEmailCommand } from '@aws-sdk/client-ses';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { type AwsHttpAnswer, accessDeniedAnswer, type Refusal } from '../../infra/local/iam/access-denied.ts';
import { iamRequestsFor } from '../../infra/local/iam/call-authorization.ts';
import type { DenialReason } from '../../infra/local/iam/evaluate.ts';
import type { SdkCall } from '../../infra/local/iam/iam-request.ts';
import { localCallScope } from '../../infra/local/iam/local-account.ts';
import { OFFLINE_CLIENT } from '../support/iam-calls.ts';

const SESSION =
  'arn:aws:sts::000000000000:assumed-role/BusinessPlatform-local-Routes-admin-Role/bp-local-invitePlatformAdmin';
const scope = localCallScope({ sesIdentities: ['business-platform.local'] });

type AnyStack = { add(middleware: unknown, options: object): void };

/**
 * Stands in for the network where a refusal would be answered: below the SDK's deserializer
 * (step `deserialize`, low priority), so the SDK parses AWS's answer as it parses any other and
 * throws what it throws in AWS. The harness will answer refused calls from the same place.
 */
function refusedBy(client: { middlewareStack: unknown }, reason: DenialReason = 'no-identity-policy-allows') {
  const seen: AwsHttpAnswer[] = [];
  (client.middlewareStack as AnyStack).add(
    (_next: unknown, context: { clientName: string; commandName: string }) =>
      async (args: { input: unknown }) => {
        const call: SdkCall = {
          clientName: context.clientName,
          commandName: context.commandName,
          input: args.input,
        };
        const [request] = iamRequestsFor(call, scope);
        if (!request) throw new Error('no request');
        const refusal: Refusal = { ...call, principalArn: SESSION, request, reason, requestId: 'REQUEST-ID' };
        const answer = accessDeniedAnswer(refusal);
        seen.push(answer);
        return { response: answer };
      },
    { step: 'deserialize', priority: 'low', name: 'refusedAsAwsWould' },
  );
  return seen;
}

const thrown = async (send: () => Promise<unknown>) => {
  try {
    await send();
  } catch (error) {
    return error as Error & { $metadata: { httpStatusCode?: number; requestId?: string; attempts?: number } };
  }
  throw new Error('the call was not refused');
};

describe('AccessDenied as AWS answers it', () => {
  it('DynamoDB: AccessDeniedException, 400, naming the role session, action, table and reason; not retried', async () => {
    const raw = new DynamoDBClient(OFFLINE_CLIENT);
    refusedBy(raw);
    const error = await thrown(() =>
      DynamoDBDocumentClient.from(raw).send(
        new PutCommand({ TableName: 'business-platform-local', Item: { pk: 'a', sk: 'b' } }),
      ),
    );
    expect(error).toBeInstanceOf(DynamoDBServiceException);
    expect(error.name).toBe('AccessDeniedException');
    expect(error.message).toBe(
      `User: ${SESSION} is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:000000000000:table/business-platform-local because no identity-based policy allows the dynamodb:PutItem action`,
    );
    expect(error.$metadata).toMatchObject({ httpStatusCode: 400, requestId: 'REQUEST-ID', attempts: 1 });
  });

  it('S3: AccessDenied, 403, the resource quoted; an explicit deny says so', async () => {
    const client = new S3Client({ ...OFFLINE_CLIENT, forcePathStyle: true });
    refusedBy(client, 'explicit-deny-in-resource-policy');
    const error = await thrown(() =>
      client.send(new GetObjectCommand({ Bucket: 'photos', Key: 'businesses/b/photos/p' })),
    );
    expect(error).toBeInstanceOf(S3ServiceException);
    expect(error.name).toBe('AccessDenied');
    expect(error.message).toBe(
      `User: ${SESSION} is not authorized to perform: s3:GetObject on resource: "arn:aws:s3:::photos/businesses/b/photos/p" with an explicit deny in a resource-based policy`,
    );
    expect(error.$metadata.httpStatusCode).toBe(403);
  });

  it('S3 HEAD: a bare 403, as S3 sends no body to a HEAD', async () => {
    const client = new S3Client({ ...OFFLINE_CLIENT, forcePathStyle: true });
    const answers = refusedBy(client);
    const error = await thrown(() => client.send(new HeadObjectCommand({ Bucket: 'photos', Key: 'k' })));
    expect(answers[0]?.body.length).toBe(0);
    expect(error).toBeInstanceOf(S3ServiceException);
    expect(error.$metadata.httpStatusCode).toBe(403);
  });

  it('SES: AccessDenied, 403, with SES’s own message shape', async () => {
    const client = new SESClient(OFFLINE_CLIENT);
    refusedBy(client);
    const error = await thrown(() =>
      client.send(
        new SendEmailCommand({
          Source: 'no-reply@business-platform.local',
          Destination: { ToAddresses: ['a@example.com'] },
          Message: { Subject: { Data: 's' }, Body: { Text: { Data: 't' } } },
        }),
      ),
    );
    expect(error).toBeInstanceOf(SESServiceException);
    expect(error.name).toBe('AccessDenied');
    expect(error.message).toBe(
      `User \`${SESSION}' is not authorized to perform \`ses:SendEmail' on resource \`arn:aws:ses:us-east-1:000000000000:identity/business-platform.local'`,
    );
    expect(error.$metadata.httpStatusCode).toBe(403);
  });

  it('Secrets Manager: AccessDeniedException, 400, naming the secret as the call did', async () => {
    const client = new SecretsManagerClient(OFFLINE_CLIENT);
    refusedBy(client);
    const error = await thrown(() => client.send(new GetSecretValueCommand({ SecretId: 'CursorSecret' })));
    expect(error).toBeInstanceOf(SecretsManagerServiceException);
    expect(error.name).toBe('AccessDeniedException');
    expect(error.message).toBe(
      `User: ${SESSION} is not authorized to perform: secretsmanager:GetSecretValue on resource: CursorSecret because no identity-based policy allows the secretsmanager:GetSecretValue action`,
    );
    expect(error.$metadata.httpStatusCode).toBe(400);
  });
});
