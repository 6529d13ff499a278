import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { decodeCursor, encodeCursor, keyPart, keyValue } from '#lib/db/cursor.ts';
import { keys } from '#lib/db/keys.ts';
import { storedItem } from '#lib/db/stored-item.ts';
import { GrantSummary } from '#lib/oauth/grant-schemas.ts';
import type * as zt from '#lib/validation/zod.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * A person's connected assistants, a page at a time: their live grants (neither ended nor past
 * their end or their expiry), newest first. Apart from grants.ts because it signs cursors: the
 * cursor keys' Secrets Manager client belongs only in the function that pages.
 *
 * Ended and expired grants stay in the user's index until the table's TTL removes them, so the
 * Query filters them out, and a filtered Query page can hold fewer live grants than asked for, or
 * none. The listing reads on until it has one live grant more than the page (or nothing is left),
 * so a page is full unless it is the last, and it has a cursor only when a further live grant
 * exists: the cursor is the key of the page's last grant, not DynamoDB's last evaluated key.
 */
type Grant = zt.infer<typeof GrantSummary>;

const grantItem = storedItem<Grant>('OAuth grant', () => GrantSummary);

const nowSeconds = () => Math.floor(Date.now() / 1000);

export async function listLiveGrants(
  userId: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<{ grants: Grant[]; next_cursor: string | null }> {
  const { gsi1pk } = keys.oauthGrantOfUser(userId, '', '');
  const binding = ['oauth-grants', userId];
  let start: Record<string, string> | undefined = await decodeCursor(
    page.cursor,
    binding,
    z.strictObject({
      pk: keyPart('OAUTH_GRANT#'),
      sk: keyValue('GRANT'),
      gsi1pk: keyValue(gsi1pk),
      gsi1sk: keyPart(''),
    }),
  );
  const now = nowSeconds();
  const live: Record<string, unknown>[] = [];
  do {
    const result = await dynamo.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :user',
        FilterExpression:
          'attribute_not_exists(revoked_at) AND ends_at_epoch > :now AND expires_at_epoch > :now',
        ExpressionAttributeValues: { ':user': gsi1pk, ':now': now },
        ScanIndexForward: false,
        // Evaluated items, live or not: with few ended grants, one Query fills the page.
        Limit: page.limit + 1,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    live.push(...(result.Items ?? []));
    start = result.LastEvaluatedKey as Record<string, string> | undefined;
  } while (start && live.length <= page.limit);
  const shown = live.slice(0, page.limit);
  const last = shown.at(-1);
  return {
    grants: shown.map((item) => grantItem.fromItem(item)),
    next_cursor:
      live.length > page.limit && last
        ? await encodeCursor(binding, {
            pk: last.pk,
            sk: last.sk,
            gsi1pk: last.gsi1pk,
            gsi1sk: last.gsi1sk,
          })
        : null,
  };
}
