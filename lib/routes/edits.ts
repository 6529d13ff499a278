import {
  BusinessSummary,
  ChangeLogEntry,
  ChangeLogQuery,
  Changeset,
  ChangesetItemPathParams,
  ChangesetListQuery,
  ChangesetOutcome,
  ChangesetPathParams,
  ChangesetSummary,
  Claim,
  EditSession,
  OpenSessionBody,
  RecordEnvelope,
  RecordPathParams,
  SessionPathParams,
  Snapshot,
  StageChangesetBody,
  TickBody,
  UndoPathParams,
  UndoResult,
} from '#lib/edits/schemas.ts';
import { BusinessPathParams } from '#lib/http/common-schemas.ts';
import type { RouteDefinition } from '#lib/http/route.ts';
import { lazyRow } from '#lib/routes/lazy-row.ts';
import * as z from '#lib/validation/zod.ts';

const BASE = '/api/v1/edits';
const common = {
  area: 'edits',
  auth: 'edits',
  envelope: 'success',
  permissions: { table: 'readwrite' },
} as const;

/**
 * The edits API (docs/edits.md): the surface assistants use to read a business,
 * stage changes, apply them item by item, revert them, and undo entries of the Change History. A
 * console JWT or an assistant's access token (docs/oauth.md, 'Grants and tokens'): reads
 * need `edits:read`, writes `edits:write`.
 */
export const editsRoutes = {
  openEditSession: lazyRow(
    {
      ...common,
      operationId: 'openEditSession',
      method: 'POST',
      oauthScope: 'edits:write',
      path: `${BASE}/sessions`,
      handler: 'functions/edits/open-session.ts',
      idempotent: true,
      summary: 'Open an edit session on a business the caller holds',
      successStatus: 201,
      example: { business_id: '3f1c2b0e-8d6a-4a52-9a3e-1b2c3d4e5f60' },
      errors: [403, 404],
    },
    {
      request: () => ({ body: OpenSessionBody() }),
      response: () => EditSession(),
    },
  ),
  getEditSession: lazyRow(
    {
      ...common,
      operationId: 'getEditSession',
      method: 'GET',
      oauthScope: 'edits:read',
      path: `${BASE}/sessions/{session_id}`,
      handler: 'functions/edits/get-session.ts',
      summary: 'Read a session and whether it is still open',
      successStatus: 200,
      errors: [404],
    },
    {
      request: () => ({ params: SessionPathParams() }),
      response: () => EditSession(),
    },
  ),
  getEditSnapshot: lazyRow(
    {
      ...common,
      operationId: 'getEditSnapshot',
      method: 'GET',
      oauthScope: 'edits:read',
      path: `${BASE}/sessions/{session_id}/snapshot`,
      handler: 'functions/edits/get-snapshot.ts',
      summary: 'Everything the business has: the profile in full, other records trimmed',
      successStatus: 200,
      errors: [403, 404, 409],
    },
    {
      request: () => ({ params: SessionPathParams() }),
      response: () => Snapshot(),
    },
  ),
  getEditRecord: lazyRow(
    {
      ...common,
      operationId: 'getEditRecord',
      method: 'GET',
      oauthScope: 'edits:read',
      path: `${BASE}/sessions/{session_id}/records/{entity}/{record_id}`,
      handler: 'functions/edits/get-record.ts',
      summary: "One record in full with its version (the profile's record_id is 'profile')",
      successStatus: 200,
      errors: [403, 404, 409],
    },
    {
      request: () => ({ params: RecordPathParams() }),
      response: () => RecordEnvelope(),
    },
  ),
  listClaims: lazyRow(
    {
      ...common,
      operationId: 'listClaims',
      method: 'GET',
      oauthScope: 'edits:read',
      path: `${BASE}/claims`,
      handler: 'functions/edits/list-claims.ts',
      summary: 'The businesses the caller holds, with its role',
      successStatus: 200,
      errors: [],
      permissions: { table: 'read' },
    },
    {
      request: () => ({}),
      response: () => z.array(Claim()),
    },
  ),
  getEditBusiness: lazyRow(
    {
      ...common,
      operationId: 'getEditBusiness',
      method: 'GET',
      oauthScope: 'edits:read',
      path: `${BASE}/businesses/{business_id}`,
      handler: 'functions/edits/get-business.ts',
      summary: 'A business the caller holds: name, role and record counts',
      successStatus: 200,
      errors: [403, 404],
    },
    {
      request: () => ({ params: BusinessPathParams }),
      response: () => BusinessSummary(),
    },
  ),
  listChangeLog: lazyRow(
    {
      ...common,
      operationId: 'listChangeLog',
      method: 'GET',
      oauthScope: 'edits:read',
      path: `${BASE}/businesses/{business_id}/change-log`,
      handler: 'functions/edits/list-change-log.ts',
      summary: "The business's Change History, newest first",
      successStatus: 200,
      errors: [403, 404],
    },
    {
      request: () => ({ params: BusinessPathParams, query: ChangeLogQuery() }),
      response: () => z.array(ChangeLogEntry()),
    },
  ),
  stageChangeset: lazyRow(
    {
      ...common,
      operationId: 'stageChangeset',
      method: 'POST',
      oauthScope: 'edits:write',
      path: `${BASE}/sessions/{session_id}/changesets`,
      handler: 'functions/edits/stage-changeset.ts',
      idempotent: true,
      summary: 'Check proposed changes and stage them as one changeset (all or nothing)',
      successStatus: 201,
      example: {
        summary: 'Fix opening FAQ',
        items: [
          { entity: 'faq', action: 'create', fields: { question: 'Parking?', answer: 'Behind the shop.' } },
        ],
      },
      errors: [403, 404, 409],
    },
    {
      request: () => ({ params: SessionPathParams(), body: StageChangesetBody() }),
      response: () => Changeset(),
    },
  ),
  getChangeset: lazyRow(
    {
      ...common,
      operationId: 'getChangeset',
      method: 'GET',
      oauthScope: 'edits:read',
      path: `${BASE}/changesets/{changeset_id}`,
      handler: 'functions/edits/get-changeset.ts',
      summary: 'A changeset and its items',
      successStatus: 200,
      errors: [404],
    },
    {
      request: () => ({ params: ChangesetPathParams() }),
      response: () => Changeset(),
    },
  ),
  applyChangeset: lazyRow(
    {
      ...common,
      operationId: 'applyChangeset',
      method: 'POST',
      oauthScope: 'edits:write',
      path: `${BASE}/changesets/{changeset_id}/apply`,
      handler: 'functions/edits/apply-changeset.ts',
      summary: 'Apply the ticked items, each only if what it changes has not moved since staging',
      successStatus: 200,
      errors: [403, 404, 409],
      timeoutSeconds: 28,
    },
    {
      request: () => ({ params: ChangesetPathParams() }),
      response: () => ChangesetOutcome(),
    },
  ),
  discardChangeset: lazyRow(
    {
      ...common,
      operationId: 'discardChangeset',
      method: 'POST',
      oauthScope: 'edits:write',
      path: `${BASE}/changesets/{changeset_id}/discard`,
      handler: 'functions/edits/discard-changeset.ts',
      summary: 'Drop a staged changeset',
      successStatus: 200,
      errors: [403, 404, 409],
    },
    {
      request: () => ({ params: ChangesetPathParams() }),
      response: () => Changeset(),
    },
  ),
  tickChangesetItem: lazyRow(
    {
      ...common,
      operationId: 'tickChangesetItem',
      method: 'PATCH',
      oauthScope: 'edits:write',
      path: `${BASE}/changesets/{changeset_id}/items/{item_id}`,
      handler: 'functions/edits/tick-changeset-item.ts',
      summary: 'Tick or untick one item of a staged changeset',
      successStatus: 200,
      example: { ticked: false },
      errors: [403, 404, 409],
    },
    {
      request: () => ({ params: ChangesetItemPathParams(), body: TickBody() }),
      response: () => Changeset(),
    },
  ),
  revertChangeset: lazyRow(
    {
      ...common,
      operationId: 'revertChangeset',
      method: 'POST',
      oauthScope: 'edits:write',
      path: `${BASE}/changesets/{changeset_id}/revert`,
      handler: 'functions/edits/revert-changeset.ts',
      summary: 'Undo an applied changeset wherever nothing changed since',
      successStatus: 200,
      errors: [403, 404, 409],
      timeoutSeconds: 28,
    },
    {
      request: () => ({ params: ChangesetPathParams() }),
      response: () => ChangesetOutcome(),
    },
  ),
  undoChange: lazyRow(
    {
      ...common,
      operationId: 'undoChange',
      method: 'POST',
      oauthScope: 'edits:write',
      path: `${BASE}/businesses/{business_id}/change-log/{entry_id}/undo`,
      handler: 'functions/edits/undo-change.ts',
      summary: 'Undo one Change History entry if what it wrote still stands',
      successStatus: 200,
      errors: [403, 404, 409],
    },
    {
      request: () => ({ params: UndoPathParams() }),
      response: () => UndoResult(),
    },
  ),
  listChangesets: lazyRow(
    {
      ...common,
      operationId: 'listChangesets',
      method: 'GET',
      oauthScope: 'edits:read',
      path: `${BASE}/businesses/{business_id}/changesets`,
      handler: 'functions/edits/list-changesets.ts',
      summary: "The business's changesets, newest first",
      successStatus: 200,
      errors: [403, 404],
    },
    {
      request: () => ({ params: BusinessPathParams, query: ChangesetListQuery() }),
      response: () => z.array(ChangesetSummary()),
    },
  ),
} as const satisfies Record<string, RouteDefinition>;
