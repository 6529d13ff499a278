import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys, normaliseEmail } from '#lib/db/keys.ts';

/**
 * Create an active platform admin for an e-mail address, unless one exists. Used by the seed and
 * (with the admin issue) by the `admin` CLI; the first admin never comes from an endpoint.
 */
export async function ensurePlatformAdmin(input: {
  email: string;
  firstName?: string;
  lastName?: string;
}): Promise<{ created: boolean }> {
  const email = normaliseEmail(input.email);
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...keys.platformAdmin(email),
          id: randomUUID(),
          kind: 'admin',
          status: 'active',
          email,
          first_name: input.firstName ?? null,
          last_name: input.lastName ?? null,
          phone: null,
          invited_by: null,
          invited_at: null,
          accepted_at: new Date().toISOString(),
          expires_at: null,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return { created: true };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return { created: false };
    throw error;
  }
}
