import { assertAgentMayAccess } from '#lib/auth/agent-keys.ts';
import type { AgentPrincipal } from '#lib/auth/principal.ts';
import type { IdempotentCreate } from '#lib/http/idempotency/keyed-create.ts';
import type { HandlerOutput } from '#lib/http/pipeline.ts';
import { type EntityName, entities } from '#lib/records/entities.ts';
import { getRecord, listMembers } from '#lib/records/reads/record-reads.ts';
import type { Actor, RecordFields, RecordView } from '#lib/records/record-types.ts';
import {
  createRecord,
  deleteRecord,
  patchRecord,
  replaceRecord,
  setMembers,
} from '#lib/records/writes/record-writes.ts';

/**
 * The agent API's side of the records domain: check the agent key's business and scope, call the
 * store, and shape the answer (ETag = the record's version). Handlers are one call into here.
 */
export interface AgentInput {
  /** `business_id`, and on a record's own path its id under the entity's `idParam`. */
  params: Record<string, string>;
  /** `If-Match` as a version, on the routes that take it. */
  headers?: { 'if-match'?: number | undefined } | undefined;
  principal: AgentPrincipal;
  idempotentCreate?: IdempotentCreate | undefined;
}

/** The input of an operation that takes a record's fields (create, replace, patch). */
type WithFields = AgentInput & { body: RecordFields };

interface Target {
  businessId: string;
  recordId: string;
}

function target(entity: EntityName, input: AgentInput): Target {
  const params = input.params;
  const idParam = entities[entity].idParam ?? 'record_id';
  return { businessId: params.business_id ?? '', recordId: params[idParam] ?? '' };
}

const actorOf = (agent: AgentPrincipal): Actor => ({ type: 'agent', id: agent.keyId });
const ifMatchOf = (input: AgentInput) => input.headers?.['if-match'];
const withEtag = (record: RecordView): HandlerOutput => ({
  data: record,
  headers: { etag: `"${record.version}"` },
});

export async function createAgentRecord(entity: EntityName, input: WithFields): Promise<HandlerOutput> {
  const { businessId } = target(entity, input);
  assertAgentMayAccess(input.principal, businessId, 'write');
  return withEtag(
    await createRecord(entity, businessId, input.body, {
      actor: actorOf(input.principal),
      idempotentCreate: input.idempotentCreate,
    }),
  );
}

export async function getAgentRecord(entity: EntityName, input: AgentInput): Promise<HandlerOutput> {
  const { businessId, recordId } = target(entity, input);
  assertAgentMayAccess(input.principal, businessId, 'read');
  return withEtag(await getRecord(entity, businessId, recordId));
}

export async function replaceAgentRecord(entity: EntityName, input: WithFields): Promise<HandlerOutput> {
  const { businessId, recordId } = target(entity, input);
  assertAgentMayAccess(input.principal, businessId, 'write');
  const options = { actor: actorOf(input.principal), ifMatch: ifMatchOf(input) };
  return withEtag(await replaceRecord(entity, businessId, recordId, input.body, options));
}

export async function patchAgentRecord(entity: EntityName, input: WithFields): Promise<HandlerOutput> {
  const { businessId, recordId } = target(entity, input);
  assertAgentMayAccess(input.principal, businessId, 'write');
  const options = { actor: actorOf(input.principal), ifMatch: ifMatchOf(input) };
  return withEtag(await patchRecord(entity, businessId, recordId, input.body, options));
}

export async function deleteAgentRecord(
  entity: EntityName,
  input: AgentInput,
): Promise<HandlerOutput | undefined> {
  const { businessId, recordId } = target(entity, input);
  assertAgentMayAccess(input.principal, businessId, 'write');
  await deleteRecord(entity, businessId, recordId, {
    actor: actorOf(input.principal),
    ifMatch: ifMatchOf(input),
  });
  return undefined;
}

export async function setAgentMembers(
  entity: EntityName,
  input: AgentInput & { body: Record<string, unknown> },
): Promise<HandlerOutput> {
  const { businessId, recordId } = target(entity, input);
  assertAgentMayAccess(input.principal, businessId, 'write');
  const field = entities[entity].members?.field ?? '';
  const ids = (input.body as Record<string, string[]>)[field] ?? [];
  const options = { actor: actorOf(input.principal), ifMatch: ifMatchOf(input) };
  return withEtag(await setMembers(entity, businessId, recordId, ids, options));
}

export async function listAgentMembers(entity: EntityName, input: AgentInput): Promise<HandlerOutput> {
  const { businessId, recordId } = target(entity, input);
  assertAgentMayAccess(input.principal, businessId, 'read');
  return { data: await listMembers(entity, businessId, recordId) };
}
