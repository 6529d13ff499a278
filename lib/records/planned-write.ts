/**
 * The shape of a planned write: its TransactWriteItems, the role of each (to explain a cancellation),
 * and what committing it yields. Shared by the planners and the committer.
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { RecordView } from '#lib/records/record-types.ts';

/** What each action of a transaction is for, to explain a cancellation. */
export type ActionRole =
  | { kind: 'record' }
  | { kind: 'business' }
  | { kind: 'count' }
  | { kind: 'reference'; field: string; index?: number; target: string }
  | { kind: 'unreference' }
  /** A photo's reverse reference to the record (unconditional). */
  | { kind: 'usage' }
  | { kind: 'primary' }
  | { kind: 'history' }
  /** A caller's condition on another item (a changeset item still staged, an entry not undone). */
  | { kind: 'guard'; message: string };

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Appends one action, with its role, to the transaction being planned. */
export type AddAction = (role: ActionRole, item: TransactItem) => void;

export interface PlannedWrite {
  input: TransactWriteCommandInput;
  roles: ActionRole[];
  result: RecordView;
  /** Id of the Change History entry this write records. */
  historyId: string;
  /** Whether a failed record condition may be retried (false when the caller sent If-Match). */
  retryVersionConflicts: boolean;
  currentVersion: number | undefined;
}
