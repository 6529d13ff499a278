import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import { iamRequestsFor } from '../../infra/local/iam/call-authorization.ts';
import { UnmappedCallError } from '../../infra/local/iam/iam-request.ts';
import { LOCAL_ACCOUNT, localCallScope, localSecretArn } from '../../infra/local/iam/local-account.ts';
import { OFFLINE_CLIENT, referenceCheck, sentCall } from '../support/iam-calls.ts';

const scope = localCallScope({ sesIdentities: [] });

async function requestsOf(command: unknown) {
  const client = new SecretsManagerClient(OFFLINE_CLIENT);
  return iamRequestsFor(await sentCall(client, command), scope);
}

describe('Secrets Manager calls as IAM requests', () => {
  it('authorizes a read on the secret’s ARN, named as the call named it', async () => {
    const arn = localSecretArn(LOCAL_ACCOUNT, 'CursorSecret');
    expect(arn).toMatch(/^arn:aws:secretsmanager:us-east-1:000000000000:secret:CursorSecret-[A-Za-z0-9]{6}$/);
    expect(
      await requestsOf(new GetSecretValueCommand({ SecretId: 'CursorSecret', VersionStage: 'AWSCURRENT' })),
    ).toEqual([
      {
        action: 'secretsmanager:GetSecretValue',
        resource: arn,
        namedInMessage: 'CursorSecret',
        context: { 'secretsmanager:SecretId': 'CursorSecret', 'secretsmanager:VersionStage': 'AWSCURRENT' },
      },
    ]);
    // Named by its ARN (as the deployed functions' environment does): the same resource.
    const [byArn] = await requestsOf(new GetSecretValueCommand({ SecretId: arn }));
    expect(byArn).toMatchObject({ resource: arn, namedInMessage: arn });
  });

  it('authorizes the signing key’s first write as PutSecretValue, without version keys', async () => {
    const arn = localSecretArn(LOCAL_ACCOUNT, 'OAuthSigningKey');
    const [request] = await requestsOf(
      new PutSecretValueCommand({ SecretId: arn, SecretString: '{}', ClientRequestToken: 'x'.repeat(40) }),
    );
    expect(request).toEqual({
      action: 'secretsmanager:PutSecretValue',
      resource: arn,
      namedInMessage: arn,
      context: { 'secretsmanager:SecretId': arn },
    });
  });

  it('gives only actions, ARNs and condition keys the Service Authorization Reference defines', async () => {
    for (const command of [
      new GetSecretValueCommand({ SecretId: 'a', VersionId: 'v', VersionStage: 'AWSCURRENT' }),
      new DescribeSecretCommand({ SecretId: 'a' }),
      new PutSecretValueCommand({ SecretId: 'a', SecretString: 'x' }),
    ]) {
      for (const request of await requestsOf(command)) {
        expect(await referenceCheck(request), request.action).toMatchObject({
          decision: 'Allowed',
          resourceType: 'Secret',
          ignoredKeys: [],
        });
      }
    }
  });
});

describe('Cognito calls as IAM requests', () => {
  // No Cognito client is installed: the call is what its middleware context names (`.n(client, command)`).
  const adminGetUser = {
    clientName: 'CognitoIdentityProviderClient',
    commandName: 'AdminGetUserCommand',
    input: { UserPoolId: 'us-east-1_local', Username: 'alice' },
  };

  it('authorizes AdminGetUser on the user pool’s ARN', async () => {
    const [request] = iamRequestsFor(adminGetUser, scope);
    expect(request).toEqual({
      action: 'cognito-idp:AdminGetUser',
      resource: 'arn:aws:cognito-idp:us-east-1:000000000000:userpool/us-east-1_local',
      context: {},
    });
    expect(await referenceCheck(request as never)).toMatchObject({
      resourceType: 'userpool',
      ignoredKeys: [],
    });
  });

  it('refuses a call no mapping knows, rather than letting it through', () => {
    expect(() => iamRequestsFor({ ...adminGetUser, commandName: 'AdminDeleteUserCommand' }, scope)).toThrow(
      UnmappedCallError,
    );
    expect(() =>
      iamRequestsFor({ clientName: 'SSMClient', commandName: 'GetParameterCommand', input: {} }, scope),
    ).toThrow(/No IAM mapping for SSMClient GetParameterCommand/);
  });
});
