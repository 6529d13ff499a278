import {
  BusinessSummary,
  ChangeLogEntry,
  ChangeLogQuery,
  Claim,
  EditSession,
  OpenSessionBody,
  RecordEnvelope,
  RecordPathParams,
  SessionPathParams,
  Snapshot,
} from '#lib/edits/schemas.ts';
import { BusinessPathParams } from '#lib/http/common-schemas.ts';
import type { RouteDefinition } from '#lib/http/route.ts';
import * as z from '#lib/validation/zod.ts';

const BASE = '/api/v1/edits';
const common = {
  area: 'edits',
  auth: 'console',
  envelope: 'success',
  permissions: { table: 'readwrite' },
} as const;

/**
 * The edits API (spec §4.6, DESIGN §6): the surface assistants use to read a business and (from
 * the next increment on) stage, apply and undo changes. This increment: sessions and the reads.
 */
export const editsRoutes = {
  openEditSession: {
    ...common,
    operationId: 'openEditSession',
    method: 'POST',
    path: `${BASE}/sessions`,
    handler: 'functions/edits/open-session.ts',
    summary: 'Open an edit session on a business the caller holds',
    successStatus: 201,
    request: { body: OpenSessionBody },
    example: { business_id: '3f1c2b0e-8d6a-4a52-9a3e-1b2c3d4e5f60' },
    response: EditSession,
    errors: [403, 404],
  },
  getEditSession: {
    ...common,
    operationId: 'getEditSession',
    method: 'GET',
    path: `${BASE}/sessions/{session_id}`,
    handler: 'functions/edits/get-session.ts',
    summary: 'Read a session and whether it is still open',
    successStatus: 200,
    request: { params: SessionPathParams },
    response: EditSession,
    errors: [404],
  },
  getEditSnapshot: {
    ...common,
    operationId: 'getEditSnapshot',
    method: 'GET',
    path: `${BASE}/sessions/{session_id}/snapshot`,
    handler: 'functions/edits/get-snapshot.ts',
    summary: 'Everything the business has: the profile in full, other records trimmed',
    successStatus: 200,
    request: { params: SessionPathParams },
    response: Snapshot,
    errors: [403, 404, 409],
  },
  getEditRecord: {
    ...common,
    operationId: 'getEditRecord',
    method: 'GET',
    path: `${BASE}/sessions/{session_id}/records/{entity}/{record_id}`,
    handler: 'functions/edits/get-record.ts',
    summary: "One record in full with its version (the profile's record_id is 'profile')",
    successStatus: 200,
    request: { params: RecordPathParams },
    response: RecordEnvelope,
    errors: [403, 404, 409],
  },
  listClaims: {
    ...common,
    operationId: 'listClaims',
    method: 'GET',
    path: `${BASE}/claims`,
    handler: 'functions/edits/list-claims.ts',
    summary: 'The businesses the caller holds, with its role',
    successStatus: 200,
    request: {},
    response: z.array(Claim),
    errors: [],
    permissions: { table: 'read' },
  },
  getEditBusiness: {
    ...common,
    operationId: 'getEditBusiness',
    method: 'GET',
    path: `${BASE}/businesses/{business_id}`,
    handler: 'functions/edits/get-business.ts',
    summary: 'A business the caller holds: name, role and record counts',
    successStatus: 200,
    request: { params: BusinessPathParams },
    response: BusinessSummary,
    errors: [403, 404],
  },
  listChangeLog: {
    ...common,
    operationId: 'listChangeLog',
    method: 'GET',
    path: `${BASE}/businesses/{business_id}/change-log`,
    handler: 'functions/edits/list-change-log.ts',
    summary: "The business's Change History, newest first",
    successStatus: 200,
    request: { params: BusinessPathParams, query: ChangeLogQuery },
    response: z.array(ChangeLogEntry),
    errors: [403, 404],
  },
} as const satisfies Record<string, RouteDefinition>;
