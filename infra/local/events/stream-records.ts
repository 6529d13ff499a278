import type { _Record as StreamsRecord } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';

/**
 * A record as DynamoDB Streams' GetRecords gives it (the SDK's form), in the shape Lambda delivers
 * it to a function (`DynamoDBStreamEvent.Records[n]`): the same fields, with what Lambda adds
 * (`eventSourceARN`), the creation time in epoch seconds and binary values in base64, as they
 * travel in Lambda's JSON payload.
 *
 * DynamoDB Local names its region `ddblocal` in stream ARNs and records; they are rewritten to the
 * local stack's region, so what the function sees is what it would see in a deployment.
 */
export function lambdaRecord(record: StreamsRecord, streamArn: string, region: string): DynamoDBRecord {
  const stream = record.dynamodb ?? {};
  const created = stream.ApproximateCreationDateTime;
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: region,
    dynamodb: withoutUndefined({
      ApproximateCreationDateTime: created === undefined ? undefined : Math.floor(created.getTime() / 1000),
      Keys: jsonValues(stream.Keys),
      NewImage: jsonValues(stream.NewImage),
      OldImage: jsonValues(stream.OldImage),
      SequenceNumber: stream.SequenceNumber,
      SizeBytes: stream.SizeBytes,
      StreamViewType: stream.StreamViewType,
    }),
    eventSourceARN: localStreamArn(streamArn, region),
    ...(record.userIdentity ? { userIdentity: record.userIdentity } : {}),
  } as DynamoDBRecord;
}

/** The event a function gets for one batch. */
export const streamEvent = (records: DynamoDBRecord[]): DynamoDBStreamEvent => ({ Records: records });

/** `arn:aws:dynamodb:ddblocal:…` as `arn:aws:dynamodb:<region>:…`. */
export function localStreamArn(streamArn: string, region: string): string {
  const parts = streamArn.split(':');
  if (parts[3] === 'ddblocal') parts[3] = region;
  return parts.join(':');
}

/** Attribute values as JSON carries them: binary (B, BS) in base64, the rest as they are. */
function jsonValues(image: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (image === undefined) return undefined;
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, jsonValue(value)]));
}

function jsonValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(jsonValue);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, item]) => item !== undefined)
        .map(([key, item]) => [key, jsonValue(item)]),
    );
  }
  return value;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}
