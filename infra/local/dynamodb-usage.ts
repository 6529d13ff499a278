import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { AUTHENTICATED_CHANNEL } from '#lib/http/authenticated-channel.ts';
import { EARLY_READ_CHANNEL, type EarlyReadStart } from '#lib/http/early-read.ts';

/*
 * Local-only instrument: the harness's function workers, the bench and tests that count calls
 * attach this SDK middleware to their own DynamoDB client; the deployed functions never load it.
 */

/** DynamoDB usage of one unit of work (a request, in the harness and the bench). */
export interface DynamoUsage {
  calls: number;
  /**
   * Calls made while authenticating (agent key lookup), before the operation itself ran; an
   * operation's read started beside authentication (lib/http/early-read.ts) is not one of them.
   */
  authCalls: number;
  /** Calls of the operation's early read (counted in `calls`, never in `authCalls`). */
  earlyCalls: number;
  operations: string[];
  capacityUnits: number;
  readUnits: number;
  writeUnits: number;
  /**
   * Sequential round trips: a call that starts after another has answered is counted one trip
   * later than it (calls sent together share a trip), so this is the critical path's length.
   */
  roundTrips: number;
  /**
   * Round trips spent authenticating: the latest trip of an authentication call. An early read
   * sent beside the check shares its trip, so it adds no round trip of its own.
   */
  authRoundTrips: number;
  /** Trip number of the latest call that is not an early read's, so far. */
  authTrip: number;
  /** Trip number of the latest call that has answered (the next call starts after it). */
  answeredTrip: number;
  /**
   * Added before every DynamoDB call in this scope, and every S3 call (s3-delay.ts): the in-region
   * network round trip the emulators do not have.
   */
  delayMs: number;
}

const current = new AsyncLocalStorage<DynamoUsage>();
/** Set inside an operation's early read, so that its calls are not taken for authentication's. */
const inEarlyRead = new AsyncLocalStorage<true>();

/**
 * Count the DynamoDB calls (and consumed capacity) that `work` makes, however deep in lib/ they
 * happen. Outside such a scope nothing is counted and requests are left untouched, so production
 * pays nothing for it. `delayMs` makes every call in the scope wait that long first (the bench's
 * stand-in for a real network round trip).
 */
export async function countDynamoUsage<T>(
  work: () => Promise<T>,
  options: { delayMs?: number } = {},
): Promise<{ result: T; usage: DynamoUsage }> {
  const usage: DynamoUsage = { ...emptyUsage(), delayMs: options.delayMs ?? 0 };
  const result = await current.run(usage, work);
  return { result, usage };
}

/** Usage of work that made no call (or was never run). */
export function emptyUsage(): DynamoUsage {
  return {
    calls: 0,
    authCalls: 0,
    earlyCalls: 0,
    operations: [],
    capacityUnits: 0,
    readUnits: 0,
    writeUnits: 0,
    roundTrips: 0,
    authRoundTrips: 0,
    authTrip: 0,
    answeredTrip: 0,
    delayMs: 0,
  };
}

/** The in-region delay of the current unit of work (0 outside one). */
export function networkDelayMs(): number {
  return current.getStore()?.delayMs ?? 0;
}

// The pipeline announces each authenticated request: the calls made before it, but those of an
// early read, were authentication.
subscribe(AUTHENTICATED_CHANNEL, () => {
  const usage = current.getStore();
  if (usage) {
    usage.authCalls = usage.calls - usage.earlyCalls;
    usage.authRoundTrips = usage.authTrip;
  }
});

// ...and runs an operation's early read through us, so that its calls are known for the operation's.
subscribe(EARLY_READ_CHANNEL, (message) => {
  (message as EarlyReadStart).run = (read) => inEarlyRead.run(true, read);
});

interface CapacityReport {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);

const counted = new WeakSet<DynamoDBClient>();

/**
 * Add the counting SDK middleware to `client` (once; attaching again changes nothing): one count
 * per command sent, retries of the same command not recounted.
 */
export function attachUsageCounter(client: DynamoDBClient): void {
  if (counted.has(client)) return;
  counted.add(client);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const usage = current.getStore();
      if (!usage) return next(args);
      const operation = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      usage.calls += 1;
      usage.operations.push(operation);
      const trip = usage.answeredTrip + 1;
      usage.roundTrips = Math.max(usage.roundTrips, trip);
      if (inEarlyRead.getStore()) usage.earlyCalls += 1;
      else usage.authTrip = Math.max(usage.authTrip, trip);
      const input = args.input as { ReturnConsumedCapacity?: string };
      input.ReturnConsumedCapacity ??= 'TOTAL';
      if (usage.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, usage.delayMs));
      try {
        const output = await next(args);
        const consumed = (output.output as { ConsumedCapacity?: CapacityReport | CapacityReport[] })
          .ConsumedCapacity;
        const before = usage.writeUnits;
        for (const report of [consumed ?? []].flat()) addCapacity(usage, operation, report);
        // DynamoDB Local reports 2 units for any TransactWriteItems, however many actions it has;
        // DynamoDB charges 2 per action and KB, so count at least that.
        const actions = (args.input as { TransactItems?: unknown[] }).TransactItems?.length ?? 0;
        if (operation === 'TransactWriteItems') {
          const shortfall = 2 * actions - (usage.writeUnits - before);
          if (shortfall > 0) {
            usage.writeUnits += shortfall;
            usage.capacityUnits += shortfall;
          }
        }
        return output;
      } finally {
        usage.answeredTrip = Math.max(usage.answeredTrip, trip);
      }
    },
    { step: 'initialize', name: 'dynamoUsageCounter' },
  );
}

/** Split into read and write units: as DynamoDB reports them, else by what the operation is. */
function addCapacity(usage: DynamoUsage, operation: string, report: CapacityReport): void {
  const units = report.CapacityUnits ?? 0;
  usage.capacityUnits += units;
  if (report.ReadCapacityUnits !== undefined || report.WriteCapacityUnits !== undefined) {
    usage.readUnits += report.ReadCapacityUnits ?? 0;
    usage.writeUnits += report.WriteCapacityUnits ?? 0;
  } else if (READS.has(operation)) {
    usage.readUnits += units;
  } else {
    usage.writeUnits += units;
  }
}
