import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { RouteDefinition } from '#lib/http/route.ts';
import type { LocalCredentials } from './harness.ts';
import { buildHttpApiEvent } from './http-api-event.ts';

/**
 * A plausible API Gateway event for a route: path parameters filled (business_id with the first
 * demo business when credentials are at hand, other ids random), the credential its auth kind
 * needs, and the route's example (or an empty JSON object) as body where it takes one.
 */
export function sampleEvent(route: RouteDefinition, credentials?: LocalCredentials): APIGatewayProxyEventV2 {
  const business = credentials?.businesses[0];
  const pathParameters: Record<string, string> = {};
  const path = route.path.replace(/\{(\w+)\+?\}/g, (_whole, name: string) => {
    const value = name === 'business_id' && business ? business.id : randomUUID();
    pathParameters[name] = value;
    return value;
  });
  // The running (or last) stack's host, as a request to it would carry.
  const host = credentials ? new URL(credentials.base_url).host : '127.0.0.1:3000';
  const rawHeaders = ['host', host, 'user-agent', 'bps-sample-event'];
  if (route.auth === 'console' || route.auth === 'edits')
    rawHeaders.push('authorization', `Bearer ${business?.tokens.owner ?? '<console JWT>'}`);
  if (route.auth === 'agent')
    rawHeaders.push('authorization', `Bearer ${credentials?.agent_key ?? '<agk_ key>'}`);
  // An MCP client accepts both JSON and event streams (MCP Streamable HTTP).
  if (route.auth === 'mcp') rawHeaders.push('accept', 'application/json, text/event-stream');
  if (route.auth === 'internal')
    rawHeaders.push('x-internal-api-key', credentials?.internal_api_key ?? '<key>');
  const form = route.bodyFormat === 'form';
  const example = (route.example ?? {}) as Record<string, string>;
  const body = route.request.body
    ? Buffer.from(form ? new URLSearchParams(example).toString() : JSON.stringify(example))
    : Buffer.alloc(0);
  if (route.request.body) {
    rawHeaders.push('content-type', form ? 'application/x-www-form-urlencoded' : 'application/json');
  }
  return buildHttpApiEvent(
    { method: route.method, url: path, rawHeaders, body, sourceIp: '127.0.0.1' },
    { route, pathParameters },
  );
}
