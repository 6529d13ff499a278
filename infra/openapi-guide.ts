/**
 * What the docs page teaches besides the schemas: who calls each area and with which credential,
 * what each operation needs and changes, and error examples whose code matches their status.
 * Read by the OpenAPI builder (infra/openapi.ts); plain data and small pure functions.
 */
import type { RouteDefinition } from '#lib/http/route.ts';

/** One tag per route-table area, in the order a reader meets them. */
export const AREA_GUIDES: { name: string; description: string }[] = [
  {
    name: 'blog',
    description:
      "The console (a browser app) reads and sets a business's blog auto-schedule. Credential: a console user's JWT (`consoleJwt`; locally `npm run token -- --email …` or the tokens in `.local/credentials.json`). Any member reads; an owner or editor writes; a platform admin may act on any business.",
  },
  {
    name: 'admin',
    description:
      "Platform admins manage who else is a platform admin: invite by e-mail (sent through SES), list, resend, demote. Credential: a console JWT of a platform admin (`platform_admin_token` locally); accepting an invite needs the invitee's own JWT. The invite id is in the invite e-mail's accept link and in the response of the invite and list operations.",
  },
  {
    name: 'agent',
    description:
      'Automated agents read and write a business\'s records (FAQs, job postings, locations, services, service items, packages, team members). Credential: a per-agent key `agk_…` (`agentKey`; `agent_key` locally, or `npm run agent-key -- create`) limited to some businesses and to the scopes read and/or write. Every write is in the Change History; `If-Match: "<version>"` makes an update conditional (409 VERSION_CONFLICT when stale).',
  },
  {
    name: 'events',
    description:
      "The change events feed: every committed change to a business's information, once each, in one order, for agents that follow changes instead of polling the lists. A business's feed, or one feed of every business an agent key may read. Credential: an agent key with the read scope. Page with `after` (the previous page's `meta.next_cursor`); a cursor is good for 30 days (410 after). docs/events.md describes the event and the guarantee.",
  },
  {
    name: 'webhooks',
    description:
      "Webhooks: an agent key's endpoints that change events are posted to as they happen (the events of every business the key may read, narrowed by type), signed as Standard Webhooks says (`webhook-id`, `webhook-timestamp`, `webhook-signature`), retried with backoff, kept in order. Up to 10 per key; a test ping, the delivery log (30 days), a retry of one delivery and a replay of a time range from the feed. Credential: an agent key with the read scope (`agentKey`); a key sees only its own webhooks. docs/webhooks.md describes deliveries and verifying them.",
  },
  {
    name: 'edits',
    description:
      "Reviewed edits, for the console and for assistants: open a session, read the snapshot, stage a changeset, untick what you do not want, apply, revert; the Change History with undo. Credential: a console JWT of an owner or editor, or an assistant's OAuth access token for `<issuer>/api/v1/edits` (scope edits:read for reads, edits:write for everything that changes).",
  },
  {
    name: 'mcp',
    description:
      "The assistant tool server (MCP over Streamable HTTP, JSON responses). Credential: an assistant's OAuth access token for `<issuer>/mcp`; an assistant finds the authorization server from the 401 and signs the user in by itself.",
  },
  {
    name: 'oauth',
    description:
      'The authorization server assistants use: discovery metadata, client registration, authorize (which sends the user to the console consent page), token, revoke, JWKS. No credential: these are public, with CORS for any origin.',
  },
  {
    name: 'consent',
    description:
      "The console's consent page reads a pending authorization request and approves or denies it; the console lists the person's connected assistants (their grants) and disconnects one. Credential: the signed-in console user's JWT; the first user to read a request owns it, and a person sees and ends only their own grants.",
  },
  {
    name: 'media',
    description:
      'Service to service: the media service reads photos, their bytes and usages, the industry gallery and memberships, and imports derived photos. Credential: the internal API key in `x-internal-api-key` (`internalApiKey`; `internal_api_key` locally). Two keys are valid at once during a rotation.',
  },
  {
    name: 'docs',
    description:
      'This document, at `/openapi.json` on both APIs (the console API and the assistant API). No credential.',
  },
];

const CREDENTIAL: Record<RouteDefinition['auth'], string> = {
  none: 'No credential (public).',
  console: 'Console JWT.',
  edits: 'Console JWT, or an assistant access token for the edits API.',
  mcp: 'Assistant access token for the tool server.',
  agent: 'Agent key (`agk_…`) allowed on the business.',
  internal: 'Internal API key (`x-internal-api-key`).',
};

/** Who may call it: the credential and the role or scope it needs. */
function whoMayCall(route: RouteDefinition): string {
  const reads = route.method === 'GET';
  switch (route.auth) {
    case 'console':
      if (route.area === 'admin') {
        return route.operationId.toLowerCase().includes('accept')
          ? 'Console JWT of the invitee (matched by verified e-mail).'
          : 'Console JWT of a platform admin.';
      }
      if (route.area === 'consent') {
        return route.path.startsWith('/api/v1/oauth/grants')
          ? 'Console JWT of the signed-in user, for their own grants only.'
          : 'Console JWT of the signed-in user (the first to read the request owns it).';
      }
      return reads
        ? 'Console JWT of any member of the business (owner, editor or viewer), or a platform admin.'
        : 'Console JWT of an owner or editor of the business, or a platform admin.';
    case 'edits':
      return `Console JWT of an owner or editor of the business, or an assistant token with scope \`${route.oauthScope ?? (reads ? 'edits:read' : 'edits:write')}\`.`;
    case 'agent':
      if (route.area === 'webhooks') return 'Agent key with scope `read`, for its own webhooks only.';
      return `Agent key allowed on the business, with scope \`${reads ? 'read' : 'write'}\`.`;
    default:
      return CREDENTIAL[route.auth];
  }
}

/** What each webhook operation that is not a read changes. */
const WEBHOOK_CHANGES: Record<string, string> = {
  createWebhook:
    'Creates a webhook with a new signing secret; events published from now on are posted to it.',
  updateWebhook:
    'Writes the webhook; resuming it (enabled: true) ends any failure streak and delivers what it missed.',
  deleteWebhook: 'Deletes the webhook: no delivery starts after this.',
  rotateWebhookSecret: 'Adds a new signing secret; the previous one signs too for 24 hours, then expires.',
  testWebhook:
    "Posts a ping to the endpoint and logs the attempt; the webhook's position and status do not change.",
  retryWebhookDelivery:
    "Posts the event again and logs the attempt; the webhook's position and status do not change.",
  replayWebhook: "Queues a replay: the range's events are posted again after the live ones.",
};

/** What calling it changes. */
function whatChanges(route: RouteDefinition): string {
  if (route.method === 'GET') return 'Changes nothing.';
  if (route.area === 'agent') {
    if (route.method === 'DELETE') return 'Deletes the record; recorded in the Change History.';
    if (route.method === 'POST') return 'Creates a record (version 1); recorded in the Change History.';
    return 'Writes the record (version + 1); recorded in the Change History.';
  }
  if (route.area === 'webhooks') return WEBHOOK_CHANGES[route.operationId] ?? 'Writes the webhook.';
  if (route.method === 'DELETE' && route.area === 'consent')
    return "Ends the grant: the assistant's tokens stop working at once.";
  if (route.method === 'DELETE') return 'Deletes it.';
  if (route.successStatus === 201) return 'Creates it.';
  return 'Writes it.';
}

const CONFLICTS: Record<string, string> = {
  agent:
    '409 `VERSION_CONFLICT` when `If-Match` names an older version; 409 `CONFLICT` when deleting a record others reference (they are listed), or past 500 records of a kind.',
  edits:
    '409 when the session is closed or lapsed, or the changeset is not in the state the operation needs (e.g. applying twice).',
  admin: '409 when the e-mail is already an admin, or when demoting the last active admin.',
  consent: '409 when the request was already decided; 410 once it expired.',
  webhooks: '409 when the agent key already has 10 webhooks.',
};

/** The operation's description: its own words, then who may call it, what it changes, its conflicts. */
export function operationGuide(route: RouteDefinition): string {
  const lines = [route.description, `**Who:** ${whoMayCall(route)}`, `**Changes:** ${whatChanges(route)}`];
  const conflicts = CONFLICTS[route.area];
  if (route.errors.includes(409) && conflicts) lines.push(`**Conflicts:** ${conflicts}`);
  return lines.filter((line): line is string => Boolean(line)).join('\n\n');
}

const ERROR_EXAMPLES: Record<number, { code: string; message: string; details?: unknown }> = {
  400: { code: 'BAD_REQUEST', message: 'The body is not valid JSON' },
  401: { code: 'UNAUTHORIZED', message: 'A valid bearer token is required' },
  403: { code: 'FORBIDDEN', message: 'You may not act on this business' },
  404: { code: 'NOT_FOUND', message: 'Not found' },
  409: { code: 'CONFLICT', message: 'The current state does not allow this' },
  410: { code: 'GONE', message: 'It has expired' },
  413: { code: 'PAYLOAD_TOO_LARGE', message: 'The body is larger than this operation accepts' },
  415: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send application/json' },
  422: {
    code: 'VALIDATION_ERROR',
    message: 'The request is not valid',
    details: [{ loc: ['body', 'name'], msg: 'Required', type: 'missing' }],
  },
  429: { code: 'RATE_LIMITED', message: 'Too many requests; retry after the retry-after header' },
  500: { code: 'INTERNAL', message: 'Internal server error' },
  503: {
    code: 'SERVICE_UNAVAILABLE',
    message: 'A dependency is unavailable; retry after the retry-after header',
  },
};

const OAUTH_ERROR_EXAMPLES: Record<number, { error: string; error_description: string }> = {
  400: { error: 'invalid_request', error_description: 'code_verifier is required' },
  401: { error: 'invalid_client', error_description: 'Unknown client' },
  429: { error: 'slow_down', error_description: 'Too many registrations; retry later' },
  503: { error: 'temporarily_unavailable', error_description: 'Retry later' },
};

/** An example body for an error response whose code matches its status (undefined when none fits). */
export function errorExample(route: RouteDefinition, status: number): unknown {
  const requestId = '0f8fad5b-d9cb-469f-a165-70867728950e';
  if (route.errorFormat === 'oauth') return OAUTH_ERROR_EXAMPLES[status] ?? OAUTH_ERROR_EXAMPLES[400];
  if (route.errorFormat === 'http-validation' && status === 422) {
    return { detail: [{ loc: ['path', 'request_id'], msg: 'Invalid UUID', type: 'invalid_format' }] };
  }
  const example = ERROR_EXAMPLES[status];
  if (!example) return undefined;
  const error =
    status === 409 && route.area === 'agent'
      ? { code: 'VERSION_CONFLICT', message: 'The record is at version 3', details: { current_version: 3 } }
      : example;
  return { request_id: requestId, success: false, error };
}

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is walked as plain JSON.
type Json = any;

/**
 * Put ready-made values into the served document as parameter examples (the seeded demo business,
 * its records and photos), so that "Try it out" works without copying ids. Matches parameters by
 * name, in path and query.
 */
export function withParameterExamples<T>(document: T, examples: Record<string, string>): T {
  const paths = (document as Json).paths ?? {};
  for (const operations of Object.values<Json>(paths)) {
    for (const operation of Object.values<Json>(operations)) {
      for (const parameter of operation?.parameters ?? []) {
        const value = examples[parameter.name];
        if (value !== undefined && (parameter.in === 'path' || parameter.in === 'query'))
          parameter.example = value;
      }
    }
  }
  return document;
}
