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

/**
 * Attribute values as JSON carries them: binary (B, BS) in base64, the rest as they are. The
 * Streams client gives an empty map as `{}` where DynamoDB's JSON (and so Lambda's event) has
 * `{"M":{}}`: an attribute value always has exactly one type, so `{}` is put back as the empty map
 * it was (unmarshall refuses `{}`: "No value defined").
 */
function jsonValues(image: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (image === undefined) return undefined;
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, attributeValue(value)]));
}

function attributeValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const typed = Object.entries(value).filter(([, item]) => item !== undefined);
  if (typed.length === 0) return { M: {} };
  return Object.fromEntries(
    typed.map(([type, item]) => {
      if (type === 'M') return [type, jsonValues(item as Record<string, unknown>)];
      if (type === 'L') return [type, (item as unknown[]).map(attributeValue)];
      if (type === 'B') return [type, base64(item)];
      if (type === 'BS') return [type, (item as unknown[]).map(base64)];
      return [type, item];
    }),
  );
}

const base64 = (bytes: unknown) =>
  bytes instanceof Uint8Array ? Buffer.from(bytes).toString('base64') : bytes;

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}
