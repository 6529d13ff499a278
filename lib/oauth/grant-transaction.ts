import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#lib/db/client.ts';
import { ServiceUnavailableError } from '#lib/http/errors.ts';

/**
 * A transaction of the token endpoint on a grant, judged only on its conditions. DynamoDB cancels
 * a transaction that meets another one on the same item (`TransactionConflict`) without
 * evaluating its conditions; two refreshes or exchanges at the same moment do that in AWS. Such
 * a cancellation is retried after a short jittered pause and never read as a condition that
 * failed: a conflict is not a reused refresh token or a second use of a code.
 */
export type TransactItems = NonNullable<
  ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']
>;

/** Written, or the positions of the items whose condition failed. */
export type TransactionOutcome = { written: true } | { written: false; failed: number[] };

export const GRANT_TRANSACTION_ATTEMPTS = 5;

export async function transactOnConditions(items: TransactItems): Promise<TransactionOutcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      await dynamo.send(new TransactWriteCommand({ TransactItems: items }));
      return { written: true };
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code);
      const failed = codes.flatMap((code, index) => (code === 'ConditionalCheckFailed' ? [index] : []));
      if (failed.length > 0) return { written: false, failed };
      if (!codes.includes('TransactionConflict')) throw error;
      if (attempt === GRANT_TRANSACTION_ATTEMPTS) {
        throw new ServiceUnavailableError(
          'The grant is being changed by another request; retry shortly',
          'contention',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** attempt));
    }
  }
}
