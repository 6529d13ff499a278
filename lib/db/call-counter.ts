import { AsyncLocalStorage } from 'node:async_hooks';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** DynamoDB usage of one unit of work (a request, in the harness and the bench). */
export interface DynamoUsage {
  calls: number;
  /** Calls made while authenticating (agent key lookup), before the operation itself ran. */
  authCalls: number;
  operations: string[];
  capacityUnits: number;
}

const current = new AsyncLocalStorage<DynamoUsage>();

/**
 * Count the DynamoDB calls (and consumed capacity) that `work` makes, however deep in lib/ they
 * happen. Outside such a scope nothing is counted and requests are left untouched, so production
 * pays nothing for it.
 */
export async function countDynamoUsage<T>(
  work: () => Promise<T>,
): Promise<{ result: T; usage: DynamoUsage }> {
  const usage: DynamoUsage = { calls: 0, authCalls: 0, operations: [], capacityUnits: 0 };
  const result = await current.run(usage, work);
  return { result, usage };
}

/** Called by the pipeline once the caller is authenticated: what came before was authentication. */
export function markAuthenticated(): void {
  const usage = current.getStore();
  if (usage) usage.authCalls = usage.calls;
}

interface CapacityReport {
  CapacityUnits?: number;
}

/** SDK middleware: one count per command sent (retries of the same command are not recounted). */
export function attachUsageCounter(client: DynamoDBClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const usage = current.getStore();
      if (!usage) return next(args);
      usage.calls += 1;
      usage.operations.push(String(context.commandName ?? 'unknown').replace(/Command$/, ''));
      const input = args.input as { ReturnConsumedCapacity?: string };
      input.ReturnConsumedCapacity ??= 'TOTAL';
      const output = await next(args);
      const consumed = (output.output as { ConsumedCapacity?: CapacityReport | CapacityReport[] })
        .ConsumedCapacity;
      for (const report of [consumed ?? []].flat()) usage.capacityUnits += report.CapacityUnits ?? 0;
      return output;
    },
    { step: 'initialize', name: 'dynamoUsageCounter' },
  );
}
