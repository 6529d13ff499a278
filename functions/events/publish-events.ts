import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { publishRecords } from '#lib/events/publish.ts';

/**
 * The change-event publisher (docs/events.md): invoked by the table stream's event source mapping
 * with the new Change History and outbox entries only (lib/events/stream-filter.ts), it puts their
 * events in the feed and on the bus and reports partial batch failures. Not an HTTP route.
 */
export const handler = (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> =>
  publishRecords(event.Records);
