import { decodeCursor, encodeCursor } from '#lib/db/cursor.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * The deliveries list's cursor (functions/webhooks/list-webhook-deliveries.ts): the last attempt of
 * a page, signed as every list cursor is (lib/db/cursor.ts) and bound to its webhook, so that a
 * cursor of one webhook's log never pages another's.
 */
const binding = (webhookId: string) => ['webhook-deliveries', webhookId] as const;
const CursorKey = z.strictObject({ delivery_id: z.uuid() });

export const deliveriesCursor = (webhookId: string, lastDeliveryId: string | null) =>
  encodeCursor(binding(webhookId), lastDeliveryId ? { delivery_id: lastDeliveryId } : undefined);

export async function deliveriesBefore(webhookId: string, cursor: string | undefined) {
  return (await decodeCursor(cursor, binding(webhookId), CursorKey))?.delivery_id;
}
