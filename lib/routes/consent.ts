import type { RouteDefinition } from '#lib/http/route.ts';
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
 * The consent operations (spec §4.1, DESIGN §9), called by the console's consent page with the
 * signed-in user's token. Bodies are the bare resources; a 422 is `HTTPValidationError`.
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
    summary: "Deny: an access_denied error for the client's redirect URI",
    successStatus: 200,
    response: ConsentDecision,
    errors: [404, 409, 410],
  },
} as const satisfies Record<string, RouteDefinition>;
