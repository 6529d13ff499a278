import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { RouteDefinition } from '#lib/http/route.ts';

/** API Gateway's own limits, enforced by the harness so that local runs fail where AWS would. */
export const MAX_REQUEST_BYTES = 10 * 1024 * 1024;
export const MAX_LAMBDA_PAYLOAD_BYTES = 6 * 1024 * 1024;

/** Bodies of these types reach the function as UTF-8 text; every other body is base64. */
const TEXT_CONTENT_TYPE = /^(text\/|application\/([\w.+-]+\+)?(json|xml|javascript)\b)/i;

export interface RouteMatch {
  route: RouteDefinition;
  pathParameters: Record<string, string>;
}

/**
 * Find the route for a request the way API Gateway does: the method must match and each
 * `{name}` segment matches exactly one non-empty path segment; a last `{name+}` matches the rest
 * of the path. Literal segments win over parameters when two routes could match. An OPTIONS
 * request reaches the route of its path that answers CORS preflights (`cors` set), if any, and a
 * method the route only rejects (`rejectsMethods`) reaches it too.
 */
export function matchRoute(
  routes: readonly RouteDefinition[],
  method: string,
  rawPath: string,
): RouteMatch | undefined {
  const segments = rawPath.split('/');
  const verb = method.toUpperCase();
  let best: { match: RouteMatch; literals: number; greedy: boolean } | undefined;
  for (const route of routes) {
    const reached =
      route.method === verb ||
      (verb === 'OPTIONS' && route.cors !== undefined) ||
      (route.rejectsMethods as string[] | undefined)?.includes(verb);
    if (!reached) continue;
    const template = route.path.split('/');
    const greedy = /^\{(\w+)\+\}$/.exec(template.at(-1) ?? '')?.[1];
    if (greedy ? segments.length < template.length : template.length !== segments.length) continue;
    const pathParameters: Record<string, string> = {};
    let literals = 0;
    const matched = template.every((part, index) => {
      const actual = segments[index] ?? '';
      if (greedy && index === template.length - 1) {
        const rest = segments.slice(index).join('/');
        pathParameters[greedy] = safeDecode(rest);
        return rest !== '';
      }
      const parameter = /^\{(\w+)\}$/.exec(part)?.[1];
      if (parameter) {
        if (actual === '') return false;
        pathParameters[parameter] = safeDecode(actual);
        return true;
      }
      literals++;
      return part === actual;
    });
    if (!matched) continue;
    const candidate = { match: { route, pathParameters }, literals, greedy: greedy !== undefined };
    // A route without a greedy parameter is more specific than one with it.
    if (
      !best ||
      (best.greedy && !candidate.greedy) ||
      (best.greedy === candidate.greedy && literals > best.literals)
    ) {
      best = candidate;
    }
  }
  return best?.match;
}

export interface IncomingRequest {
  method: string;
  /** Path and query exactly as received, e.g. /a/b?x=1 */
  url: string;
  /** Node's rawHeaders: [name, value, name, value, …] */
  rawHeaders: string[];
  body: Buffer;
  sourceIp: string;
}

/** Build the event API Gateway HTTP API (payload format 2.0) would send for this request. */
export function buildHttpApiEvent(
  request: IncomingRequest,
  match: RouteMatch,
  now = new Date(),
): APIGatewayProxyEventV2 {
  const queryStart = request.url.indexOf('?');
  const rawPath = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
  const rawQueryString = queryStart === -1 ? '' : (request.url.slice(queryStart + 1).split('#')[0] ?? '');

  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) {
    const name = (request.rawHeaders[i] ?? '').toLowerCase();
    const value = request.rawHeaders[i + 1] ?? '';
    if (name === 'cookie') {
      cookies.push(
        ...value
          .split(';')
          .map((cookie) => cookie.trim())
          .filter(Boolean),
      );
    } else {
      // Repeated headers are joined with a comma, as API Gateway does.
      headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
    }
  }
  // API Gateway tells the function the scheme the caller used, whatever the caller sent (https
  // there); the local stack is plain http.
  headers['x-forwarded-proto'] = 'http';

  const queryStringParameters = parseQueryString(rawQueryString);
  const contentType = headers['content-type'] ?? '';
  const hasBody = request.body.length > 0;
  const isText = hasBody && TEXT_CONTENT_TYPE.test(contentType);
  const method = request.method.toUpperCase();
  const routeKey = `${match.route.method} ${match.route.path}`;

  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(queryStringParameters ? { queryStringParameters } : {}),
    ...(Object.keys(match.pathParameters).length > 0 ? { pathParameters: match.pathParameters } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0] ?? 'localhost',
      http: {
        method,
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: request.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: formatRequestTime(now),
      timeEpoch: now.getTime(),
    },
    ...(hasBody ? { body: isText ? request.body.toString('utf8') : request.body.toString('base64') } : {}),
    isBase64Encoded: hasBody && !isText,
  };
}

/** Repeated keys are joined with commas; values are percent-decoded. Undefined when empty. */
export function parseQueryString(raw: string): Record<string, string> | undefined {
  if (raw === '') return undefined;
  const result: Record<string, string> = {};
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const key = safeDecode(equals === -1 ? pair : pair.slice(0, equals));
    const value = equals === -1 ? '' : safeDecode(pair.slice(equals + 1));
    result[key] = result[key] === undefined ? value : `${result[key]},${value}`;
  }
  return Object.keys(result).length > 0 ? result : undefined;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** requestContext.time, e.g. 22/Nov/2026:07:44:44 +0000 */
function formatRequestTime(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`;
}
