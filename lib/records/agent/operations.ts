import { assertAgentMayAccess, besideAgentKey } from '#lib/auth/agent-keys.ts';
import type { AgentPrincipal } from '#lib/auth/principal.ts';
import { type ItemReader, readerFor } from '#lib/db/item-reader.ts';
import type { EarlyRequestOf } from '#lib/http/early-read.ts';
import type { IdempotentCreate } from '#lib/http/idempotency/keyed-create.ts';
import type { HandlerOutput } from '#lib/http/pipeline.ts';
import { type EntityName, entities } from '#lib/records/entities.ts';
import {
  getRecord,
  listMembers,
  readExisting,
  readForWrite,
  type WriteRead,
} from '#lib/records/reads/record-reads.ts';
import type { Actor, RecordFields, RecordView, StoredItem } from '#lib/records/record-types.ts';
import {
  createRecord,
  deleteRecord,
  patchRecord,
  replaceRecord,
  setMembers,
} from '#lib/records/writes/record-writes.ts';

/**
 * The agent API's side of the records domain: check the agent key's business and scope, call the
 * store, and shape the answer (ETag = the record's version). Handlers are one call into here, and
 * those that read a record pass its read as `earlyRead` too (below).
 */
export interface AgentInput<E = never> {
  /** `business_id`, and on a record's own path its id under the entity's `idParam`. */
  params: Record<string, string>;
  /** `If-Match` as a version, on the routes that take it. */
  headers?: { 'if-match'?: number | undefined } | undefined;
  principal: AgentPrincipal;
  idempotentCreate?: IdempotentCreate | undefined;
  /** The operation's read, started beside the agent key's lookup; absent: the operation reads now. */
  early?: Promise<E> | undefined;
}

/** The input of an operation that takes a record's fields (create, replace, patch). */
type WithFields<E = never> = AgentInput<E> & { body: RecordFields };

/** The handlers' `earlyRead`s: the operation's read of its target record, beside the agent key. */
const beside = <E>(entity: EntityName, read: (target: Target, reads: ItemReader) => Promise<E>) =>
  besideAgentKey((request: EarlyRequestOf<Record<string, string>>) =>
    read(target(entity, request), readerFor(request.shared)),
  );

/** getAgentRecord's read. */
export const earlyRecord = (entity: EntityName) =>
  beside(entity, ({ businessId, recordId }, reads) => getRecord(entity, businessId, recordId, reads));

/** The read that replace, update, delete and set-members plan their write from. */
export const earlyWriteRead = (entity: EntityName) =>
  beside(entity, ({ businessId, recordId }, reads) => readForWrite(entity, businessId, recordId, { reads }));

/** listAgentMembers' read of the record whose members it lists. */
export const earlyMembersOwner = (entity: EntityName) =>
  beside(entity, ({ businessId, recordId }, reads) => readExisting(entity, businessId, recordId, reads));

interface Target {
  businessId: string;
  recordId: string;
}

function target(entity: EntityName, input: { params: Record<string, string> }): Target {
  const params = input.params;
  const idParam = entities[entity].idParam ?? 'record_id';
  return { businessId: params.business_id ?? '', recordId: params[idParam] ?? '' };
}

const actorOf = (agent: AgentPrincipal): Actor => ({ type: 'agent', id: agent.keyId });
const ifMatchOf = (input: Pick<AgentInput, 'headers'>) => input.headers?.['if-match'];
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

export async function getAgentRecord(
  entity: EntityName,
  input: AgentInput<RecordView>,
): Promise<HandlerOutput> {
  const { businessId, recordId } = target(entity, input);
  assertAgentMayAccess(input.principal, businessId, 'read');
  return withEtag(await (input.early ?? getRecord(entity, businessId, recordId)));
}

/** A write's options: who writes, the If-Match version, and the record if it was read early. */
const existingWriteOptions = (input: AgentInput<WriteRead>) => ({
  actor: actorOf(input.principal),
  ifMatch: ifMatchOf(input),
  firstRead: input.early,
});

export async function replaceAgentRecord(
  entity: EntityName,
  input: WithFields<WriteRead>,
): Promise<HandlerOutput> {
  const { businessId, recordId } = target(entity, input);
  assertAgentMayAccess(input.principal, businessId, 'write');
  const options = existingWriteOptions(input);
  return withEtag(await replaceRecord(entity, businessId, recordId, input.body, options));
}

export async function patchAgentRecord(
  entity: EntityName,
  input: WithFields<WriteRead>,
): Promise<HandlerOutput> {
  const { businessId, recordId } = target(entity, input);
  assertAgentMayAccess(input.principal, businessId, 'write');
  const options = existingWriteOptions(input);
  return withEtag(await patchRecord(entity, businessId, recordId, input.body, options));
}

export async function deleteAgentRecord(
  entity: EntityName,
  input: AgentInput<WriteRead>,
): Promise<HandlerOutput | undefined> {
  const { businessId, recordId } = target(entity, input);
  assertAgentMayAccess(input.principal, businessId, 'write');
  await deleteRecord(entity, businessId, recordId, existingWriteOptions(input));
  return undefined;
}

export async function setAgentMembers(
  entity: EntityName,
  input: AgentInput<WriteRead> & { body: Record<string, unknown> },
): Promise<HandlerOutput> {
  const { businessId, recordId } = target(entity, input);
  assertAgentMayAccess(input.principal, businessId, 'write');
  const field = entities[entity].members?.field ?? '';
  const ids = (input.body as Record<string, string[]>)[field] ?? [];
  const options = existingWriteOptions(input);
  return withEtag(await setMembers(entity, businessId, recordId, ids, options));
}

export async function listAgentMembers(
  entity: EntityName,
  input: AgentInput<StoredItem>,
): Promise<HandlerOutput> {
  const { businessId, recordId } = target(entity, input);
  assertAgentMayAccess(input.principal, businessId, 'read');
  return { data: await listMembers(entity, businessId, recordId, input.early) };
}
