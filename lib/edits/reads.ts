import { assertHoldsBusiness } from '#lib/auth/business-access.ts';
import type { EditsPrincipal } from '#lib/auth/principal.ts';
import { businessSummary } from '#lib/edits/business-summary.ts';
import { useSessionAlongside } from '#lib/edits/sessions.ts';
import { buildSnapshot } from '#lib/edits/snapshot.ts';
import type { EntityName } from '#lib/records/entities.ts';
import { getRecord } from '#lib/records/reads/record-reads.ts';

/**
 * The edits API's reads, each with its access rule, as one function: the HTTP handlers and the
 * assistant tool server call these, so no rule is written twice. The Change History's pages are
 * in change-log.ts: they sign cursors, and only functions that page read the cursor keys.
 */

/** Everything the session's business has (the session must be the caller's and open). */
export async function readSnapshot(principal: EditsPrincipal, sessionId: string) {
  return (await useSessionAlongside(principal, sessionId, buildSnapshot)).result;
}

/** One record in full, through an open session of the caller's. */
export async function readRecord(
  principal: EditsPrincipal,
  sessionId: string,
  entity: EntityName,
  recordId: string,
) {
  const { result: record } = await useSessionAlongside(principal, sessionId, (businessId, reads) =>
    getRecord(entity, businessId, recordId, reads),
  );
  return { entity, record_id: recordId, version: record.version, data: record };
}

/** Name, role and record counts of a business the caller holds. */
export async function readBusiness(principal: EditsPrincipal, businessId: string) {
  return businessSummary((reads) => assertHoldsBusiness(principal, businessId, reads), businessId);
}
