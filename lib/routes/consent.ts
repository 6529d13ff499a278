import type { RouteDefinition } from '#lib/http/route.ts';
import { GrantList, GrantListQuery, GrantPathParams, MAX_LISTED_GRANTS } from '#lib/oauth/grant-schemas.ts';
import { ConsentDecision, ConsentPathParams, ConsentRequestInfo } from '#lib/oauth/schemas.ts';

const path = '/api/v1/oauth/requests/{request_id}';
const common = {
  area: 'consent',
  auth: 'console',
  envelope: 'bare',
  errorFormat: 'http-validation',
  permissions: { table: 'readwrite' },
  request: { params: ConsentPathParams },
} as const;

/**
 * The consent operations (docs/oauth.md, 'The authorization server'), called by the
 * console's consent page with the signed-in user's token, and the person's connected assistants
 * (their grants), which the console lists and disconnects. Bodies are the bare resources; a 422 is
 * `HTTPValidationError`.
 */
export const consentRoutes = {
  getConsentRequest: {
    ...common,
    operationId: 'getConsentRequest',
    method: 'GET',
    path,
    handler: 'functions/consent/get-request.ts',
    summary: 'Read a pending authorization request (the first user to open it owns it)',
    successStatus: 200,
    response: ConsentRequestInfo,
    errors: [404],
  },
  approveConsentRequest: {
    ...common,
    operationId: 'approveConsentRequest',
    method: 'POST',
    path: `${path}/approve`,
    handler: 'functions/consent/approve-request.ts',
    summary: "Approve: a single-use code for the client's redirect URI",
    successStatus: 200,
    response: ConsentDecision,
    errors: [403, 404, 409, 410],
  },
  denyConsentRequest: {
    ...common,
    operationId: 'denyConsentRequest',
    method: 'POST',
    path: `${path}/deny`,
    handler: 'functions/consent/deny-request.ts',
    summary:
      "Deny: an access_denied error for the client's redirect URI (a redirect for pre-registered clients only)",
    successStatus: 200,
    response: ConsentDecision,
    errors: [404, 409, 410],
  },
  listOAuthGrants: {
    ...common,
    operationId: 'listOAuthGrants',
    method: 'GET',
    path: '/api/v1/oauth/grants',
    handler: 'functions/consent/list-grants.ts',
    summary: "List the signed-in person's connected assistants (their live grants)",
    description: `Only the caller's own grants that are neither ended nor expired, newest first, ${MAX_LISTED_GRANTS} a page unless \`limit\` asks for fewer; \`next_cursor\` leads to the next page. A cursor from another person's list, or altered, is a 422.`,
    request: { query: GrantListQuery },
    successStatus: 200,
    response: GrantList,
    errors: [],
    permissions: { table: 'read' },
  },
  endOAuthGrant: {
    ...common,
    operationId: 'endOAuthGrant',
    method: 'DELETE',
    path: '/api/v1/oauth/grants/{grant_id}',
    handler: 'functions/consent/end-grant.ts',
    summary: 'Disconnect an assistant: end one of your grants',
    description:
      "Its access tokens are refused from the next request on (401) and its refresh tokens with `invalid_grant`. A grant of yours that has ended already answers 204 again (a retried DELETE is safe); another person's grant or an unknown id answers 404.",
    request: { params: GrantPathParams },
    successStatus: 204,
    errors: [404],
  },
} as const satisfies Record<string, RouteDefinition>;
