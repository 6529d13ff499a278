import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyInconsistentStateError,
  IdempotencyPersistenceLayerError,
  IdempotencyValidationError,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { dynamoClient, tableName } from '#lib/db/client.ts';
import { IDEMPOTENCY } from '#lib/db/keys.ts';
import { tableDefinition } from '#lib/db/table.ts';
import { asDependencyUnavailable } from '#lib/http/dependency-errors.ts';
import { HttpError } from '#lib/http/errors.ts';
import { IdempotencyKeyHeaders } from '#lib/http/idempotency/key-header.ts';
import {
  idempotentCreateOf,
  keyReusedError,
  logIdempotencyConflict,
} from '#lib/http/idempotency/keyed-create.ts';
import type { IdempotencyWrapper } from '#lib/http/pipeline.ts';
import { parseRequestPart } from '#lib/http/validation.ts';
import { logger } from '#lib/observability/logger.ts';

/**
 * `Idempotency-Key` on the POSTs that create something (routes with `idempotent: true`), with
 * Powertools for AWS Lambda's idempotency utility and the single table as its store.
 *
 * The key is scoped to the operation, the caller and the path, so two callers (or two businesses)
 * using the same key never meet. The first 2xx answer is stored for 24 h and replayed to every
 * retry with the same body; another body with the same key is a 422; a retry while the first is
 * still running is a 409 with `retry-after`. A failure is never stored, so a 4xx or 503 may be
 * retried with the same key. Without the header a request behaves as it always did.
 */

export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

/** Seconds a caller waits before retrying while the first request with its key is still running. */
const IN_PROGRESS_RETRY_AFTER_SECONDS = 1;

type Result = APIGatewayProxyStructuredResultV2;

/** What Powertools hashes: `idempotency` names the record, `request` must match on a retry. */
interface IdempotentRequest {
  idempotency: { operation: string; caller: string; path: Record<string, string | undefined>; key: string };
  request: { body: unknown };
}

/**
 * Items fit the table's key scheme (lib/db/keys.ts `keys.idempotency`): Powertools writes
 * `{[keyAttr]: staticPkValue, [sortKeyAttr]: <prefix>#<hash>}` when a sort key is configured, so
 * naming our sort key as its key attribute and our partition key as its sort key gives
 * pk = `IDEMPOTENCY#<hash>` (one partition per key, no hot spot) and sk = `IDEMPOTENCY`. Expiry
 * is the table's TTL attribute, so DynamoDB removes old records.
 */
let store: DynamoDBPersistenceLayer | undefined;
export function idempotencyStore(): DynamoDBPersistenceLayer {
  store ??= new DynamoDBPersistenceLayer({
    tableName,
    awsSdkV3Client: dynamoClient,
    keyAttr: tableDefinition.sortKey,
    sortKeyAttr: tableDefinition.partitionKey,
    staticPkValue: IDEMPOTENCY,
    expiryAttr: tableDefinition.timeToLiveAttribute,
    dataAttr: 'response',
    validationKeyAttr: 'request_hash',
  });
  return store;
}

/** Who the key belongs to: never shared between two credentials, users or assistants. */
function callerOf(principal: unknown): string {
  const caller = principal as { kind?: string; keyId?: string; userId?: string; clientId?: string };
  if (caller.kind === 'agent') return `agent:${caller.keyId}`;
  if (caller.kind === 'user') return `user:${caller.userId}`;
  if (caller.kind === 'assistant') return `assistant:${caller.userId}:${caller.clientId}`;
  throw new Error(`An idempotent route needs an authenticated caller, not '${caller.kind}'`);
}

/** A response that must not be stored (not 2xx): Powertools drops the record, we send it on. */
class NotStored extends Error {
  constructor(readonly response: Result) {
    super('not a success');
  }
}

const isSuccess = (response: Result) =>
  (response.statusCode ?? 200) >= 200 && (response.statusCode ?? 200) < 300;

/**
 * Wrap a route's responder (after authentication and body parsing, so the caller and the parsed
 * body are known) so that a request carrying `Idempotency-Key` runs at most once per key.
 */
export const withIdempotencyKey: IdempotencyWrapper = (route, respond) => {
  return async (event, context) => {
    // Most requests carry no key: they skip the header's schema (and building it) altogether.
    if (event.headers?.['idempotency-key'] === undefined) return respond(event, context);
    const key = parseRequestPart('header', IdempotencyKeyHeaders(), event.headers)['idempotency-key'];
    if (key === undefined) return respond(event, context);

    const requestId = event.requestContext?.requestId ?? 'unknown';
    const scope = {
      operation: route.operationId,
      caller: callerOf(context.principal),
      path: event.pathParameters ?? {},
      key,
    };
    // The create itself carries the key too (lib/http/idempotency/keyed-create.ts), for the write that
    // DynamoDB applied while this function saw its call fail: Powertools' record is gone then.
    context.idempotentCreate = idempotentCreateOf(scope, event.body ?? null);
    let produced: Result | undefined;
    const run = makeIdempotent(
      async (_request: IdempotentRequest, _context: Context): Promise<Result> => {
        const response = await respond(event, context);
        if (!isSuccess(response)) throw new NotStored(response);
        produced = {
          statusCode: response.statusCode ?? 200,
          headers: response.headers ?? {},
          body: response.body ?? '',
        };
        return produced;
      },
      {
        persistenceStore: idempotencyStore(),
        keyPrefix: IDEMPOTENCY,
        config: new IdempotencyConfig({
          eventKeyJmesPath: 'idempotency',
          payloadValidationJmesPath: 'request',
          throwOnNoIdempotencyKey: true,
          expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS,
          hashFunction: 'sha256',
          // A replay: the first answer, with this request's id in the header and a marker.
          responseHook: (response) => {
            const first = response as Result;
            return {
              ...first,
              headers: { ...first.headers, 'x-request-id': requestId, 'idempotent-replayed': 'true' },
            };
          },
        }),
      },
    );
    const request: IdempotentRequest = { idempotency: scope, request: { body: event.body ?? null } };
    try {
      return await run(request, context);
    } catch (error) {
      if (error instanceof NotStored) return error.response;
      // The operation did its work but its answer could not be stored: send it anyway.
      if (produced && error instanceof IdempotencyPersistenceLayerError) {
        logger.warn('Idempotent response not stored', { requestId, error });
        return produced;
      }
      throw asHttpError(error);
    }
  };
};

/** Powertools' errors as the API's own (the pipeline writes them as ErrorResponse). */
function asHttpError(error: unknown): unknown {
  if (error instanceof IdempotencyValidationError) return keyReusedError();
  if (
    error instanceof IdempotencyAlreadyInProgressError ||
    error instanceof IdempotencyInconsistentStateError
  ) {
    logIdempotencyConflict('in_progress');
    return new HttpError(
      409,
      'CONFLICT',
      'A request with this Idempotency-Key is still in progress; retry it shortly',
      undefined,
      { 'retry-after': String(IN_PROGRESS_RETRY_AFTER_SECONDS) },
    );
  }
  if (error instanceof IdempotencyPersistenceLayerError) {
    return asDependencyUnavailable(error.cause) ?? error;
  }
  return error;
}
