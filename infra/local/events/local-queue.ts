import { createHash, randomUUID } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { LOCAL_ACCOUNT } from '../iam/local-account.ts';
import { passesFilters } from './filter-rules.ts';
import type { QueueDefinition, QueueMapping } from './queue-mapping.ts';
import type { BatchDelivery } from './stream-poller.ts';

/**
 * An SQS standard queue in memory, as an event source mapping reads it (local-events.ts makes one
 * per `AWS::SQS::Queue` of the templates):
 *
 * - a received message is invisible for the queue's visibility timeout, with a new receipt handle
 *   each time; only its latest receipt handle deletes it (an older one is accepted and deletes
 *   nothing, as SQS does);
 * - a message already received maxReceiveCount times is moved to the dead-letter queue of its
 *   redrive policy when it would be received once more, as SQS moves it;
 * - a message older than the retention period is dropped.
 *
 * QueueConsumer is Lambda's side: it receives up to the mapping's batch size as soon as messages
 * are visible, invokes the function with them as an `SQSEvent`, and deletes the messages the
 * function took: all of them when it returned, all but those it named in `batchItemFailures` when
 * the mapping reports item failures; none when it threw or timed out. What it does not delete
 * comes back after the visibility timeout.
 *
 * Nothing is kept on disk: messages still in a queue when the stack stops are lost (in AWS they
 * would wait in the queue).
 */

interface StoredMessage {
  messageId: string;
  body: string;
  md5OfBody: string;
  sentAt: number;
  receiveCount: number;
  firstReceivedAt: number | undefined;
  visibleAt: number;
  receiptHandle: string | undefined;
}

/** What a queue holds, for the dev console and tests. */
export interface QueueState {
  id: string;
  arn: string;
  /** Messages that may be received now. */
  visible: number;
  /** Messages received and neither deleted nor visible again yet. */
  in_flight: number;
  messages: { message_id: string; receive_count: number; visible_at: string; body: string }[];
}

export interface LocalQueueOptions {
  /** Instead of the queue's own (tests, which cannot wait 6 minutes for a message to come back). */
  visibilityTimeoutSeconds?: number;
  /** The queue of the redrive policy's dead-letter ARN. */
  deadLetterQueue?: LocalQueue;
  now?: () => number;
  log?(line: string): void;
}

export class LocalQueue {
  private readonly messages: StoredMessage[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly now: () => number;
  private readonly log: (line: string) => void;
  readonly visibilityTimeoutMs: number;

  constructor(
    readonly definition: QueueDefinition,
    private readonly options: LocalQueueOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.log = options.log ?? ((line) => console.error(line));
    this.visibilityTimeoutMs =
      (options.visibilityTimeoutSeconds ?? definition.visibilityTimeoutSeconds) * 1000;
  }

  /** SendMessage: the message's id. */
  send(body: string): string {
    const messageId = randomUUID();
    this.accept({
      messageId,
      body,
      md5OfBody: createHash('md5').update(body).digest('hex'),
      sentAt: this.now(),
      receiveCount: 0,
      firstReceivedAt: undefined,
      visibleAt: this.now(),
      receiptHandle: undefined,
    });
    return messageId;
  }

  /** Told whenever a message is added. */
  onMessage(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * ReceiveMessage: up to `max` visible messages, each now invisible for the visibility timeout.
   * Those past the redrive policy's maxReceiveCount go to the dead-letter queue instead.
   */
  receive(max: number): SQSRecord[] {
    const now = this.now();
    this.dropExpired(now);
    const received: SQSRecord[] = [];
    for (const message of [...this.messages]) {
      if (received.length === max) break;
      if (message.visibleAt > now) continue;
      const redrive = this.definition.redrive;
      if (redrive && message.receiveCount >= redrive.maxReceiveCount) {
        this.remove(message);
        this.log(
          `[queues] ${this.definition.id}: message ${message.messageId} received ${message.receiveCount} times; moved to its dead-letter queue ${this.options.deadLetterQueue?.definition.id ?? redrive.deadLetterArn}`,
        );
        this.options.deadLetterQueue?.accept({
          ...message,
          receiveCount: 0,
          firstReceivedAt: undefined,
          visibleAt: now,
          receiptHandle: undefined,
        });
        continue;
      }
      message.receiveCount += 1;
      message.firstReceivedAt ??= now;
      message.visibleAt = now + this.visibilityTimeoutMs;
      message.receiptHandle = `${message.messageId}#${randomUUID()}`;
      received.push(this.record(message));
    }
    return received;
  }

  /** DeleteMessage: true when the receipt handle was the message's latest (and it is gone). */
  delete(receiptHandle: string): boolean {
    const message = this.messages.find((one) => one.receiptHandle === receiptHandle);
    if (!message) return false;
    this.remove(message);
    return true;
  }

  /** When the next invisible message becomes visible (epoch ms), if any is invisible. */
  nextVisibleAt(): number | undefined {
    const now = this.now();
    const times = this.messages.map((message) => message.visibleAt).filter((at) => at > now);
    return times.length === 0 ? undefined : Math.min(...times);
  }

  get size(): number {
    return this.messages.length;
  }

  /** Messages that may be received now. */
  visibleCount(): number {
    const now = this.now();
    return this.messages.filter((message) => message.visibleAt <= now).length;
  }

  state(): QueueState {
    const now = this.now();
    return {
      id: this.definition.id,
      arn: this.definition.arn,
      visible: this.visibleCount(),
      in_flight: this.messages.filter((message) => message.visibleAt > now).length,
      messages: this.messages.map((message) => ({
        message_id: message.messageId,
        receive_count: message.receiveCount,
        visible_at: new Date(message.visibleAt).toISOString(),
        body: message.body,
      })),
    };
  }

  private accept(message: StoredMessage): void {
    this.messages.push(message);
    for (const listener of this.listeners) listener();
  }

  private remove(message: StoredMessage): void {
    const at = this.messages.indexOf(message);
    if (at >= 0) this.messages.splice(at, 1);
  }

  private dropExpired(now: number): void {
    const limit = now - this.definition.retentionSeconds * 1000;
    for (const message of this.messages.filter((one) => one.sentAt <= limit)) this.remove(message);
  }

  private record(message: StoredMessage): SQSRecord {
    return {
      messageId: message.messageId,
      receiptHandle: message.receiptHandle as string,
      body: message.body,
      attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: String(message.sentAt),
        SenderId: 'AIDAEVENTBRIDGELOCAL',
        ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt),
      },
      messageAttributes: {},
      md5OfBody: message.md5OfBody,
      eventSource: 'aws:sqs',
      eventSourceARN: this.definition.arn,
      awsRegion: LOCAL_ACCOUNT.region,
    };
  }
}

/** Which messages of a batch the function did not take: all of them, or those it named. */
export type QueueVerdict = { failed: 'all'; reason: string } | { failed: ReadonlySet<string> };

/**
 * Lambda's reading of a function's answer to an SQS batch. Without ReportBatchItemFailures, a
 * return is success for all. With it: no answer, no `batchItemFailures` or an empty list is
 * success; a list naming messages of the batch fails those; anything else (not a list, an
 * identifier that is missing, empty or not a message of the batch) fails the whole batch.
 */
export function queueBatchVerdict(
  delivery: BatchDelivery,
  messageIds: readonly string[],
  reportBatchItemFailures: boolean,
): QueueVerdict {
  if (!delivery.returned) return { failed: 'all', reason: delivery.message };
  const { result } = delivery;
  if (!reportBatchItemFailures || result === null || typeof result !== 'object') return { failed: new Set() };
  const failures = (result as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return { failed: new Set() };
  if (!Array.isArray(failures)) return { failed: 'all', reason: 'batchItemFailures is not a list' };
  const inBatch = new Set(messageIds);
  const failed = new Set<string>();
  for (const failure of failures) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !inBatch.has(id)) {
      return {
        failed: 'all',
        reason: `batchItemFailures names ${JSON.stringify(id ?? null)}, no message of the batch`,
      };
    }
    failed.add(id);
  }
  return { failed };
}

export interface QueueConsumerOptions {
  queue: LocalQueue;
  mapping: QueueMapping;
  /** Invoke the mapping's function with one batch (the harness: through the runner). */
  deliver(event: SQSEvent): Promise<BatchDelivery>;
  log?(line: string): void;
}

/** Lambda's poller of one queue for one event source mapping. */
export class QueueConsumer {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly log: (line: string) => void;
  private timer: NodeJS.Timeout | undefined;
  private wake: NodeJS.Immediate | undefined;
  private unsubscribe: (() => void) | undefined;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];
  /** Batches invoked so far. */
  invocations = 0;

  constructor(private readonly options: QueueConsumerOptions) {
    this.log = options.log ?? ((line) => console.error(line));
  }

  get queue(): LocalQueue {
    return this.options.queue;
  }

  start(): void {
    // Messages sent together are received together: the poller looks once the sender is done.
    this.unsubscribe = this.options.queue.onMessage(() => {
      this.wake ??= setImmediate(() => {
        this.wake = undefined;
        this.pump();
      });
    });
    this.pump();
  }

  /** No new batches; resolves once the batches under way have ended (stop the functions meanwhile). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.wake) clearImmediate(this.wake);
    this.unsubscribe?.();
    await Promise.allSettled([...this.inFlight]);
    this.settleIdle();
  }

  /** Resolves once no batch is under way and no message is visible (a message waiting to come back is not). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.stopped || (this.inFlight.size === 0 && this.options.queue.visibleCount() === 0);
  }

  private settleIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters.splice(0);
    for (const resolve of waiters) resolve();
  }

  private pump(): void {
    if (this.stopped) return;
    const { queue, mapping } = this.options;
    while (this.inFlight.size < mapping.maximumConcurrency) {
      const records = queue.receive(mapping.batchSize);
      if (records.length === 0) break;
      // Lambda deletes the messages no filter lets through, without invoking the function.
      const batch = records.filter((record) => {
        if (passesFilters(filterView(record), mapping.filters)) return true;
        queue.delete(record.receiptHandle);
        return false;
      });
      if (batch.length === 0) continue;
      const run: Promise<void> = this.invoke(batch).finally(() => {
        this.inFlight.delete(run);
        this.pump();
      });
      this.inFlight.add(run);
    }
    clearTimeout(this.timer);
    const next = queue.nextVisibleAt();
    if (next !== undefined) {
      this.timer = setTimeout(() => this.pump(), Math.max(0, next - Date.now()));
      this.timer.unref();
    }
    this.settleIdle();
  }

  private async invoke(batch: SQSRecord[]): Promise<void> {
    const { queue, mapping } = this.options;
    this.invocations += 1;
    let delivery: BatchDelivery;
    try {
      delivery = await this.options.deliver({ Records: batch });
    } catch (error) {
      delivery = { returned: false, message: (error as Error).message };
    }
    const ids = batch.map((record) => record.messageId);
    const verdict = queueBatchVerdict(delivery, ids, mapping.reportBatchItemFailures);
    for (const record of batch) {
      if (verdict.failed === 'all' || verdict.failed.has(record.messageId)) continue;
      queue.delete(record.receiptHandle);
    }
    if (verdict.failed === 'all') {
      this.log(
        `[queues] ${mapping.functionName} failed a batch of ${batch.length} from ${queue.definition.id} (${verdict.reason}); the messages come back after ${queue.visibilityTimeoutMs / 1000} s`,
      );
    } else if (verdict.failed.size > 0) {
      this.log(
        `[queues] ${mapping.functionName} reported ${verdict.failed.size} of ${batch.length} message(s) from ${queue.definition.id} failed; they come back after ${queue.visibilityTimeoutMs / 1000} s`,
      );
    }
  }
}

/** A record as Lambda's filters see it: the body parsed when it is a JSON object. */
function filterView(record: SQSRecord): Record<string, unknown> {
  try {
    const body = JSON.parse(record.body);
    if (body !== null && typeof body === 'object' && !Array.isArray(body)) return { ...record, body };
  } catch {
    // a plain-text body is matched as text
  }
  return record as unknown as Record<string, unknown>;
}
