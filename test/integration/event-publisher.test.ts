import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoClient } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import type { ChangeEvent } from '#lib/events/change-event.ts';
import { forgetCounterForTests } from '#lib/events/feed-writes.ts';
import { publishRecords } from '#lib/events/publish.ts';
import { feedItemsOf } from '../support/feed-items.ts';

/**
 * The publisher against DynamoDB Local and a bus endpoint that answers PutEvents over HTTP, with
 * stream records made from Change History entries of businesses of this file's own (they are never
 * written to the table, so the harness's own publisher never sees them).
 */
const bus: { entries: { DetailType: string; Detail: string; EventBusName: string }[]; server?: Server } = {
  entries: [],
};

beforeAll(async () => {
  bus.server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const { Entries } = JSON.parse(body) as { Entries: typeof bus.entries };
      bus.entries.push(...Entries);
      response.setHeader('content-type', 'application/x-amz-json-1.1');
      response.end(
        JSON.stringify({ FailedEntryCount: 0, Entries: Entries.map(() => ({ EventId: randomUUID() })) }),
      );
    });
  });
  const server = bus.server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.env.AWS_ENDPOINT_URL_EVENTBRIDGE = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.EVENT_BUS_NAME = 'business-platform-test';
});
afterAll(() => bus.server?.close());

let streamSequence = 10n ** 20n;

/** A Change History entry of a record's change, as the write path puts it. */
function historyEntry(
  businessId: string,
  recordId: string,
  action: 'create' | 'update' | 'delete',
  version: number | undefined,
  extras: Record<string, unknown> = {},
) {
  const id = uuidv7();
  return {
    ...keys.history(businessId, id),
    id,
    business_id: businessId,
    entity: 'faq',
    record_id: recordId,
    action,
    before: action === 'create' ? null : { answer: 'old' },
    after: action === 'delete' ? null : { question: 'Q?', answer: 'A.' },
    actor: { type: 'agent', id: 'key-1' },
    at: new Date().toISOString(),
    ...(version === undefined ? {} : { version }),
    ...extras,
  };
}

/** The stream record Lambda would deliver for a new item. */
function inserted(item: Record<string, unknown>): DynamoDBRecord {
  streamSequence += 1n;
  return {
    eventName: 'INSERT',
    dynamodb: {
      Keys: marshall({ pk: item.pk, sk: item.sk }) as never,
      NewImage: marshall(item, { removeUndefinedValues: true }) as never,
      SequenceNumber: String(streamSequence),
      StreamViewType: 'NEW_IMAGE',
    },
  };
}

const busIds = () => bus.entries.map((entry) => (JSON.parse(entry.Detail) as ChangeEvent).id);

describe('the change-event publisher', () => {
  it('puts each event in the feed once, however often its batch is published, and on the bus each time', async () => {
    const businessId = randomUUID();
    const recordId = randomUUID();
    const entries = [
      historyEntry(businessId, recordId, 'create', 1),
      historyEntry(businessId, recordId, 'update', 2, { changeset_id: randomUUID() }),
      historyEntry(businessId, randomUUID(), 'create', 1),
    ];
    const batch = entries.map(inserted);
    const before = bus.entries.length;

    expect(await publishRecords(batch)).toEqual({ batchItemFailures: [] });
    expect(await publishRecords(batch)).toEqual({ batchItemFailures: [] });

    const feed = await feedItemsOf(businessId);
    expect(feed.map(({ event }) => event.id)).toEqual(entries.map((entry) => entry.id));
    const seqs = feed.map(({ seq }) => seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const global = new Map((await feedItemsOf(null)).map(({ seq, event }) => [event.id, seq]));
    expect(feed.map(({ event }) => global.get(event.id))).toEqual(seqs);
    // At least once on the bus: both publications, the same ids, each event whole as the detail.
    const sent = busIds().slice(before);
    expect(sent).toEqual([...entries, ...entries].map((entry) => entry.id));
    expect(bus.entries.at(-2)).toMatchObject({
      EventBusName: 'business-platform-test',
      DetailType: 'record.updated',
    });
    expect(feed[1]?.event).toEqual({
      id: entries[1]?.id,
      type: 'record.updated',
      business_id: businessId,
      entity: 'faq',
      record_id: recordId,
      version: 2,
      changed_fields: ['answer', 'question'],
      actor: { kind: 'agent', id: 'key-1' },
      change_id: entries[1]?.id,
      changeset_id: (entries[1] as Record<string, unknown>).changeset_id,
      undo_of: null,
      revert_of: null,
      occurred_at: entries[1]?.at,
    });
  });

  it("holds a record's change back until its previous change is in the feed", async () => {
    const businessId = randomUUID();
    const recordId = randomUUID();
    const [create, update, remove] = [
      historyEntry(businessId, recordId, 'create', 1),
      historyEntry(businessId, recordId, 'update', 2),
      historyEntry(businessId, recordId, 'delete', 2),
    ];

    // The update and delete arrive first (from another shard, as AWS may deliver): they wait.
    const early = publishRecords([inserted(update), inserted(remove)], 10_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await feedItemsOf(businessId)).toEqual([]);
    expect(await publishRecords([inserted(create)])).toEqual({ batchItemFailures: [] });
    expect(await early).toEqual({ batchItemFailures: [] });

    const feed = await feedItemsOf(businessId);
    expect(feed.map(({ event }) => [event.type, event.version])).toEqual([
      ['record.created', 1],
      ['record.updated', 2],
      ['record.deleted', null],
    ]);
  });

  it('publishes a change whose predecessor never comes, after the wait, and keeps the chain from it', async () => {
    const businessId = randomUUID();
    const recordId = randomUUID();
    const entries = [
      historyEntry(businessId, recordId, 'update', 7),
      historyEntry(businessId, recordId, 'update', 8),
    ];

    expect(await publishRecords(entries.map(inserted), 300)).toEqual({ batchItemFailures: [] });
    expect((await feedItemsOf(businessId)).map(({ event }) => event.version)).toEqual([7, 8]);
  });

  it("gives a demoted primary's change the version after the record's last one", async () => {
    const businessId = randomUUID();
    const recordId = randomUUID();
    const entries = [
      historyEntry(businessId, recordId, 'create', 1),
      historyEntry(businessId, recordId, 'update', 2),
      historyEntry(businessId, recordId, 'update', undefined),
      historyEntry(businessId, recordId, 'update', 4),
    ];
    expect(await publishRecords(entries.map(inserted))).toEqual({ batchItemFailures: [] });
    expect((await feedItemsOf(businessId)).map(({ event }) => event.version)).toEqual([1, 2, 3, 4]);
  });

  it('gives every event of 20 concurrent publishers one position, with no gaps', async () => {
    const businessId = randomUUID();
    const batches = Array.from({ length: 20 }, () =>
      Array.from({ length: 3 }, () => inserted(historyEntry(businessId, randomUUID(), 'create', 1))),
    );
    const results = await Promise.all(batches.map((batch) => publishRecords(batch)));

    expect(results.every((result) => result.batchItemFailures.length === 0)).toBe(true);
    const feed = await feedItemsOf(businessId);
    expect(feed).toHaveLength(60);
    expect(new Set(feed.map(({ event }) => event.id)).size).toBe(60);
    // Per business the positions are a subset of the global ones; in this business's burst, all of them.
    const seqs = feed.map(({ seq }) => seq);
    const global = (await feedItemsOf(null)).map(({ seq }) => seq);
    expect(seqs.every((seq) => global.includes(seq))).toBe(true);
    expect(new Set(seqs).size).toBe(60);
  });

  it('tries again when AWS answers TransactionConflict (injected: DynamoDB Local runs transactions one at a time)', async () => {
    const businessId = randomUUID();
    let injected = 0;
    const name = 'eventPublisherTransactionConflict';
    dynamoClient.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand' && injected === 0) {
          injected += 1;
          throw new TransactionCanceledException({
            message:
              'Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]',
            $metadata: {},
            CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
          });
        }
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      forgetCounterForTests();
      const entry = historyEntry(businessId, randomUUID(), 'create', 1);
      expect(await publishRecords([inserted(entry)])).toEqual({ batchItemFailures: [] });
      expect(injected).toBe(1);
      expect((await feedItemsOf(businessId)).map(({ event }) => event.id)).toEqual([entry.id]);
    } finally {
      dynamoClient.middlewareStack.remove(name);
    }
  });

  it('ignores records that are not new Change History or outbox entries, and entries it cannot read', async () => {
    const businessId = randomUUID();
    const record = inserted({ ...keys.record(businessId, 'faq', randomUUID()), version: 1 });
    const modified = {
      ...inserted(historyEntry(businessId, randomUUID(), 'create', 1)),
      eventName: 'MODIFY' as const,
    };
    // Not an entry any write of ours makes: logged and skipped, never retried.
    const malformed = inserted({ ...keys.history(businessId, randomUUID()), business_id: businessId });
    expect(await publishRecords([record, modified, malformed])).toEqual({ batchItemFailures: [] });
    expect(await feedItemsOf(businessId)).toEqual([]);
  });
});
