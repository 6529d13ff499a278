/**
 * Committing a planned write: send its transaction, re-read and re-plan on a race, and turn a
 * cancellation's reasons into the HTTP error the caller sees.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#lib/db/client.ts';
import {
  ConflictError,
  type HttpError,
  NotFoundError,
  ValidationError,
  type ValidationIssue,
} from '#lib/http/errors.ts';
import { MAX_RECORDS_PER_ENTITY, type RecordView, VersionConflictError } from '#lib/records/record-types.ts';
import type { PlannedWrite } from '#lib/records/write-planning/write-plan.ts';

const MAX_WRITE_ATTEMPTS = 100;

export async function commitWithRetry(plan: () => Promise<PlannedWrite>): Promise<RecordView> {
  return (await commitPlanWithRetry(plan)).result;
}

export async function commitPlanWithRetry(plan: () => Promise<PlannedWrite>): Promise<PlannedWrite> {
  for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
    const planned = await plan();
    try {
      await dynamo.send(new TransactWriteCommand(planned.input));
      return planned;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const verdict = explainCancellation(error, planned);
      if (verdict !== 'retry') throw verdict;
      // Someone else changed the record (or the primary location) meanwhile: back off, re-read, re-plan.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 5 + attempt * 2)));
    }
  }
  throw new ConflictError('The record is changing too often to write; retry');
}

function explainCancellation(
  error: TransactionCanceledException,
  planned: PlannedWrite,
): HttpError | 'retry' {
  const reasons = error.CancellationReasons ?? [];
  const issues: ValidationIssue[] = [];
  let verdict: HttpError | 'retry' | undefined;
  reasons.forEach((reason, index) => {
    if (reason.Code === 'TransactionConflict') verdict ??= 'retry';
    if (reason.Code !== 'ConditionalCheckFailed') return;
    const role = planned.roles[index];
    switch (role?.kind) {
      case 'record':
        verdict ??=
          planned.retryVersionConflicts || planned.currentVersion === undefined
            ? 'retry'
            : new VersionConflictError(planned.currentVersion + 1);
        break;
      case 'guard':
        verdict ??= new ConflictError(role.message);
        break;
      case 'business':
        verdict ??= new NotFoundError('Business not found');
        break;
      case 'count':
        verdict ??= new ConflictError(
          `A business may have at most ${MAX_RECORDS_PER_ENTITY} records of one kind`,
        );
        break;
      case 'reference':
        issues.push({
          loc: ['body', role.field, ...(role.index === undefined ? [] : [role.index])],
          msg: `References a ${role.target} that does not exist in this business`,
          type: 'reference',
        });
        break;
      default:
        verdict ??= 'retry';
    }
  });
  if (issues.length > 0)
    return new ValidationError('The record references records that do not exist', issues);
  return verdict ?? 'retry';
}
