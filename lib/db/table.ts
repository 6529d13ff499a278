/**
 * The single table's physical shape. CDK (infra/stateful-stack.ts) and the local harness
 * (infra/local/emulators.ts) both build the table from this description, so they cannot drift.
 */
export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB's TTL deletes expired sessions, consent requests and codes. */
  timeToLiveAttribute: 'expires_at_epoch',
  /**
   * The table's stream: what each change record carries. The change events' publisher reads new
   * items only (Change History and outbox entries), so the new image is enough.
   */
  stream: 'NEW_IMAGE',
  globalSecondaryIndexes: [
    /** Inverted lookups: a user's memberships, agent keys by id. */
    { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  ],
} as const;
