import type { AssistantPrincipal } from '#lib/auth/principal.ts';
import { applyChangeset } from '#lib/edits/apply.ts';
import { readChangeLog } from '#lib/edits/change-log.ts';
import { listClaims } from '#lib/edits/claims.ts';
import { readRecord, readSnapshot } from '#lib/edits/reads.ts';
import { revertChangeset } from '#lib/edits/revert.ts';
import { discardChangeset, readChangeset, tickItem } from '#lib/edits/review.ts';
import {
  ChangeLogEntry,
  ChangeLogQuery,
  Changeset,
  ChangesetItemPathParams,
  ChangesetOutcome,
  ChangesetPathParams,
  Claim,
  EditSession,
  OpenSessionBody,
  RecordEnvelope,
  RecordPathParams,
  SessionPathParams,
  Snapshot,
  TickBody,
  UndoPathParams,
  UndoResult,
} from '#lib/edits/schemas.ts';
import { openSession } from '#lib/edits/sessions.ts';
import { stageChangeset } from '#lib/edits/stage.ts';
import { undoChange } from '#lib/edits/undo.ts';
import { BusinessPathParams } from '#lib/http/common-schemas.ts';
import { ProposeChangesInput } from '#lib/mcp/change-items.ts';
import { reviewViewToolMeta } from '#lib/mcp/review-view.ts';
import { describeChangeset, describeOutcome, describeSnapshot } from '#lib/mcp/summaries.ts';
import { once } from '#lib/validation/lazy.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * The assistant tool server's tools (docs/tool-server.md): one per edits
 * operation a person would name. Each calls the same lib/edits function as the edits API's HTTP
 * handler, as the assistant's user; its input and output schemas are the edits API's own zod
 * schemas.
 */
export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** What the token must allow: reads need edits:read, changes edits:write. */
  scope: 'edits:read' | 'edits:write';
  /**
   * The schemas are thunks, built on first use (memoised by define): a cold start that lists or
   * calls one tool does not build every tool's schemas.
   */
  input: () => I;
  output: () => O;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean };
  /**
   * Tool metadata: `ui.resourceUri` names the MCP Apps view a host renders the result in (the
   * changeset review). Declared whatever the client: a modern request carries no capabilities to
   * negotiate on, and a host without the extension ignores it. No tool is for the view alone
   * (`ui.visibility`): the view calls the tools an assistant calls.
   */
  _meta?: { ui: { resourceUri: string } };
  run(principal: AssistantPrincipal, input: z.output<I>): Promise<{ data: z.output<O>; summary: string }>;
}

/**
 * A tool's schemas are the edits API's, copied without their OpenAPI component id: with an id,
 * JSON Schema output is a bare `$ref`, and MCP clients need `type: "object"` at the top.
 */
const define = <I extends z.ZodObject, O extends z.ZodObject>(
  tool: ToolDefinition<I, O>,
): ToolDefinition<I, O> => ({
  ...tool,
  input: once(() => z.extend(tool.input(), {}) as I),
  output: once(() => z.extend(tool.output(), {}) as O),
});

const read = { readOnlyHint: true, destructiveHint: false, idempotentHint: true };
const write = (destructive: boolean, idempotent: boolean) => ({
  readOnlyHint: false,
  destructiveHint: destructive,
  idempotentHint: idempotent,
});

const Businesses = () => z.object({ businesses: z.array(Claim()) });
const ChangeLogPage = () =>
  z.object({
    entries: z.array(ChangeLogEntry()),
    next_cursor: z.meta(z.nullable(z.string()), { description: 'Pass as cursor for the next, older page' }),
  });

export const tools = [
  define({
    name: 'list_businesses',
    title: 'List the businesses I can edit',
    description:
      'The businesses the person you act for may edit (they are an owner or editor), with their role. Start here: every other tool works inside one of these businesses.',
    scope: 'edits:read',
    input: () => z.object({}),
    output: Businesses,
    annotations: read,
    async run(principal) {
      const businesses = await listClaims(principal);
      const names = businesses.map((b) => `${b.name} (${b.role}, id ${b.business_id})`);
      return {
        data: { businesses },
        summary:
          businesses.length === 0
            ? 'The person you act for cannot edit any business yet; an owner must add them as an owner or editor.'
            : `You can edit ${businesses.length} business${businesses.length === 1 ? '' : 'es'}: ${names.join('; ')}.`,
      };
    },
  }),
  define({
    name: 'open_edit_session',
    title: 'Open an edit session',
    description:
      'Opens an edit session on one business (from list_businesses). Reading the business and proposing changes happen inside a session; it stays open 60 minutes after its last use, 24 hours at most. When a tool says the session is closed, open a new one.',
    scope: 'edits:write',
    input: OpenSessionBody,
    output: EditSession,
    annotations: write(false, false),
    async run(principal, input) {
      const session = await openSession(principal, input.business_id);
      return {
        data: session,
        summary: `Opened edit session ${session.id} on business ${session.business_id}; it stays open until ${session.expires_at} unless it is idle for an hour.`,
      };
    },
  }),
  define({
    name: 'get_snapshot',
    title: 'Read everything the business has',
    description:
      "The business's profile in full and every other record (FAQs, job postings, locations, services, service items, packages, team members) as id, version and label. Read this first; then read_record for any record you want to change, so that your proposal starts from its current values.",
    scope: 'edits:read',
    input: SessionPathParams,
    output: Snapshot,
    annotations: read,
    async run(principal, input) {
      const snapshot = await readSnapshot(principal, input.session_id);
      return { data: snapshot as z.output<ReturnType<typeof Snapshot>>, summary: describeSnapshot(snapshot) };
    },
  }),
  define({
    name: 'read_record',
    title: 'Read one record in full',
    description:
      "One record with all its fields and its version. entity is one of profile, faq, job_posting, location, service, service_item, package, team_member; the profile's record_id is 'profile', other ids come from get_snapshot.",
    scope: 'edits:read',
    input: RecordPathParams,
    output: RecordEnvelope,
    annotations: read,
    async run(principal, input) {
      const record = await readRecord(principal, input.session_id, input.entity, input.record_id);
      return {
        data: record,
        summary: `The ${input.entity} ${input.record_id} is at version ${record.version}; its fields are in the structured result.`,
      };
    },
  }),
  define({
    name: 'propose_changes',
    title: 'Propose changes (stage a changeset)',
    description:
      'Proposes 1–100 changes as one changeset, without changing anything yet. Each item: entity, action (create, update or delete; the profile is only updated), record_id (for update and delete) and fields (for create and update; for an update, only the fields that change; the input schema lists the fields of each entity). Everything is checked first: if any item is invalid, nothing is staged and the error names each problem. Every staged change starts ticked. Then show the person what you propose, untick what they do not want (set_change_ticked), and apply only when they agree (apply_changes).',
    scope: 'edits:write',
    input: ProposeChangesInput,
    output: Changeset,
    annotations: write(false, false),
    _meta: reviewViewToolMeta,
    async run(principal, { session_id: sessionId, ...body }) {
      const changeset = await stageChangeset(principal, sessionId, body);
      return {
        data: changeset,
        summary: `${describeChangeset(changeset)} Nothing has changed yet: show these to the person, untick what they do not want, then apply.`,
      };
    },
  }),
  define({
    name: 'set_change_ticked',
    title: 'Tick or untick one proposed change',
    description:
      'Ticks or unticks one change of a staged changeset: only ticked changes are applied. Use it when the person keeps or drops a change you proposed.',
    scope: 'edits:write',
    input: () => z.extend(ChangesetItemPathParams(), TickBody().shape),
    output: Changeset,
    annotations: write(false, true),
    async run(principal, input) {
      const changeset = await tickItem(principal, input.changeset_id, input.item_id, input.ticked);
      return { data: changeset, summary: describeChangeset(changeset) };
    },
  }),
  define({
    name: 'get_changeset',
    title: 'Read a changeset',
    description:
      'A changeset and each of its changes: what it changes, whether it is ticked, and its status.',
    scope: 'edits:read',
    input: ChangesetPathParams,
    output: Changeset,
    annotations: read,
    _meta: reviewViewToolMeta,
    async run(principal, input) {
      const changeset = await readChangeset(principal, input.changeset_id);
      return { data: changeset, summary: describeChangeset(changeset) };
    },
  }),
  define({
    name: 'apply_changes',
    title: 'Apply the ticked changes',
    description:
      "Applies the ticked changes of a staged changeset, after the person agreed. Each change is applied only if what it changes still holds the value it had when you proposed it; otherwise it is a conflict and left alone (its outcome shows the current values: read the record again and propose a new change if it still makes sense). Every applied change is recorded in the business's Change History and can be taken back with revert_changes or undo_change.",
    scope: 'edits:write',
    input: ChangesetPathParams,
    output: ChangesetOutcome,
    annotations: write(true, false),
    async run(principal, input) {
      const outcome = await applyChangeset(principal, input.changeset_id);
      return { data: outcome, summary: describeOutcome('Applied', outcome) };
    },
  }),
  define({
    name: 'discard_changes',
    title: 'Discard a proposed changeset',
    description:
      'Drops a staged changeset without applying anything, e.g. when the person rejects the proposal.',
    scope: 'edits:write',
    input: ChangesetPathParams,
    output: Changeset,
    annotations: write(true, true),
    async run(principal, input) {
      const changeset = await discardChangeset(principal, input.changeset_id);
      return { data: changeset, summary: `Discarded changeset ${changeset.id}; nothing was changed.` };
    },
  }),
  define({
    name: 'revert_changes',
    title: 'Revert an applied changeset',
    description:
      'Takes back every change of an applied changeset whose values still stand; a change that was changed again since is a revert conflict and left alone.',
    scope: 'edits:write',
    input: ChangesetPathParams,
    output: ChangesetOutcome,
    annotations: write(true, false),
    async run(principal, input) {
      const outcome = await revertChangeset(principal, input.changeset_id);
      return { data: outcome, summary: describeOutcome('Reverted', outcome) };
    },
  }),
  define({
    name: 'read_change_log',
    title: "Read the business's Change History",
    description:
      "The business's Change History, newest first: every applied change by anyone (people, agents, assistants), with the values before and after. Use an entry's id with undo_change.",
    scope: 'edits:read',
    input: () => z.extend(BusinessPathParams, ChangeLogQuery().shape),
    output: ChangeLogPage,
    annotations: read,
    async run(principal, { business_id: businessId, ...page }) {
      const { entries, nextCursor } = await readChangeLog(principal, businessId, page);
      const lines = entries
        .slice(0, 5)
        .map(
          (e) =>
            `${e.action} of ${e.entity} ${e.record_id} by ${(e.actor as { type: string }).type} at ${e.at}`,
        );
      return {
        data: { entries: entries as z.output<ReturnType<typeof ChangeLogEntry>>[], next_cursor: nextCursor },
        summary: `${entries.length} change${entries.length === 1 ? '' : 's'}, newest first${lines.length ? `: ${lines.join('; ')}` : ''}${nextCursor ? '. Older changes follow with next_cursor.' : '.'}`,
      };
    },
  }),
  define({
    name: 'undo_change',
    title: 'Undo one change',
    description:
      'Undoes one Change History entry (from read_change_log) if what it wrote still stands. The undo is itself a new entry, which can be undone in turn.',
    scope: 'edits:write',
    input: UndoPathParams,
    output: UndoResult,
    annotations: write(true, false),
    async run(principal, input) {
      const result = await undoChange(principal, input.business_id, input.entry_id);
      return {
        data: result as z.output<ReturnType<typeof UndoResult>>,
        summary: `Undid change ${result.undo_of}; the undo is recorded as change ${result.entry_id}, which can itself be undone.`,
      };
    },
  }),
];

/** What the server tells an assistant when it connects. */
export const TOOL_SERVER_INSTRUCTIONS =
  'Edit the business information (profile, FAQs, job postings, locations, services, service items, packages, team members) of the businesses the person you act for manages. Workflow: list_businesses → open_edit_session → get_snapshot (and read_record for what you want to change) → propose_changes → show the person the proposal and untick what they reject (set_change_ticked) → apply_changes only with their agreement. A change whose record moved since you proposed it is a conflict and is not applied: read it again and propose anew. Every applied change is in the Change History (read_change_log) and can be taken back (revert_changes for a whole changeset, undo_change for one entry).';
