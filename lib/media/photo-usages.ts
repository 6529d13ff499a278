import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { NotFoundError } from '#lib/http/errors.ts';

/**
 * Where a photo is used (docs/media.md): one Query of the photo's partition, which
 * holds its owner pointer and one usage item per record that references it (written with the
 * record).
 */
export async function photoUsages(photoId: string) {
  const result = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.photoOwner(photoId).pk },
      ConsistentRead: true,
    }),
  );
  const items = result.Items ?? [];
  if (!items.some((item) => item.sk === keys.photoOwner(photoId).sk))
    throw new NotFoundError(`No photo ${photoId}`);
  const usages = items
    .filter((item) => String(item.sk).startsWith('USAGE#'))
    .map((item) => ({
      business_id: String(item.business_id),
      entity: String(item.entity),
      record_id: String(item.record_id),
      fields: item.fields as string[],
    }));
  return { asset_id: photoId, in_use: usages.length > 0, usages };
}
