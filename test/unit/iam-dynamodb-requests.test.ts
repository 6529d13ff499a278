import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { iamRequestsFor } from '../../infra/local/iam/call-authorization.ts';
import { MalformedCallError } from '../../infra/local/iam/iam-request.ts';
import { localCallScope } from '../../infra/local/iam/local-account.ts';
import { OFFLINE_CLIENT, referenceCheck, sentCall } from '../support/iam-calls.ts';

const scope = localCallScope({ sesIdentities: [] });
const TABLE = 'business-platform-local';
const TABLE_ARN = `arn:aws:dynamodb:us-east-1:000000000000:table/${TABLE}`;
const OTHER_ARN = 'arn:aws:dynamodb:us-east-1:000000000000:table/other';

/** The document client the functions use, over a client whose calls a middleware catches. */
const client = () => {
  const raw = new DynamoDBClient(OFFLINE_CLIENT);
  return { raw, doc: DynamoDBDocumentClient.from(raw) };
};

/** What the harness's middleware would evaluate for a command, at the step it is seen. */
async function requestsOf(command: unknown, step: 'initialize' | 'build' = 'initialize') {
  const { raw, doc } = client();
  const call = await sentCall(raw, command, step, (sent) => doc.send(sent));
  return iamRequestsFor(call, scope);
}

describe('DynamoDB calls as IAM requests', () => {
  it('maps a transaction to each item’s own action on its own table, ConditionCheck to ConditionCheckItem', async () => {
    const command = new TransactWriteCommand({
      TransactItems: [
        {
          ConditionCheck: {
            TableName: TABLE,
            Key: { pk: 'BUSINESS#b', sk: 'BUSINESS' },
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
        { Put: { TableName: TABLE, Item: { pk: 'BUSINESS#b', sk: 'RECORD#faq#1', question: 'Q?' } } },
        {
          Update: {
            TableName: 'other',
            Key: { pk: 'COUNT#b', sk: 'faq' },
            UpdateExpression: 'SET #n = #n + :one, updated_at = :now REMOVE stale ADD tally :one',
            ExpressionAttributeNames: { '#n': 'count' },
            ExpressionAttributeValues: { ':one': 1, ':now': 'x' },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        { Delete: { TableName: TABLE, Key: { pk: 'PHOTO#p', sk: 'USAGE#1' } } },
      ],
      ReturnConsumedCapacity: 'TOTAL',
    });
    const requests = await requestsOf(command);
    expect(requests).toEqual([
      {
        action: 'dynamodb:ConditionCheckItem',
        resource: TABLE_ARN,
        context: {
          'dynamodb:LeadingKeys': ['BUSINESS#b'],
          'dynamodb:Attributes': ['pk', 'sk'],
          'dynamodb:ReturnConsumedCapacity': 'TOTAL',
        },
      },
      {
        action: 'dynamodb:PutItem',
        resource: TABLE_ARN,
        context: {
          'dynamodb:LeadingKeys': ['BUSINESS#b'],
          'dynamodb:Attributes': ['pk', 'sk', 'question'],
          'dynamodb:ReturnConsumedCapacity': 'TOTAL',
          'dynamodb:EnclosingOperation': 'TransactWriteItems',
        },
      },
      {
        action: 'dynamodb:UpdateItem',
        resource: OTHER_ARN,
        context: {
          'dynamodb:LeadingKeys': ['COUNT#b'],
          'dynamodb:Attributes': ['pk', 'sk', 'count', 'updated_at', 'stale', 'tally'],
          'dynamodb:ReturnConsumedCapacity': 'TOTAL',
          'dynamodb:EnclosingOperation': 'TransactWriteItems',
        },
      },
      {
        action: 'dynamodb:DeleteItem',
        resource: TABLE_ARN,
        context: {
          'dynamodb:LeadingKeys': ['PHOTO#p'],
          'dynamodb:Attributes': ['pk', 'sk'],
          'dynamodb:ReturnConsumedCapacity': 'TOTAL',
          'dynamodb:EnclosingOperation': 'TransactWriteItems',
        },
      },
    ]);
    // The same requests from the marshalled input the serializer is handed.
    expect(await requestsOf(command, 'build')).toEqual(requests);
  });

  it('maps TransactGetItems to GetItem on each table', async () => {
    const requests = await requestsOf(
      new TransactGetCommand({
        TransactItems: [
          { Get: { TableName: TABLE, Key: { pk: 'A', sk: '1' } } },
          { Get: { TableName: 'other', Key: { pk: 'B', sk: '2' }, ProjectionExpression: 'title' } },
        ],
      }),
    );
    expect(requests).toEqual([
      {
        action: 'dynamodb:GetItem',
        resource: TABLE_ARN,
        context: { 'dynamodb:LeadingKeys': ['A'], 'dynamodb:EnclosingOperation': 'TransactGetItems' },
      },
      {
        action: 'dynamodb:GetItem',
        resource: OTHER_ARN,
        context: {
          'dynamodb:LeadingKeys': ['B'],
          'dynamodb:Attributes': ['title'],
          'dynamodb:Select': 'SPECIFIC_ATTRIBUTES',
          'dynamodb:EnclosingOperation': 'TransactGetItems',
        },
      },
    ]);
  });

  it('maps a batch read to BatchGetItem on each table, with the partitions it reads there', async () => {
    const requests = await requestsOf(
      new BatchGetCommand({
        RequestItems: {
          [TABLE]: {
            Keys: [
              { pk: 'AGENT_KEY#h', sk: 'AGENT_KEY' },
              { pk: 'BUSINESS#b', sk: 'RECORD#faq#1' },
              { pk: 'BUSINESS#b', sk: 'RECORD#faq#2' },
            ],
            ProjectionExpression: '#s, scopes.#r[0]',
            ExpressionAttributeNames: { '#s': 'status', '#r': 'read' },
          },
          other: { Keys: [{ pk: 'X', sk: 'Y' }], ConsistentRead: true },
        },
      }),
    );
    expect(requests).toEqual([
      {
        action: 'dynamodb:BatchGetItem',
        resource: TABLE_ARN,
        context: {
          'dynamodb:LeadingKeys': ['AGENT_KEY#h', 'BUSINESS#b'],
          'dynamodb:Attributes': ['status', 'scopes'],
          'dynamodb:Select': 'SPECIFIC_ATTRIBUTES',
        },
      },
      { action: 'dynamodb:BatchGetItem', resource: OTHER_ARN, context: { 'dynamodb:LeadingKeys': ['X'] } },
    ]);
  });

  it('maps a batch write to BatchWriteItem, never to PutItem or DeleteItem', async () => {
    const requests = await requestsOf(
      new BatchWriteCommand({
        RequestItems: {
          [TABLE]: [
            { PutRequest: { Item: { pk: 'A', sk: '1', n: 2 } } },
            { DeleteRequest: { Key: { pk: 'B', sk: '2' } } },
          ],
        },
      }),
    );
    expect(requests).toEqual([
      {
        action: 'dynamodb:BatchWriteItem',
        resource: TABLE_ARN,
        context: { 'dynamodb:LeadingKeys': ['A', 'B'], 'dynamodb:Attributes': ['pk', 'sk', 'n'] },
      },
    ]);
  });

  it('maps a Query of an index to the index’s ARN, its partition key value the leading key', async () => {
    const [request] = await requestsOf(
      new QueryCommand({
        TableName: TABLE,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
        ExpressionAttributeValues: { ':pk': 'USER#u', ':prefix': 'BUSINESS#' },
        Limit: 10,
      }),
    );
    expect(request).toEqual({
      action: 'dynamodb:Query',
      resource: `${TABLE_ARN}/index/gsi1`,
      context: { 'dynamodb:LeadingKeys': ['USER#u'] },
    });
  });

  it('maps a Query of the table to the table’s ARN, reading a placeholder name either way round', async () => {
    const [request] = await requestsOf(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: ':v = #p',
        ExpressionAttributeNames: { '#p': 'pk' },
        ExpressionAttributeValues: { ':v': 'BUSINESS#b' },
        Select: 'COUNT',
      }),
    );
    expect(request).toEqual({
      action: 'dynamodb:Query',
      resource: TABLE_ARN,
      context: { 'dynamodb:LeadingKeys': ['BUSINESS#b'], 'dynamodb:Select': 'COUNT' },
    });
  });

  it('maps single-item calls with ReturnValues and a table named by its ARN', async () => {
    const [get] = await requestsOf(
      new GetCommand({ TableName: TABLE, Key: { pk: 'A', sk: '1' }, ConsistentRead: true }),
    );
    expect(get).toEqual({
      action: 'dynamodb:GetItem',
      resource: TABLE_ARN,
      context: { 'dynamodb:LeadingKeys': ['A'] },
    });
    const [put] = await requestsOf(new PutCommand({ TableName: OTHER_ARN, Item: { pk: 'A', sk: '1' } }));
    expect(put?.resource).toBe(OTHER_ARN);
    const [update] = await requestsOf(
      new UpdateCommand({
        TableName: TABLE,
        Key: { pk: 'A', sk: '1' },
        UpdateExpression: 'SET v = :v',
        ExpressionAttributeValues: { ':v': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    expect(update?.context['dynamodb:ReturnValues']).toBe('ALL_NEW');
    const [remove] = await requestsOf(
      new DeleteCommand({ TableName: TABLE, Key: { pk: 'A', sk: '1' }, ReturnValues: 'ALL_OLD' }),
    );
    expect(remove).toMatchObject({
      action: 'dynamodb:DeleteItem',
      context: { 'dynamodb:ReturnValues': 'ALL_OLD' },
    });
  });

  it('refuses an item call without its key, as DynamoDB would', async () => {
    await expect(requestsOf(new GetCommand({ TableName: TABLE } as never))).rejects.toThrow(
      MalformedCallError,
    );
  });

  it('gives only actions, ARNs and condition keys the Service Authorization Reference defines', async () => {
    const commands = [
      new TransactWriteCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: TABLE,
              Key: { pk: 'A', sk: '1' },
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
          { Put: { TableName: TABLE, Item: { pk: 'A', sk: '2' } } },
          {
            Update: {
              TableName: TABLE,
              Key: { pk: 'A', sk: '3' },
              UpdateExpression: 'SET v = :v',
              ExpressionAttributeValues: { ':v': 1 },
            },
          },
          {
            Delete: {
              TableName: TABLE,
              Key: { pk: 'A', sk: '4' },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
        ],
        ReturnConsumedCapacity: 'TOTAL',
      }),
      new TransactGetCommand({
        TransactItems: [{ Get: { TableName: TABLE, Key: { pk: 'A', sk: '1' }, ProjectionExpression: 'v' } }],
      }),
      new BatchGetCommand({
        RequestItems: { [TABLE]: { Keys: [{ pk: 'A', sk: '1' }], ProjectionExpression: 'v' } },
        ReturnConsumedCapacity: 'TOTAL',
      }),
      new BatchWriteCommand({
        RequestItems: { [TABLE]: [{ PutRequest: { Item: { pk: 'A', sk: '1' } } }] },
        ReturnConsumedCapacity: 'TOTAL',
      }),
      new QueryCommand({
        TableName: TABLE,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :p',
        ExpressionAttributeValues: { ':p': 'x' },
        Select: 'ALL_PROJECTED_ATTRIBUTES',
        ReturnConsumedCapacity: 'TOTAL',
      }),
      new PutCommand({
        TableName: TABLE,
        Item: { pk: 'A', sk: '1' },
        ReturnValues: 'ALL_OLD',
        ReturnConsumedCapacity: 'TOTAL',
      }),
      new UpdateCommand({
        TableName: TABLE,
        Key: { pk: 'A', sk: '1' },
        UpdateExpression: 'SET v = :v',
        ExpressionAttributeValues: { ':v': 1 },
        ReturnValues: 'ALL_NEW',
      }),
      new DeleteCommand({ TableName: TABLE, Key: { pk: 'A', sk: '1' }, ReturnValues: 'ALL_OLD' }),
      new GetCommand({
        TableName: TABLE,
        Key: { pk: 'A', sk: '1' },
        ProjectionExpression: 'v',
        ReturnConsumedCapacity: 'TOTAL',
      }),
    ];
    for (const command of commands) {
      for (const request of await requestsOf(command)) {
        const checked = await referenceCheck(request);
        expect(checked, request.action).toMatchObject({
          decision: 'Allowed',
          resourceType: request.resource.includes('/index/') ? 'index' : 'table',
          ignoredKeys: [],
        });
      }
    }
  });
});
