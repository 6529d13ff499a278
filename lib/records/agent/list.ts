import { assertAgentMayAccess } from '#lib/auth/agent-keys.ts';
import type { HandlerOutput } from '#lib/http/pipeline.ts';
import type { AgentInput } from '#lib/records/agent/operations.ts';
import type { EntityName } from '#lib/records/entities.ts';
import { listRecords } from '#lib/records/reads/record-list.ts';

/**
 * The agent API's list of one entity: a page of records with `meta.next_cursor`. Apart from
 * operations.ts because it signs cursors: the cursor keys' Secrets Manager client belongs
 * only in the functions that page.
 */
export async function listAgentRecords(
  entity: EntityName,
  input: AgentInput & { query: { limit: number; cursor?: string | undefined } },
): Promise<HandlerOutput> {
  const businessId = input.params.business_id ?? '';
  assertAgentMayAccess(input.principal, businessId, 'read');
  const { limit, cursor } = input.query;
  const page = await listRecords(entity, businessId, { limit, cursor });
  return { data: page.records, meta: { next_cursor: page.nextCursor } };
}
