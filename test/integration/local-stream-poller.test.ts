import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DynamoDBClient,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ensureTable,
  LOCAL_AWS,
  type RunningEmulator,
  startDynamoDbLocal,
} from '../../infra/local/emulators.ts';
import { memoryCheckpoints } from '../../infra/local/events/stream-checkpoint.ts';
import { type StreamMapping, tableStreamMappings } from '../../infra/local/events/stream-mapping.ts';
import { StreamPoller } from '../../infra/local/events/stream-poller.ts';
import { localTemplates } from '../../infra/local/iam/template-cache.ts';
import { invokeFunction } from '../../infra/local/lambda-runner.ts';
import { ROOT_DIR } from '../../infra/local/paths.ts';
import { streamMappingTemplate } from '../support/stream-mapping-template.ts';

/**
 * The harness's stream poller against a DynamoDB Local of this file's own (a table per test, so
 * each stream holds only that test's records and starts empty, as a fresh stack's does), with the
 * mapping read from a hand-written template and a stand-in function (test/support/functions/
 * stream-recorder.ts) run through the same runner as every function, with the role and
 * configuration of a deployed one.
 */
let emulator: RunningEmulator;
let dynamodb: DynamoDBClient;
let recordDir: string;
const pollers: StreamPoller[] = [];

beforeAll(async () => {
  await localTemplates();
  emulator = await startDynamoDbLocal(undefined);
  dynamodb = new DynamoDBClient({ ...LOCAL_AWS, endpoint: emulator.endpoint });
  recordDir = mkdtempSync(join(tmpdir(), 'stream-recorder-'));
});
afterEach(async () => {
  await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
});
afterAll(async () => {
  dynamodb?.destroy();
  await emulator?.stop();
  rmSync(recordDir, { recursive: true, force: true });
});

interface Delivered {
  invocation: number;
  records: DynamoDBRecord[];
}

/** A table with a stream, a stand-in function recording what it receives, and a poller to start. */
async function arrange(mapping: Parameters<typeof streamMappingTemplate>[0] = {}) {
  const tableName = `T${randomUUID().slice(0, 8)}`;
  await ensureTable(emulator.endpoint, tableName);
  const recordFile = join(recordDir, `${tableName}.jsonl`);
  const definition = {
    operationId: `streamRecorder${tableName}`,
    handler: 'test/support/functions/stream-recorder.ts',
    deployedAs: 'putBlogAutoSchedule',
    environment: { RECORD_FILE: recordFile },
  };
  const [streamMapping] = tableStreamMappings(streamMappingTemplate(mapping)) as [StreamMapping];
  const checkpoints = memoryCheckpoints();
  const logged: string[] = [];
  const poller = (options: { streams?: DynamoDBStreamsClient } = {}) => {
    const started = new StreamPoller({
      endpoint: emulator.endpoint,
      tableName,
      mapping: streamMapping,
      checkpoints,
      retryDelayMs: () => 50,
      log: (line) => logged.push(line),
      deliver: async (event) => {
        const outcome = await invokeFunction(ROOT_DIR, definition, event);
        return outcome.returned
          ? { returned: true, result: outcome.result }
          : { returned: false, message: outcome.message };
      },
      ...options,
    });
    pollers.push(started);
    return started;
  };
  const delivered = (): Delivered[] =>
    existsSync(recordFile)
      ? readFileSync(recordFile, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line))
      : [];
  const put = (sk: string, extra: Record<string, { N: string } | { S: string }> = {}) =>
    dynamodb.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { pk: { S: 'BUSINESS#1' }, sk: { S: sk }, ...extra },
      }),
    );
  const sortKeys = (records: DynamoDBRecord[]) => records.map((record) => record.dynamodb?.Keys?.sk?.S);
  return { tableName, poller, delivered, put, sortKeys, logged };
}

const allRecords = (deliveries: Delivered[]) => deliveries.flatMap((delivery) => delivery.records);

describe('the local stream poller delivers the table’s stream as Lambda does', () => {
  it('delivers the records the mapping’s filters let through, in commit order, in batches of its batch size, in Lambda’s event shape', async () => {
    const { tableName, poller, delivered, put, sortKeys } = await arrange({ batchSize: 2 });
    // Started on the empty stream of a new table, as a fresh stack's poller is: DynamoDB Local may
    // answer a read with an iterator taken then with TrimmedDataAccessException once records arrive.
    await poller().start();

    await put('HISTORY#1', { version: { N: '1' } });
    await put('RECORD#faq#1'); // no filter lets it through
    await dynamodb.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: { pk: { S: 'BUSINESS#1' }, sk: { S: 'HISTORY#1' } },
        UpdateExpression: 'SET touched = :t',
        ExpressionAttributeValues: { ':t': { S: 'yes' } },
      }),
    ); // a MODIFY: filtered out
    await dynamodb.send(
      new TransactWriteItemsCommand({
        TransactItems: ['OUTBOX#2', 'RECORD#faq#2', 'HISTORY#3'].map((sk) => ({
          Put: { TableName: tableName, Item: { pk: { S: 'BUSINESS#1' }, sk: { S: sk } } },
        })),
      }),
    );
    await put('HISTORY#4');

    await vi.waitFor(() => expect(allRecords(delivered())).toHaveLength(4), {
      timeout: 15_000,
      interval: 100,
    });
    const deliveries = delivered();
    const records = allRecords(deliveries);
    expect(sortKeys(records)).toEqual(['HISTORY#1', 'OUTBOX#2', 'HISTORY#3', 'HISTORY#4']);
    for (const delivery of deliveries) expect(delivery.records.length).toBeLessThanOrEqual(2);
    const sequenceNumbers = records.map((record) => BigInt(record.dynamodb?.SequenceNumber ?? '0'));
    expect([...sequenceNumbers].sort((a, b) => (a < b ? -1 : 1))).toEqual(sequenceNumbers);
    expect(records[0]).toEqual({
      eventID: expect.any(String),
      eventName: 'INSERT',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: LOCAL_AWS.region,
      eventSourceARN: expect.stringMatching(
        new RegExp(`^arn:aws:dynamodb:${LOCAL_AWS.region}:000000000000:table/${tableName}/stream/`),
      ),
      dynamodb: {
        ApproximateCreationDateTime: expect.any(Number),
        Keys: { pk: { S: 'BUSINESS#1' }, sk: { S: 'HISTORY#1' } },
        NewImage: { pk: { S: 'BUSINESS#1' }, sk: { S: 'HISTORY#1' }, version: { N: '1' } },
        SequenceNumber: expect.stringMatching(/^\d+$/),
        SizeBytes: expect.any(Number),
        StreamViewType: 'NEW_IMAGE',
      },
    });
  });

  it('re-delivers from the lowest record a batch reports as failed, after those before it were taken', async () => {
    const { poller, delivered, put, sortKeys } = await arrange({ batchSize: 10 });
    await put('HISTORY#1');
    await put('HISTORY#2', { fail_times: { N: '2' } });
    await put('HISTORY#3');
    await poller().start();

    await vi.waitFor(() => expect(delivered()).toHaveLength(3), { timeout: 15_000, interval: 100 });
    expect(delivered().map((delivery) => sortKeys(delivery.records))).toEqual([
      ['HISTORY#1', 'HISTORY#2', 'HISTORY#3'],
      ['HISTORY#2', 'HISTORY#3'],
      ['HISTORY#2', 'HISTORY#3'],
    ]);
    // Nothing after: the third delivery succeeded.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(delivered()).toHaveLength(3);
  });

  it('retries a batch whose function throws, halved when the mapping bisects on error', async () => {
    const { poller, delivered, put, sortKeys } = await arrange({ batchSize: 10, bisect: true });
    await put('HISTORY#1');
    await put('HISTORY#2', { throw_times: { N: '1' } });
    await put('HISTORY#3');
    await put('HISTORY#4');
    await poller().start();

    await vi.waitFor(() => expect(delivered()).toHaveLength(3), { timeout: 15_000, interval: 100 });
    expect(delivered().map((delivery) => sortKeys(delivery.records))).toEqual([
      ['HISTORY#1', 'HISTORY#2', 'HISTORY#3', 'HISTORY#4'],
      ['HISTORY#1', 'HISTORY#2'],
      ['HISTORY#3', 'HISTORY#4'],
    ]);
  });

  it('gives up on a batch after the mapping’s retries, logs what the dead-letter queue receives, and goes on', async () => {
    const { poller, delivered, put, sortKeys, logged } = await arrange({
      batchSize: 1,
      maximumRetryAttempts: 2,
    });
    await put('HISTORY#1', { fail_times: { N: '99' } });
    await put('HISTORY#2');
    const started = poller();
    await started.start();

    await vi.waitFor(() => expect(sortKeys(allRecords(delivered())).at(-1)).toBe('HISTORY#2'), {
      timeout: 15_000,
      interval: 100,
    });
    // The first delivery and its two retries, then the next record.
    expect(delivered().map((delivery) => sortKeys(delivery.records))).toEqual([
      ['HISTORY#1'],
      ['HISTORY#1'],
      ['HISTORY#1'],
      ['HISTORY#2'],
    ]);
    const failedSequenceNumber = delivered()[0]?.records[0]?.dynamodb?.SequenceNumber;
    expect(started.deadLetters).toEqual([
      {
        requestContext: expect.objectContaining({
          condition: 'RetryAttemptsExhausted',
          approximateInvokeCount: 3,
        }),
        DDBStreamBatchInfo: expect.objectContaining({
          startSequenceNumber: failedSequenceNumber,
          endSequenceNumber: failedSequenceNumber,
          batchSize: 1,
        }),
      },
    ]);
    expect(logged.join('\n')).toMatch(/gave up on 1 stream record\(s\) after 2 retries; in AWS arn:aws:sqs:/);
  });

  it('goes on after its checkpoint when restarted, delivering nothing twice and nothing written meanwhile late', async () => {
    const { poller, delivered, put, sortKeys } = await arrange();
    const first = poller();
    await first.start();
    await put('HISTORY#1');
    await vi.waitFor(() => expect(allRecords(delivered())).toHaveLength(1), {
      timeout: 15_000,
      interval: 100,
    });
    await first.stop();

    await put('HISTORY#2');
    await put('HISTORY#3');
    await poller().start();

    await vi.waitFor(() => expect(allRecords(delivered())).toHaveLength(3), {
      timeout: 15_000,
      interval: 100,
    });
    expect(sortKeys(allRecords(delivered()))).toEqual(['HISTORY#1', 'HISTORY#2', 'HISTORY#3']);
  });

  it('takes a new iterator from its checkpoint when the stream answers TrimmedDataAccessException or ExpiredIteratorException', async () => {
    const { poller, delivered, put, sortKeys } = await arrange();
    // AWS's answers to a read with an iterator past its 15 minutes, or behind the stream's 24 hours,
    // injected into the poller's own client on its reads after the first records were delivered.
    const streams = new DynamoDBStreamsClient({ ...LOCAL_AWS, endpoint: emulator.endpoint, maxAttempts: 1 });
    const injected: string[] = [];
    let armed = false;
    streams.middlewareStack.add(
      (next, context) => async (args) => {
        if (armed && context.commandName === 'GetRecordsCommand' && injected.length < 2) {
          const name = injected.length === 0 ? 'ExpiredIteratorException' : 'TrimmedDataAccessException';
          injected.push(name);
          throw Object.assign(new Error(`injected ${name}`), { name });
        }
        return next(args);
      },
      { step: 'initialize', name: 'injectStaleIterator' },
    );
    await poller({ streams }).start();
    await put('HISTORY#1');
    await vi.waitFor(() => expect(allRecords(delivered())).toHaveLength(1), {
      timeout: 15_000,
      interval: 100,
    });

    armed = true;
    await put('HISTORY#2');
    await vi.waitFor(() => expect(allRecords(delivered())).toHaveLength(2), {
      timeout: 15_000,
      interval: 100,
    });

    expect(injected).toEqual(['ExpiredIteratorException', 'TrimmedDataAccessException']);
    expect(sortKeys(allRecords(delivered()))).toEqual(['HISTORY#1', 'HISTORY#2']);
  });

  it('starts after the stream’s last record when the mapping starts at LATEST', async () => {
    const { poller, delivered, put, sortKeys } = await arrange({ startingPosition: 'LATEST' });
    await put('HISTORY#before');
    await poller().start();
    await put('HISTORY#after');

    await vi.waitFor(() => expect(allRecords(delivered())).toHaveLength(1), {
      timeout: 15_000,
      interval: 100,
    });
    expect(sortKeys(allRecords(delivered()))).toEqual(['HISTORY#after']);
  });
});
