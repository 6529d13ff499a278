/**
 * Test-only stream function (never deployed): appends each batch it receives to RECORD_FILE (one
 * JSON line per invocation) and misbehaves as a record's new image asks: `fail_times` (N) reports
 * the record in batchItemFailures the first N times it sees it, `throw_times` (N) throws the first
 * N times it sees it. Stands in for the change events' publisher in the stream poller's tests.
 */
import { appendFileSync } from 'node:fs';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';

const seen = new Map<string, number>();
let invocation = 0;

export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  invocation += 1;
  const file = process.env.RECORD_FILE;
  if (!file) throw new Error('RECORD_FILE is not set');
  appendFileSync(file, `${JSON.stringify({ invocation, records: event.Records })}\n`);
  const batchItemFailures: DynamoDBBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    const sequenceNumber = record.dynamodb?.SequenceNumber ?? '';
    const times = (seen.get(sequenceNumber) ?? 0) + 1;
    seen.set(sequenceNumber, times);
    const image = record.dynamodb?.NewImage ?? {};
    if (times <= Number(image.throw_times?.N ?? 0)) throw new Error(`stand-in: failing on ${sequenceNumber}`);
    if (times <= Number(image.fail_times?.N ?? 0)) batchItemFailures.push({ itemIdentifier: sequenceNumber });
  }
  return { batchItemFailures };
}
