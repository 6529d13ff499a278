import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamsRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { LOCAL_AWS } from '../local-names.ts';
import { batchVerdict, sequenceAfter } from './batch-response.ts';
import { passesFilters } from './filter-rules.ts';
import { type CheckpointStore, memoryCheckpoints } from './stream-checkpoint.ts';
import type { StreamMapping } from './stream-mapping.ts';
import { lambdaRecord, localStreamArn, streamEvent } from './stream-records.ts';

/**
 * Lambda's stream poller, for DynamoDB Local: reads the table's stream (one shard locally) every
 * POLL_MS, filters the records as the event source mapping says, invokes the function with
 * batches of at most its batch size in the order the table committed them, and checkpoints as
 * Lambda does: after the last record of a batch the function took, before the lowest sequence
 * number it reported as failed (re-delivered from there), nowhere on an error (the whole batch
 * again, halved when the mapping bisects). A batch still failing after the mapping's retries is
 * logged as the on-failure destination would receive it, and the poller goes on after it.
 */

/** What the function did with a batch: its answer, or that it failed (threw, timed out, did not start). */
export type BatchDelivery = { returned: true; result: unknown } | { returned: false; message: string };

/** What Lambda sends the on-failure destination about a batch it gave up on. */
export interface DeadLetter {
  requestContext: {
    functionArn: string;
    condition: 'RetryAttemptsExhausted';
    approximateInvokeCount: number;
  };
  DDBStreamBatchInfo: {
    shardId: string;
    startSequenceNumber: string;
    endSequenceNumber: string;
    batchSize: number;
    streamArn: string;
  };
}

export interface StreamPollerOptions {
  endpoint: string;
  tableName: string;
  mapping: StreamMapping;
  /** Invoke the mapping's function with one batch (the harness: through the runner). */
  deliver(event: DynamoDBStreamEvent): Promise<BatchDelivery>;
  checkpoints?: CheckpointStore;
  /** A client of the stream's own (a test injects AWS's answers into it); closed on stop. */
  streams?: DynamoDBStreamsClient;
  pollMs?: number;
  /** The wait before the nth retry of a failing batch. */
  retryDelayMs?(retry: number): number;
  log?(line: string): void;
}

export const POLL_MS = 100;
/** A mapping that retries until records expire (-1, Lambda's default) is stopped after this many locally. */
export const LOCAL_RETRY_LIMIT = 10;
/** Records GetRecords returns at most. */
const READ_LIMIT = 1000;
const backoff = (retry: number) => Math.min(5_000, 200 * 2 ** (retry - 1));

/** GetRecords' and GetShardIterator's answers for an iterator or position that no longer reads. */
const STALE_POSITION = new Set([
  'TrimmedDataAccessException',
  'ExpiredIteratorException',
  'ValidationException',
]);

export class StreamPoller {
  readonly deadLetters: DeadLetter[] = [];
  private readonly streams: DynamoDBStreamsClient;
  private readonly checkpoints: CheckpointStore;
  private readonly log: (line: string) => void;
  private streamArn = '';
  private shardId = '';
  private checkpoint: string | undefined;
  private iterator: string | undefined;
  /** Records read past the checkpoint, not yet processed. */
  private queue: StreamsRecord[] = [];
  /** Failed deliveries of the batch at the head of the queue. */
  private retries = 0;
  private batchLimit: number;
  private stopped = false;
  private running: Promise<void> | undefined;
  private sleeping: { timer: NodeJS.Timeout; wake(): void } | undefined;

  constructor(private readonly options: StreamPollerOptions) {
    this.streams =
      options.streams ??
      new DynamoDBStreamsClient({ ...LOCAL_AWS, endpoint: options.endpoint, maxAttempts: 1 });
    this.checkpoints = options.checkpoints ?? memoryCheckpoints();
    this.log = options.log ?? ((line) => console.error(line));
    this.batchLimit = options.mapping.batchSize;
  }

  /** Find the stream and where to read from, then poll until stop(). */
  async start(): Promise<void> {
    const tables = new DynamoDBClient({ ...LOCAL_AWS, endpoint: this.options.endpoint });
    try {
      const { Table } = await tables.send(new DescribeTableCommand({ TableName: this.options.tableName }));
      if (!Table?.LatestStreamArn) throw new Error(`the table ${this.options.tableName} has no stream`);
      this.streamArn = Table.LatestStreamArn;
    } finally {
      tables.destroy();
    }
    this.shardId = await this.openShard();
    this.checkpoint = this.checkpoints.load(this.streamArn);
    if (this.checkpoint === undefined && this.options.mapping.startingPosition === 'LATEST') {
      this.checkpoint = await this.lastSequenceNumber();
    }
    this.running = this.run();
  }

  /** Stop polling; resolves once the poll under way (and the invocation it waits for) has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sleeping) {
      clearTimeout(this.sleeping.timer);
      this.sleeping.wake();
    }
    await this.running;
    this.streams.destroy();
  }

  /** The sequence number of the last record fully processed. */
  get lastProcessed(): string | undefined {
    return this.checkpoint;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let wait = this.options.pollMs ?? POLL_MS;
      try {
        const retryAfter = await this.poll();
        if (retryAfter !== undefined) wait = retryAfter;
      } catch (error) {
        this.log(`[events] reading the table's stream failed: ${(error as Error).message}`);
        this.iterator = undefined;
        wait = 1_000;
      }
      if (!this.stopped) await this.sleep(wait);
    }
  }

  /** One round: read if nothing is waiting, then deliver one batch. Returns the backoff after a failure. */
  private async poll(): Promise<number | undefined> {
    if (this.queue.length === 0) await this.read();
    // Records no filter lets through are processed by being passed over, as in Lambda.
    while (this.queue[0] && !this.passes(this.queue[0])) this.advancePast(1);
    const batch: StreamsRecord[] = [];
    let span = 0;
    for (const [index, record] of this.queue.entries()) {
      if (batch.length === this.batchLimit) break;
      if (!this.passes(record)) continue;
      batch.push(record);
      span = index + 1;
    }
    if (batch.length === 0) return undefined;
    const sequenceNumbers = batch.map(sequenceNumberOf);
    const delivery = await this.options.deliver(
      streamEvent(batch.map((record) => lambdaRecord(record, this.streamArn, LOCAL_AWS.region))),
    );
    const verdict = delivery.returned
      ? batchVerdict(delivery.result, sequenceNumbers, this.options.mapping.reportBatchItemFailures)
      : ({ done: 'none', reason: delivery.message } as const);
    if (verdict.done === 'all') {
      this.advancePast(span);
      this.retries = 0;
      this.batchLimit = this.options.mapping.batchSize;
      return undefined;
    }
    if (verdict.done === 'before') {
      const failedAt = this.queue.findIndex((record) => sequenceNumberOf(record) === verdict.failedFrom);
      if (failedAt > 0) {
        this.advancePast(failedAt);
        this.retries = 0;
      }
    } else if (!delivery.returned && this.options.mapping.bisectBatchOnFunctionError && batch.length > 1) {
      this.batchLimit = Math.ceil(batch.length / 2);
    }
    return this.failed(
      verdict.done === 'before' ? batch.length - sequenceNumbers.indexOf(verdict.failedFrom) : batch.length,
    );
  }

  /** The batch at the head failed (its first `size` matching records): retry after a backoff, or give it up. */
  private failed(size: number): number | undefined {
    this.retries += 1;
    const { maximumRetryAttempts } = this.options.mapping;
    const limit = maximumRetryAttempts >= 0 ? maximumRetryAttempts : LOCAL_RETRY_LIMIT;
    if (this.retries <= limit) return (this.options.retryDelayMs ?? backoff)(this.retries);
    let span = 0;
    const given: StreamsRecord[] = [];
    for (const [index, record] of this.queue.entries()) {
      if (given.length === size) break;
      if (!this.passes(record)) continue;
      given.push(record);
      span = index + 1;
    }
    const deadLetter: DeadLetter = {
      requestContext: {
        functionArn: `arn:aws:lambda:${LOCAL_AWS.region}:000000000000:function:${this.options.mapping.functionName}`,
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: this.retries,
      },
      DDBStreamBatchInfo: {
        shardId: this.shardId,
        startSequenceNumber: sequenceNumberOf(given[0] as StreamsRecord),
        endSequenceNumber: sequenceNumberOf(given[given.length - 1] as StreamsRecord),
        batchSize: given.length,
        streamArn: localStreamArn(this.streamArn, LOCAL_AWS.region),
      },
    };
    this.deadLetters.push(deadLetter);
    const destination =
      this.options.mapping.onFailureDestination ?? 'its on-failure destination (none configured)';
    this.log(
      `[events] ${this.options.mapping.functionName}: gave up on ${given.length} stream record(s) after ${this.retries - 1} retries; in AWS ${destination} receives ${JSON.stringify(deadLetter)}`,
    );
    this.advancePast(span);
    this.retries = 0;
    this.batchLimit = this.options.mapping.batchSize;
    return undefined;
  }

  private passes(record: StreamsRecord): boolean {
    return passesFilters(
      lambdaRecord(record, this.streamArn, LOCAL_AWS.region),
      this.options.mapping.filters,
    );
  }

  /** The first `count` records of the queue are processed: checkpoint after the last of them. */
  private advancePast(count: number): void {
    const last = this.queue[count - 1];
    this.queue = this.queue.slice(count);
    if (!last) return;
    this.checkpoint = sequenceNumberOf(last);
    this.checkpoints.save(this.streamArn, this.checkpoint);
  }

  /** Read the next records after the checkpoint into the queue. */
  private async read(): Promise<void> {
    this.iterator ??= await this.iteratorAfterCheckpoint();
    if (this.iterator === undefined) return;
    let answer: Awaited<ReturnType<typeof this.getRecords>>;
    try {
      answer = await this.getRecords(this.iterator);
    } catch (error) {
      // DynamoDB Local answers TrimmedDataAccessException for an iterator taken on an empty shard
      // once records arrive, and any iterator expires after 15 minutes: take a new one from the
      // checkpoint (records already read and not processed are read again, never skipped).
      if (!STALE_POSITION.has((error as Error).name)) throw error;
      this.iterator = undefined;
      return;
    }
    this.iterator = answer.NextShardIterator ?? undefined;
    if (answer.NextShardIterator === undefined) {
      // The shard is closed (AWS rolls shards over; DynamoDB Local has never been seen to): go on in its child.
      this.shardId = await this.openShard();
    }
    // Never a record at or before the checkpoint, whatever the iterator was taken from.
    const after = this.checkpoint;
    this.queue.push(
      ...(answer.Records ?? []).filter(
        (record) => after === undefined || sequenceAfter(sequenceNumberOf(record), after),
      ),
    );
  }

  private getRecords(iterator: string) {
    return this.streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: READ_LIMIT }));
  }

  /** AFTER_SEQUENCE_NUMBER(checkpoint), or TRIM_HORIZON before the first record is processed. */
  private async iteratorAfterCheckpoint(): Promise<string | undefined> {
    const base = { StreamArn: this.streamArn, ShardId: this.shardId };
    if (this.checkpoint !== undefined) {
      try {
        const { ShardIterator } = await this.streams.send(
          new GetShardIteratorCommand({
            ...base,
            ShardIteratorType: 'AFTER_SEQUENCE_NUMBER',
            SequenceNumber: this.checkpoint,
          }),
        );
        return ShardIterator;
      } catch (error) {
        if (!STALE_POSITION.has((error as Error).name)) throw error;
        // The checkpoint is older than the stream keeps (24 hours in AWS): what came between is lost.
        this.log(
          `[events] the stream no longer holds records after ${this.checkpoint}; reading from its oldest`,
        );
      }
    }
    const { ShardIterator } = await this.streams.send(
      new GetShardIteratorCommand({ ...base, ShardIteratorType: 'TRIM_HORIZON' }),
    );
    return ShardIterator;
  }

  /** StartingPosition LATEST: the sequence number of the stream's last record now (undefined: none yet). */
  private async lastSequenceNumber(): Promise<string | undefined> {
    let last: string | undefined;
    let iterator = await this.iteratorAfterCheckpoint();
    while (iterator !== undefined && !this.stopped) {
      let answer: Awaited<ReturnType<typeof this.getRecords>>;
      try {
        answer = await this.getRecords(iterator);
      } catch (error) {
        if (STALE_POSITION.has((error as Error).name)) break;
        throw error;
      }
      const records = answer.Records ?? [];
      if (records.length === 0) break;
      last = sequenceNumberOf(records[records.length - 1] as StreamsRecord);
      iterator = answer.NextShardIterator;
    }
    return last;
  }

  /** The shard records are written to now: the one without an ending sequence number. */
  private async openShard(): Promise<string> {
    const { StreamDescription } = await this.streams.send(
      new DescribeStreamCommand({ StreamArn: this.streamArn }),
    );
    const shards = StreamDescription?.Shards ?? [];
    const open = shards.filter((shard) => shard.SequenceNumberRange?.EndingSequenceNumber === undefined);
    const shard = open[open.length - 1] ?? shards[shards.length - 1];
    if (!shard?.ShardId) throw new Error(`the stream ${this.streamArn} has no shard`);
    return shard.ShardId;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.sleeping = undefined;
        resolve();
      };
      this.sleeping = { timer: setTimeout(wake, ms), wake };
    });
  }
}

const sequenceNumberOf = (record: StreamsRecord): string => record.dynamodb?.SequenceNumber ?? '0';
