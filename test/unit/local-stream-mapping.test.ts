import { describe, expect, it } from 'vitest';
import { batchVerdict } from '../../infra/local/events/batch-response.ts';
import {
  compileFilterPattern,
  passesFilters,
  UnsupportedFilterRule,
} from '../../infra/local/events/filter-rules.ts';
import { tableStreamMappings } from '../../infra/local/events/stream-mapping.ts';
import { CHANGE_EVENT_PATTERNS, streamMappingTemplate } from '../support/stream-mapping-template.ts';

const record = (eventName: string, sk: string) => ({
  eventName,
  dynamodb: { Keys: { pk: { S: 'BUSINESS#1' }, sk: { S: sk } }, SequenceNumber: '1' },
});

describe('the local stream poller reads its event source mapping from the templates', () => {
  it('takes the function, batch size, filters, retries, bisect, item failures and destination of the mapping on the table’s stream', () => {
    const mappings = tableStreamMappings(
      streamMappingTemplate({ batchSize: 7, maximumRetryAttempts: 3, startingPosition: 'LATEST' }),
    );

    // The SQS mapping of the same template is not the table's stream's.
    expect(mappings).toHaveLength(1);
    expect(mappings[0]).toMatchObject({
      functionName: 'PublishEvents',
      batchSize: 7,
      startingPosition: 'LATEST',
      maximumRetryAttempts: 3,
      bisectBatchOnFunctionError: true,
      reportBatchItemFailures: true,
      onFailureDestination: expect.stringMatching(/^arn:aws:sqs:.*PublisherDeadLetters/),
    });
    expect(mappings[0]?.filters.map((filter) => JSON.parse(filter.source))).toEqual(CHANGE_EVENT_PATTERNS);
  });

  it('refuses, when it reads the template, a filter operator it does not implement', () => {
    for (const operator of [
      { 'anything-but': ['x'] },
      { numeric: ['>', 1] },
      { suffix: '#' },
      { exists: true },
      { prefix: 'a', suffix: 'b' },
      { wildcard: 'a*' },
    ]) {
      const pattern = { dynamodb: { Keys: { sk: { S: [operator] } } } };
      expect(() => tableStreamMappings(streamMappingTemplate({ patterns: [pattern] }))).toThrow(
        UnsupportedFilterRule,
      );
    }
    expect(() => compileFilterPattern('{"eventName": "INSERT"}')).toThrow(/must be a list/);
    expect(() => compileFilterPattern('not json')).toThrow(UnsupportedFilterRule);
  });
});

describe('Lambda’s filter rules, as far as the templates use them', () => {
  const filters = CHANGE_EVENT_PATTERNS.map((pattern) => compileFilterPattern(JSON.stringify(pattern)));

  it('delivers a new Change History or outbox entry, and nothing else', () => {
    expect(passesFilters(record('INSERT', 'HISTORY#0194'), filters)).toBe(true);
    expect(passesFilters(record('INSERT', 'OUTBOX#0194'), filters)).toBe(true);
    expect(passesFilters(record('MODIFY', 'HISTORY#0194'), filters)).toBe(false);
    expect(passesFilters(record('REMOVE', 'OUTBOX#0194'), filters)).toBe(false);
    expect(passesFilters(record('INSERT', 'RECORD#faq#1'), filters)).toBe(false);
    // A prefix matches the start only, and is case-sensitive.
    expect(passesFilters(record('INSERT', 'X#HISTORY#1'), filters)).toBe(false);
    expect(passesFilters(record('INSERT', 'history#1'), filters)).toBe(false);
    // A field the record lacks never matches.
    expect(passesFilters({ eventName: 'INSERT', dynamodb: { Keys: { pk: { S: 'x' } } } }, filters)).toBe(
      false,
    );
  });

  it('matches exact values, and any element of a list in the record; no filters lets everything through', () => {
    const exact = compileFilterPattern(JSON.stringify({ dynamodb: { NewImage: { n: { N: ['1', '2'] } } } }));
    expect(passesFilters({ dynamodb: { NewImage: { n: { N: '2' } } } }, [exact])).toBe(true);
    expect(passesFilters({ dynamodb: { NewImage: { n: { N: '3' } } } }, [exact])).toBe(false);
    expect(passesFilters({ dynamodb: { NewImage: { n: { N: ['3', '1'] } } } }, [exact])).toBe(true);
    expect(passesFilters(record('REMOVE', 'x'), [])).toBe(true);
  });
});

describe('what Lambda makes of a stream function’s answer', () => {
  const batch = ['98', '99', '100', '101'];

  it('retries from the lowest failed sequence number, compared as numbers', () => {
    // As text, '100' < '99'; as sequence numbers, 99 comes first.
    expect(
      batchVerdict({ batchItemFailures: [{ itemIdentifier: '100' }, { itemIdentifier: '99' }] }, batch, true),
    ).toEqual({ done: 'before', failedFrom: '99' });
  });

  it('takes an empty or absent list as success, and ignores the list when the mapping does not report item failures', () => {
    expect(batchVerdict({ batchItemFailures: [] }, batch, true)).toEqual({ done: 'all' });
    expect(batchVerdict(null, batch, true)).toEqual({ done: 'all' });
    expect(batchVerdict({ batchItemFailures: [{ itemIdentifier: '99' }] }, batch, false)).toEqual({
      done: 'all',
    });
  });

  it('fails the whole batch for an identifier that is missing, empty or not of the batch', () => {
    for (const failures of [[{}], [{ itemIdentifier: '' }], [{ itemIdentifier: '7' }], 'x'])
      expect(batchVerdict({ batchItemFailures: failures }, batch, true).done).toBe('none');
  });
});
