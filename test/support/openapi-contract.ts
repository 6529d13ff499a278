import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { RouteDefinition } from '#lib/http/route.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { buildOpenApiDocument } from '../../infra/openapi.ts';

/**
 * The published contract, checked by a real JSON Schema validator: every response of a test that
 * goes through `checkResponse` must have a status the operation documents, a content type it
 * documents for that status, and a body valid against the documented schema (OpenAPI 3.1 schemas
 * are JSON Schema 2020-12; ajv-formats checks uuid, date-time, uri, email…).
 */
// ajv-formats is CommonJS; under ESM its function is the default export's `default`.
const addFormats = addFormatsModule as unknown as { default: (ajv: Ajv2020) => Ajv2020 };

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is loose JSON here.
export type OpenApiDocument = any;
// biome-ignore lint/suspicious/noExplicitAny: JSON Schema objects are loose JSON.
export type JsonSchema = any;

const DOCUMENT_ID = 'https://openapi.test/openapi.json';

export const openApiDocument: OpenApiDocument = buildOpenApiDocument(routeTable, 'http://127.0.0.1');

const ajv = addFormats.default(new Ajv2020({ strict: false, allErrors: true }));
ajv.addSchema({ $id: DOCUMENT_ID, $defs: {}, components: openApiDocument.components }, DOCUMENT_ID);

/** A component reference made absolute, so a schema compiled alone still finds its components. */
function absoluteRefs(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema)) return schema.map(absoluteRefs);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) =>
      key === '$ref' && typeof value === 'string' && value.startsWith('#/')
        ? [key, `${DOCUMENT_ID}${value}`]
        : [key, absoluteRefs(value)],
    ),
  );
}

/** Follow `#/components/…` references within the document. */
export function resolveRef(schema: JsonSchema): JsonSchema {
  let current = schema;
  while (current && typeof current.$ref === 'string') {
    const path = (current.$ref as string).replace(/^#\//, '').split('/');
    current = path.reduce((node: JsonSchema, segment) => node?.[segment], openApiDocument);
  }
  return current;
}

/** The OpenAPI operation of a route (its path written as OpenAPI writes it). */
export function operationOf(route: RouteDefinition): JsonSchema {
  const path = route.path.replace(/\{(\w+)\+\}/g, '{$1}');
  const operation = openApiDocument.paths?.[path]?.[route.method.toLowerCase()];
  if (!operation) throw new Error(`${route.operationId} is missing from the OpenAPI document`);
  return operation;
}

const validators = new Map<string, ValidateFunction>();
function validatorFor(key: string, schema: JsonSchema): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(absoluteRefs(schema));
    validators.set(key, validate);
  }
  return validate;
}

export interface ObservedResponse {
  status: number;
  headers: Headers;
  /** The body as text (JSON bodies are parsed here). */
  text: string;
}

/** Media type without parameters, lower case: `application/json; charset=utf-8` → `application/json`. */
const mediaType = (value: string | null) => (value ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

/**
 * What is wrong with a response against the route's documented responses; empty when it conforms.
 * Each problem is one readable line.
 */
export function contractProblems(route: RouteDefinition, response: ObservedResponse): string[] {
  const operation = operationOf(route);
  const documented = operation.responses?.[String(response.status)];
  if (!documented) {
    return [
      `status ${response.status} is not documented for ${route.operationId} (documented: ${Object.keys(operation.responses ?? {}).join(', ')})`,
    ];
  }
  const content: Record<string, { schema?: JsonSchema }> | undefined = documented.content;
  if (!content) {
    return response.text === ''
      ? []
      : [
          `status ${response.status} is documented without a body, but one came: ${response.text.slice(0, 200)}`,
        ];
  }
  const type = mediaType(response.headers.get('content-type'));
  const entry = content[type];
  if (!entry) {
    return [
      `content-type '${response.headers.get('content-type')}' is not documented for ${response.status} (documented: ${Object.keys(content).join(', ')})`,
    ];
  }
  if (type !== 'application/json' && !type.endsWith('+json')) return [];
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    return [`a ${type} body that is not JSON: ${response.text.slice(0, 200)}`];
  }
  if (!entry.schema) return [];
  const validate = validatorFor(`${route.operationId} ${response.status} ${type}`, entry.schema);
  if (validate(body)) return [];
  return (validate.errors ?? [])
    .slice(0, 8)
    .map(
      (error) =>
        `body${error.instancePath} ${error.message ?? 'is invalid'} (${JSON.stringify(error.params)}); body: ${response.text.slice(0, 300)}`,
    );
}
