import { unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { lambdaRecord } from '../../infra/local/events/stream-records.ts';

describe("the harness's stream records, as Lambda delivers them", () => {
  it('puts back the empty maps the Streams client gives as {}, and sends binary as base64', () => {
    const record = lambdaRecord(
      {
        eventID: 'e1',
        eventName: 'INSERT',
        dynamodb: {
          Keys: { pk: { S: 'P' }, sk: { S: 'HISTORY#1' } },
          // As the Streams client hands it over: an empty map is `{}`, nested or not.
          NewImage: {
            pk: { S: 'P' },
            before: {} as never,
            after: { M: { note: {} as never, tags: { L: [{}] as never } } },
            bytes: { B: new Uint8Array([1, 2, 3]) },
          },
          SequenceNumber: '100',
        },
      },
      'arn:aws:dynamodb:ddblocal:000000000000:table/t/stream/1',
      'eu-central-1',
    );
    const image = record.dynamodb?.NewImage as Record<string, unknown>;
    expect(image.before).toEqual({ M: {} });
    expect(image.bytes).toEqual({ B: 'AQID' });
    expect(unmarshall({ ...image, bytes: { NULL: true } } as never)).toEqual({
      pk: 'P',
      before: {},
      after: { note: {}, tags: [{}] },
      bytes: null,
    });
    expect(record.eventSourceARN).toBe('arn:aws:dynamodb:eu-central-1:000000000000:table/t/stream/1');
  });
});
