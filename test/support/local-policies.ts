import type { RouteDefinition } from '#lib/http/route.ts';
import { iamRequestsFor } from '../../infra/local/iam/call-authorization.ts';
import { type Decision, PolicyEvaluator } from '../../infra/local/iam/evaluate.ts';
import type { SdkCall } from '../../infra/local/iam/iam-request.ts';
import { localCallScope, localTemplateResolver } from '../../infra/local/iam/local-account.ts';
import { LOCAL_SYNTH_CONTEXT } from '../../infra/local/iam/local-synth.ts';
import { extractPolicies } from '../../infra/local/iam/role-policies.ts';
import { logicalIdStem, type TemplateSet } from '../../infra/local/iam/template-resolver.ts';
import { LOCAL_PHOTOS_BUCKET, LOCAL_STAGE, LOCAL_TABLE_NAME } from '../../infra/local/local-names.ts';
import { synthesize } from './cdk-app.ts';

export { LOCAL_STAGE };

/**
 * The app synthesized for the local stage (over `routes`, else the route table), its policies
 * extracted into the local account with the emulators' table and bucket names, and an evaluator
 * over them: what the harness builds at start (from the synth cache). `outdir` as newApp's.
 */
export function localPolicies(routes?: readonly RouteDefinition[], outdir?: string) {
  const { templates } = synthesize(LOCAL_SYNTH_CONTEXT, routes, outdir);
  const set: TemplateSet = new Map([...templates].map(([name, template]) => [name, template.toJSON()]));
  const resolver = localTemplateResolver(set);
  const policies = extractPolicies(resolver, LOCAL_STAGE);
  const evaluator = new PolicyEvaluator(policies);
  const scope = localCallScope({ sesIdentities: policies.sesIdentities });

  /** The ARN of a stateful resource, by its logical id's stem (`InternalApiKeys`). */
  const statefulRef = (stem: string): string => {
    for (const [stack, template] of set) {
      const found = Object.keys(template.Resources ?? {}).find((id) => logicalIdStem(id) === stem);
      if (found) return resolver.ref(stack, found);
    }
    throw new Error(`no resource ${stem}`);
  };

  /** Every authorization of the call, evaluated for the function; the first refusal, else allowed. */
  const decide = async (name: string, call: SdkCall): Promise<Decision> => {
    for (const request of iamRequestsFor(call, scope)) {
      const decision = await evaluator.evaluate(name, request);
      if (!decision.allowed) return decision;
    }
    return { allowed: true };
  };
  return { set, resolver, policies, evaluator, scope, statefulRef, decide };
}

const dynamo = (commandName: string, input: Record<string, unknown>): SdkCall => ({
  clientName: 'DynamoDBClient',
  commandName,
  input: { TableName: LOCAL_TABLE_NAME, ...input },
});

/** Calls of each kind a function can make, as its SDK middleware sees them. */
export const calls = {
  getItem: () => dynamo('GetItemCommand', { Key: { pk: 'BUSINESS#b', sk: 'BUSINESS' } }),
  query: () =>
    dynamo('QueryCommand', {
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': 'BUSINESS#b' },
    }),
  queryIndex: () =>
    dynamo('QueryCommand', {
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :p',
      ExpressionAttributeValues: { ':p': 'USER#u' },
    }),
  batchGet: () =>
    ({
      clientName: 'DynamoDBClient',
      commandName: 'BatchGetItemCommand',
      input: { RequestItems: { [LOCAL_TABLE_NAME]: { Keys: [{ pk: 'A', sk: 'B' }] } } },
    }) satisfies SdkCall,
  conditionCheckAndPut: () =>
    ({
      clientName: 'DynamoDBClient',
      commandName: 'TransactWriteItemsCommand',
      input: {
        TransactItems: [
          {
            ConditionCheck: {
              TableName: LOCAL_TABLE_NAME,
              Key: { pk: 'A', sk: 'B' },
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
          { Put: { TableName: LOCAL_TABLE_NAME, Item: { pk: 'A', sk: 'C' } } },
        ],
      },
    }) satisfies SdkCall,
  putItem: () => dynamo('PutItemCommand', { Item: { pk: 'A', sk: 'B' } }),
  updateItem: () =>
    dynamo('UpdateItemCommand', {
      Key: { pk: 'A', sk: 'B' },
      UpdateExpression: 'SET v = :v',
      ExpressionAttributeValues: { ':v': 1 },
    }),
  deleteItem: () => dynamo('DeleteItemCommand', { Key: { pk: 'A', sk: 'B' } }),
  s3: (commandName: string, key: string): SdkCall => ({
    clientName: 'S3Client',
    commandName,
    input: {
      Bucket: LOCAL_PHOTOS_BUCKET,
      Key: key,
      ...(commandName === 'PutObjectCommand' ? { Body: 'x' } : {}),
    },
  }),
  secret: (commandName: string, secretId: string): SdkCall => ({
    clientName: 'SecretsManagerClient',
    commandName,
    input: { SecretId: secretId, ...(commandName === 'PutSecretValueCommand' ? { SecretString: '{}' } : {}) },
  }),
  sendEmail: (source: string, configurationSet?: string): SdkCall => ({
    clientName: 'SESClient',
    commandName: 'SendEmailCommand',
    input: {
      Source: source,
      Destination: { ToAddresses: ['invitee@example.com'] },
      Message: { Subject: { Data: 's' }, Body: { Text: { Data: 't' } } },
      ...(configurationSet ? { ConfigurationSetName: configurationSet } : {}),
    },
  }),
};
