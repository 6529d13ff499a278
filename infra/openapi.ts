import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type * as core from 'zod/v4/core';
import type { AuthKind } from '#lib/auth/principal.ts';
import { IdempotencyKeyHeaders } from '#lib/http/idempotency/key-header.ts';
import type { RouteDefinition } from '#lib/http/route.ts';
import { INLINE_LIMIT_BYTES } from '#lib/media/inline-limit.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { AREA_GUIDES, errorExample, operationGuide } from './openapi-guide.ts';
import { DocumentSchemas, type JsonSchema } from './openapi-schemas.ts';

const ValidationIssue = z
  .object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() })
  .meta({ id: 'ValidationIssue' });

const ErrorResponse = z
  .object({
    request_id: z.string(),
    success: z.literal(false),
    error: z.object({
      code: z.enum([
        'BAD_REQUEST',
        'UNAUTHORIZED',
        'FORBIDDEN',
        'NOT_FOUND',
        'CONFLICT',
        'VERSION_CONFLICT',
        'GONE',
        'PAYLOAD_TOO_LARGE',
        'UNSUPPORTED_MEDIA_TYPE',
        'VALIDATION_ERROR',
        'RATE_LIMITED',
        'INTERNAL',
        'SERVICE_UNAVAILABLE',
      ]),
      message: z.string(),
      details: z.union([z.array(ValidationIssue), z.unknown()]).optional(),
    }),
  })
  .meta({ id: 'ErrorResponse' });

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request (e.g. malformed JSON)',
  401: 'Missing or invalid credential',
  403: 'The credential does not allow this',
  406: 'Not acceptable (the Accept header names no media type the operation answers with)',
  404: 'Not found',
  409: 'Conflict with the current state',
  410: 'Gone',
  413: "Request body too large: over the operation's limit, the operation's error body; over API Gateway's (10 MB, or 6 MB once in a Lambda event), API Gateway's own GatewayError",
  415: 'Unsupported media type',
  422: 'Validation error',
  429: 'Too many requests; retry after the retry-after header',
  500: 'Internal server error',
  503: 'A dependency is unavailable; retry after the retry-after header',
};

type SecurityScheme = Parameters<OpenAPIRegistry['registerComponent']>[2];

const SECURITY_SCHEMES: Record<
  Exclude<AuthKind, 'none' | 'edits' | 'mcp'> | 'assistant',
  { name: string; scheme: SecurityScheme }
> = {
  console: {
    name: 'consoleJwt',
    scheme: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Console user token (OIDC)' },
  },
  assistant: {
    name: 'assistantOAuth',
    scheme: {
      type: 'oauth2',
      description: "An assistant's access token from this service's authorization server",
      flows: {
        authorizationCode: {
          authorizationUrl: '/oauth/authorize',
          tokenUrl: '/oauth/token',
          refreshUrl: '/oauth/token',
          scopes: {
            'edits:read': 'Read business information and its change history',
            'edits:write': 'Propose, apply and undo changes',
          },
        },
      },
    },
  },
  agent: {
    name: 'agentKey',
    scheme: { type: 'http', scheme: 'bearer', description: 'Per-agent key, agk_…' },
  },
  internal: {
    name: 'internalApiKey',
    scheme: { type: 'apiKey', in: 'header', name: 'x-internal-api-key' },
  },
};

const OAuthErrorResponse = z
  .object({ error: z.string(), error_description: z.string().optional() })
  .meta({ id: 'OAuthErrorResponse', description: 'RFC 6749 §5.2 error' });

const HTTPValidationError = z
  .object({ detail: z.array(ValidationIssue) })
  .meta({ id: 'HTTPValidationError', description: 'The consent operations answer a 422 with this' });

const JsonRpcErrorResponse = z
  .object({
    jsonrpc: z.literal('2.0'),
    error: z.object({ code: z.int(), message: z.string(), data: z.unknown().optional() }),
    id: z.union([z.string(), z.number(), z.null()]),
  })
  .meta({
    id: 'JsonRpcErrorResponse',
    description: "The MCP transport's own refusals (bad Origin, Accept or JSON-RPC) are JSON-RPC errors",
  });

/** The error body a route answers with at a status (see RouteDefinition.errorFormat). */
/**
 * What API Gateway itself answers, before any function runs: `{"message": "…"}`. HTTP APIs cannot
 * reshape these, so a 413 has two documented bodies.
 */
const GatewayError = z.object({ message: z.string() }).meta({
  id: 'GatewayError',
  description:
    "API Gateway's own answer, before the operation runs (a body over 10 MB, or a request event over Lambda's 6 MB payload limit)",
});

function errorSchema(route: RouteDefinition, status: number): core.$ZodType {
  // The tool server's transport refuses some requests itself, with JSON-RPC error bodies.
  const own: z.ZodType[] =
    route.auth === 'mcp'
      ? [ErrorResponse, JsonRpcErrorResponse]
      : route.errorFormat === 'oauth'
        ? [OAuthErrorResponse]
        : route.errorFormat === 'http-validation' && status === 422
          ? [HTTPValidationError]
          : [ErrorResponse];
  // Over the operation's own limit the function answers in its format; over API Gateway's, the gateway.
  const bodies = status === 413 ? [...own, GatewayError] : own;
  return bodies.length === 1 ? (bodies[0] as z.ZodType) : z.union(bodies);
}

function responseSchema(route: RouteDefinition): core.$ZodType {
  const response = route.response;
  if (route.envelope === 'bare') return response ?? z.null();
  return z.object({
    request_id: z.string(),
    success: z.literal(true),
    data: response ?? z.null(),
    meta: z.record(z.string(), z.unknown()).optional(),
  });
}

const BODY_CONTENT_TYPES = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  multipart: 'multipart/form-data',
} as const;

/** An API Gateway path in OpenAPI's form: a greedy `{proxy+}` is written `{proxy}`. */
export const openApiPath = (path: string) => path.replace(/\{(\w+)\+\}/g, '{$1}');

/** Who may call a route: the edits API takes a console JWT or an assistant token with its scope. */
function securityOf(route: RouteDefinition): Record<string, string[]>[] {
  if (route.auth === 'none') return [];
  if (route.auth === 'mcp') return [{ [SECURITY_SCHEMES.assistant.name]: [] }];
  if (route.auth === 'edits') {
    return [
      { [SECURITY_SCHEMES.console.name]: [] },
      { [SECURITY_SCHEMES.assistant.name]: route.oauthScope ? [route.oauthScope] : [] },
    ];
  }
  return [{ [SECURITY_SCHEMES[route.auth].name]: [] }];
}

/** The OpenAPI 3.1 document of every route in the route table. */
export function buildOpenApiDocument(routes: readonly RouteDefinition[] = routeTable, serverUrl = '/') {
  const registry = new OpenAPIRegistry();
  const schemas = new DocumentSchemas();
  for (const { name, scheme } of Object.values(SECURITY_SCHEMES)) {
    registry.registerComponent('securitySchemes', name, scheme);
  }
  for (const route of routes) {
    const errorStatuses = new Set([500, 503, ...route.errors]);
    if (route.auth !== 'none') errorStatuses.add(401);
    // OAuth endpoints answer a malformed request with a 400 invalid_request, never a 422.
    if (route.errorFormat !== 'oauth') errorStatuses.add(422);
    if (route.request.body) {
      errorStatuses.add(400).add(413).add(415);
    }
    // Idempotency-Key: a retry while the first request is still running is a 409.
    if (route.idempotent) errorStatuses.add(409);
    const { params, query, headers, body } = route.request;
    const parameterObjects = [
      [params, 'path'],
      [query, 'query'],
      [headers, 'header'],
      [route.idempotent ? IdempotencyKeyHeaders() : undefined, 'header'],
    ] as const;
    const parameters = schemas.parameters(parameterObjects.filter(([schema]) => schema) as never);
    const responses: Record<
      string,
      { description: string; content?: Record<string, { schema: JsonSchema; example?: unknown }> }
    > = {};
    responses[String(route.successStatus)] =
      route.successStatus === 204
        ? { description: 'No content' }
        : route.response
          ? {
              description: 'Success',
              content: { 'application/json': { schema: schemas.schema(responseSchema(route), 'output') } },
            }
          : { description: 'Success, no body' };
    if (route.binaryContentTypes && route.response) {
      const schema = schemas.schema(route.response, 'output');
      responses[String(route.successStatus)] = {
        description: 'The bytes, with the stored content type, content-length and ETag (the sha256)',
        content: Object.fromEntries(route.binaryContentTypes.map((type) => [type, { schema }])),
      };
      responses['303'] = {
        description: `A stored photo larger than ${INLINE_LIMIT_BYTES / (1024 * 1024)} MB: a presigned S3 URL valid 60 s in location (the photo's bytes and content type), with the ETag`,
      };
      responses['304'] = { description: 'If-None-Match matched the ETag' };
    }
    if (route.operationId === 'authorizeOAuthClient') {
      responses['302'] = { description: 'To the console consent page, or an error redirect to the client' };
      responses['400'] = {
        description: 'The client or redirect URI cannot be trusted: an HTML page, no redirect',
        content: { 'text/html': { schema: { type: 'string' } } },
      };
      errorStatuses.delete(400);
    }
    if (route.operationId === 'handleMcp') {
      // MCP Streamable HTTP: a POST of only notifications or responses is accepted without a body.
      responses['202'] = {
        description: 'Accepted: the message held only notifications or responses; no body',
      };
    }
    for (const status of [...errorStatuses].sort()) {
      // An example whose error code matches the status (a schema alone shows BAD_REQUEST for all).
      const example = errorExample(route, status);
      responses[String(status)] = {
        description: ERROR_DESCRIPTIONS[status] ?? 'Error',
        content: {
          'application/json': {
            schema: schemas.schema(errorSchema(route, status), 'output'),
            ...(example === undefined ? {} : { example }),
          },
        },
      };
    }
    registry.registerPath({
      method: route.method.toLowerCase() as 'get',
      path: openApiPath(route.path),
      operationId: route.operationId,
      summary: route.summary,
      description: operationGuide(route),
      tags: [route.area],
      security: securityOf(route),
      ...(parameterObjects.some(([schema]) => schema) ? { parameters } : {}),
      request: {
        ...(body
          ? {
              body: {
                required: true,
                content: {
                  [BODY_CONTENT_TYPES[route.bodyFormat ?? 'json']]: {
                    schema: schemas.schema(body, 'input'),
                    ...(route.example === undefined ? {} : { example: route.example }),
                  },
                },
              },
            }
          : {}),
      },
      responses,
    });
  }
  for (const [id, schema] of Object.entries(schemas.finish()))
    registry.registerComponent('schemas', id, schema);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Business Platform Service',
      version: '1.0.0',
      description: 'Business information of many small businesses, for the console, agents and assistants.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: serverUrl }],
    tags: AREA_GUIDES.filter((guide) => routes.some((route) => route.area === guide.name)),
  });
}
