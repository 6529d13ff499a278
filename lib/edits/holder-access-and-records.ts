import {
  accessKeys,
  type BusinessAccess,
  decideAccess,
  holdsBusiness,
  readAccess,
  rememberUser,
} from '#lib/auth/business-access.ts';
import type { EditsPrincipal } from '#lib/auth/principal.ts';
import { batchGetAll } from '#lib/db/batch-get.ts';
import type { ItemKey } from '#lib/db/keys.ts';
import type { StoredItem } from '#lib/records/record-types.ts';

/**
 * The caller's access to a business they must hold (403/404 as assertHoldsBusiness), and the
 * records a write to it is about to change, in one consistent BatchGetItem: one round trip where
 * the check and the records' read would take two in turn. `records` holds those that exist.
 */
export async function readHolderAccessAndRecords(
  caller: EditsPrincipal,
  businessId: string,
  recordKeys: ItemKey[],
): Promise<{ access: BusinessAccess; records: StoredItem[] }> {
  const items = await batchGetAll([...accessKeys(caller, businessId), ...recordKeys], {
    consistent: recordKeys.length > 0,
  });
  const read = readAccess(caller, businessId, items);
  if (read.unseenUser) await rememberUser(read.unseenUser);
  const access = decideAccess(read, holdsBusiness);
  const wanted = new Set(recordKeys.map((key) => `${key.pk}\u0000${key.sk}`));
  const records = items.filter((item) => wanted.has(`${item.pk}\u0000${item.sk}`)) as StoredItem[];
  return { access, records };
}
