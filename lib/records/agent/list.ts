import { assertAgentMayAccess, besideAgentKey } from '#lib/auth/agent-keys.ts';
import type { EarlyRequestOf } from '#lib/http/early-read.ts';
import type { HandlerOutput } from '#lib/http/pipeline.ts';
import type { AgentInput } from '#lib/records/agent/operations.ts';
import type { EntityName } from '#lib/records/entities.ts';
import { listRecords } from '#lib/records/reads/record-list.ts';

type Page = Awaited<ReturnType<typeof listRecords>>;
type PageQuery = { limit: number; cursor?: string | undefined };

/**
 * The agent API's list of one entity: a page of records with `meta.next_cursor`. Apart from
 * operations.ts because it signs cursors: the cursor keys' Secrets Manager client belongs
 * only in the functions that page.
 */
export async function listAgentRecords(
  entity: EntityName,
  input: AgentInput<Page> & { query: PageQuery },
): Promise<HandlerOutput> {
  const businessId = input.params.business_id ?? '';
  assertAgentMayAccess(input.principal, businessId, 'read');
  const page = await (input.early ?? listRecords(entity, businessId, input.query));
  return { data: page.records, meta: { next_cursor: page.nextCursor } };
}

/** The handler's `earlyRead`: the page, read beside the agent key's lookup. */
export const earlyPage = (entity: EntityName) =>
  besideAgentKey((request: EarlyRequestOf<Record<string, string>, PageQuery>) =>
    listRecords(entity, request.params.business_id ?? '', request.query),
  );
