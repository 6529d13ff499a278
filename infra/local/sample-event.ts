import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { RouteDefinition } from '#lib/http/route.ts';
import { TINY_JPEG } from './demo-images.ts';
import { buildHttpApiEvent } from './http-api-event.ts';
import type { LocalCredentials } from './local-credentials.ts';

/** What only a running stack can give a sample request, beyond its credentials. */
export interface SampleExtras {
  /** A client registered with the stack's OAuth server, for the authorization endpoint. */
  oauthClient?: { clientId: string; redirectUri: string; resource: string };
  /** An assistant's access token for the tool server (POST /mcp). */
  assistantToken?: string;
  /**
   * Ids of items that exist, by path parameter name (`faq_id`…; `source_asset_id` for the photo
   * import's form): a request naming one gets it, so the operation finds its item and does its
   * work; other ids are random, and a read answers 404.
   */
  itemIds?: Record<string, string>;
  /** Fields that replace the route example's in the body (a real code for the token endpoint). */
  bodyFields?: Record<string, string>;
  /** The console or edits credential in place of the default (an invitee's own token). */
  token?: string;
}

const PLATFORM_ADMIN_PATHS = '/api/v1/admin/';

/** Registers a client with a running stack's OAuth server (dynamic registration), for `sampleEvent`. */
export async function registerSampleClient(baseUrl: string): Promise<SampleExtras> {
  const redirectUri = 'http://127.0.0.1:43117/callback';
  const response = await fetch(`${baseUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Sample client', redirect_uris: [redirectUri] }),
  });
  if (response.status !== 201) throw new Error(`Registering a sample client answered ${response.status}`);
  const { client_id: clientId } = (await response.json()) as { client_id: string };
  return { oauthClient: { clientId, redirectUri, resource: `${baseUrl}/mcp` } };
}

/**
 * A plausible API Gateway event for a route, made to reach the operation rather than its
 * validation: path parameters filled (business_id with the first demo business when credentials
 * are at hand, an enum with its first value, an id of `extras.itemIds`, other ids random, so a
 * read answers 404), the credential its auth kind needs (a platform admin's token on the admin
 * routes, or `extras.token`), the route's example (or an empty JSON object) as body where it takes
 * one, with `business_id` naming the demo business in the query and the body and `extras.bodyFields`
 * in place of the example's, and a multipart form where the route takes one.
 */
export function sampleEvent(
  route: RouteDefinition,
  credentials?: LocalCredentials,
  extras: SampleExtras = {},
): APIGatewayProxyEventV2 {
  const business = credentials?.businesses[0];
  const businessId = business?.id ?? randomUUID();
  const pathParameters: Record<string, string> = {};
  const path = route.path.replace(/\{(\w+)\+?\}/g, (_whole, name: string) => {
    const value =
      name === 'business_id'
        ? businessId
        : (extras.itemIds?.[name] ?? firstAllowedValue(route, name) ?? randomUUID());
    pathParameters[name] = value;
    return value;
  });
  // The running (or last) stack's host, as a request to it would carry.
  const host = credentials ? new URL(credentials.base_url).host : '127.0.0.1:3000';
  const rawHeaders = ['host', host, 'user-agent', 'bps-sample-event'];
  if (route.auth === 'console' || route.auth === 'edits') {
    const token =
      extras.token ??
      (route.path.startsWith(PLATFORM_ADMIN_PATHS)
        ? credentials?.platform_admin_token
        : business?.tokens.owner);
    rawHeaders.push('authorization', `Bearer ${token ?? '<console JWT>'}`);
  }
  if (route.auth === 'agent')
    rawHeaders.push('authorization', `Bearer ${credentials?.agent_key ?? '<agk_ key>'}`);
  // An MCP client accepts both JSON and event streams (MCP Streamable HTTP).
  if (route.auth === 'mcp') {
    rawHeaders.push('accept', 'application/json, text/event-stream');
    if (extras.assistantToken) rawHeaders.push('authorization', `Bearer ${extras.assistantToken}`);
  }
  if (route.auth === 'internal')
    rawHeaders.push('x-internal-api-key', credentials?.internal_api_key ?? '<key>');

  const query = sampleQuery(route, businessId, extras);
  const url = query.size > 0 ? `${path}?${query}` : path;
  const sample = route.request.body ? sampleBody(route, businessId, extras) : undefined;
  if (sample) rawHeaders.push('content-type', sample.contentType);
  return buildHttpApiEvent(
    { method: route.method, url, rawHeaders, body: sample?.body ?? Buffer.alloc(0), sourceIp: '127.0.0.1' },
    { route, pathParameters },
  );
}

/** The first value an enum path parameter allows (e.g. an entity name), if it is one. */
function firstAllowedValue(route: RouteDefinition, name: string): string | undefined {
  const params = route.request.params as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined;
  const schema = params?._zod?.def?.shape?.[name] as { _zod?: { values?: Set<unknown> } } | undefined;
  const [first] = schema?._zod?.values ?? [];
  return typeof first === 'string' ? first : undefined;
}

function sampleQuery(route: RouteDefinition, businessId: string, extras: SampleExtras): URLSearchParams {
  const query = new URLSearchParams();
  const shape = (route.request.query as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)
    ?._zod?.def?.shape;
  if (shape && 'business_id' in shape) query.set('business_id', businessId);
  const client = extras.oauthClient;
  if (route.operationId === 'authorizeOAuthClient' && client) {
    query.set('response_type', 'code');
    query.set('client_id', client.clientId);
    query.set('redirect_uri', client.redirectUri);
    // RFC 7636's example challenge: the sample never exchanges the code it would get.
    query.set('code_challenge', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    query.set('code_challenge_method', 'S256');
    query.set('resource', client.resource);
    query.set('state', 'sample');
  }
  return query;
}

function sampleBody(
  route: RouteDefinition,
  businessId: string,
  extras: SampleExtras,
): { body: Buffer; contentType: string } {
  const example = { ...((route.example ?? {}) as Record<string, unknown>), ...extras.bodyFields };
  if ('business_id' in example) example.business_id = businessId;
  if (route.bodyFormat === 'form') {
    return {
      body: Buffer.from(new URLSearchParams(example as Record<string, string>).toString()),
      contentType: 'application/x-www-form-urlencoded',
    };
  }
  if (route.bodyFormat === 'multipart') {
    // The photo import's form: an image and its meta, naming the source photo of `itemIds` (or
    // one that does not exist).
    const boundary = `sample-${randomUUID()}`;
    const source = extras.itemIds?.source_asset_id ?? randomUUID();
    const meta = JSON.stringify({ business_id: businessId, source_asset_id: source });
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="meta"\r\n\r\n${meta}\r\n` +
          `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="edited.jpg"\r\n` +
          'content-type: image/jpeg\r\n\r\n',
      ),
      TINY_JPEG,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    return { body, contentType: `multipart/form-data; boundary=${boundary}` };
  }
  return { body: Buffer.from(JSON.stringify(example)), contentType: 'application/json' };
}
