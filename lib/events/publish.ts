import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { putOnBus } from '#lib/events/bus.ts';
import { type EventSource, eventSourceOf } from '#lib/events/derive.ts';
import { appendToFeed, type FeedOutcome, ORDER_WAIT_MS } from '#lib/events/feed-writes.ts';
import { logger } from '#lib/observability/logger.ts';

interface Offered {
  source: EventSource;
  /** The stream record's sequence number: what a partial batch failure names. */
  sequenceNumber: string;
}

/**
 * The publisher (docs/events.md): a batch of stream records, in stream order, becomes events in
 * the feed (exactly once: a second publication of an event finds its marker) and then on the bus
 * (at least once: a retried batch puts them again, with the same ids).
 *
 * When the feed's transaction fails, the events before it are in the feed and go on the bus, and
 * the answer names the first record whose event is not in the feed: Lambda retries the batch from
 * it. When the bus fails, the whole batch is retried (the feed finds its events already there).
 */
export async function publishRecords(
  records: DynamoDBRecord[],
  orderWaitMs: number = ORDER_WAIT_MS,
): Promise<DynamoDBBatchResponse> {
  const offered = records.flatMap((record): Offered[] => {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || !image) return [];
    const sequenceNumber = record.dynamodb?.SequenceNumber ?? '';
    try {
      const source = eventSourceOf(unmarshall(image as Record<string, AttributeValue>));
      return source ? [{ source, sequenceNumber }] : [];
    } catch (error) {
      // An entry no write of ours makes: retrying cannot help, and it must not hold back the rest.
      logger.error('a stream record is no event this service can read; skipped', {
        sequence_number: sequenceNumber,
        keys: record.dynamodb?.Keys,
        error: error instanceof Error ? error.message : String(error),
      });
      return [];
    }
  });
  if (offered.length === 0) return { batchItemFailures: [] };

  const outcomes: FeedOutcome[] = [];
  let failure: unknown;
  try {
    outcomes.push(
      ...(await appendToFeed(
        offered.map((entry) => entry.source),
        undefined,
        orderWaitMs,
      )),
    );
  } catch (error) {
    failure = error;
  }
  // As published: a demoted primary's version filled in.
  if (outcomes.length > 0) await putOnBus(outcomes.map((outcome) => outcome.event));
  const published = outcomes.flatMap((outcome) => (outcome.status === 'published' ? [outcome.seq] : []));
  logger.info('events published', {
    published: published.length,
    already_in_feed: outcomes.length - published.length,
    ...(published.length > 0 ? { first_seq: published[0], last_seq: published.at(-1) } : {}),
  });
  for (const outcome of outcomes) {
    logger.debug('event published', {
      event_id: outcome.event.id,
      type: outcome.event.type,
      business_id: outcome.event.business_id,
      ...(outcome.status === 'published' ? { seq: outcome.seq } : { duplicate: true }),
    });
  }
  const stop = offered[outcomes.length];
  if (!stop) return { batchItemFailures: [] };
  logger.error('events not published; the batch is retried from the first', {
    event_id: stop.source.event.id,
    error: failure instanceof Error ? failure.message : String(failure),
  });
  return { batchItemFailures: [{ itemIdentifier: stop.sequenceNumber }] };
}
