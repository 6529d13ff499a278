import type { RouteDefinition } from '#lib/http/route.ts';
import * as z from '#lib/validation/zod.ts';

/** A host as HTTP carries it: a name or an IPv4 address, or a bracketed IPv6 address, and a port. */
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The headers that say which origin the caller reached: the document names it as its server. */
const OriginHeaders = z.object({
  host: z.optional(
    z.meta(z.string().check(z.maxLength(300), z.regex(HOST)), {
      description: 'The host the caller reached (sent by every HTTP client)',
    }),
  ),
  'x-forwarded-proto': z.optional(
    z.meta(z.enum(['http', 'https']), {
      description: 'Set by API Gateway (always https there); the local stack sets http',
    }),
  ),
});

const OpenApiDocument = z.meta(
  z.looseObject({
    openapi: z.string(),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    servers: z.array(z.object({ url: z.string() })),
    paths: z.record(z.string(), z.unknown()),
  }),
  { id: 'OpenApiDocument', description: 'This document: every operation of the service, OpenAPI 3.1' },
);

/**
 * The service describing itself: the OpenAPI document built from the route table, for customers,
 * client generators and the post-deploy smoke check. Public, on both APIs.
 */
export const docsRoutes = {
  getOpenApiDocument: {
    operationId: 'getOpenApiDocument',
    method: 'GET',
    path: '/openapi.json',
    handler: 'functions/docs/get-openapi-document.ts',
    area: 'docs',
    summary: 'This OpenAPI 3.1 document',
    description:
      "Every operation of the service, its credentials, schemas and errors. Its server URL is the origin the request reached, so a document read from either API's URL names that API.",
    auth: 'none',
    throttle: 'strict',
    envelope: 'bare',
    successStatus: 200,
    request: { headers: OriginHeaders },
    response: OpenApiDocument,
    errors: [],
    permissions: { table: 'read' },
  },
} as const satisfies Record<string, RouteDefinition>;
