import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { HttpError } from '#lib/http/errors.ts';
import type { RouteDefinition } from '#lib/http/route.ts';
import { parseRequestPart } from '#lib/http/validation.ts';
import type { RecordFields } from '#lib/records/record-types.ts';

/**
 * What the bare probes (agent-read-bare.ts and its siblings) do in place of the pipeline: validate
 * the path and the JSON body with the route's zod schemas, and answer an HttpError with its status.
 */
export function bareParams(route: RouteDefinition, event: APIGatewayProxyEventV2): Record<string, string> {
  const schema = route.request.params;
  if (!schema) throw new Error(`${route.operationId} declares its path parameters`);
  return parseRequestPart('path', schema, event.pathParameters) as Record<string, string>;
}

export function bareBody(route: RouteDefinition, event: APIGatewayProxyEventV2): RecordFields {
  const schema = route.request.body;
  if (!schema) throw new Error(`${route.operationId} declares its body`);
  return parseRequestPart('body', schema, JSON.parse(event.body ?? 'null')) as RecordFields;
}

/** The probe's answer: `work`'s status and data as JSON, or an HttpError's status and message. */
export async function bareAnswer(
  statusCode: number,
  work: () => Promise<{ data?: unknown }>,
): Promise<{ statusCode: number; body: string }> {
  try {
    return { statusCode, body: JSON.stringify({ data: (await work()).data }) };
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return { statusCode: error.statusCode, body: JSON.stringify({ message: error.message }) };
  }
}
