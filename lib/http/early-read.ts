import { channel } from 'node:diagnostics_channel';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { RouteDefinition } from '#lib/http/route.ts';
import type { Parsed } from '#lib/http/validation.ts';
import * as z from '#lib/validation/zod.ts';

/** What a read started beside authentication may look at: the request's own parts, nothing more. */
export interface EarlyRequest<R extends RouteDefinition> {
  /** The path parameters as the route's schema reads them. */
  params: Parsed<R['request']['params']>;
  /** The query as the route's schema reads it. */
  query: Parsed<R['request']['query']>;
  /** The normalised headers, unvalidated: for telling whether a credential of the right kind is there. */
  headers: Record<string, string | undefined>;
  /**
   * The request's own object, also given to the credential's check: items read through its reader
   * (`readerFor(shared)`, lib/db/item-reader.ts) go out in one call with the credential's lookup.
   */
  shared: object;
}

/**
 * The part of an EarlyRequest a read written for several routes names: path parameters of this
 * shape, and the headers. (A read with its parameter typed is what lets httpHandler infer its
 * result's type for the operation's `early`.)
 */
export interface EarlyRequestOf<Params, Query = undefined> {
  params: Params;
  query: Query;
  headers: Record<string, string | undefined>;
  shared: object;
}

/**
 * A read the operation is going to make, started together with authentication so that the
 * caller's check and the operation's read cost one round trip instead of two; items it reads
 * through `readerFor(request.shared)` go out in the same call as the credential's lookup.
 * Returns undefined to read nothing early (the operation then reads as usual).
 */
export type EarlyRead<R extends RouteDefinition, E> = (request: EarlyRequest<R>) => Promise<E> | undefined;

/**
 * Announced just before an early read starts, with a `run` that starts it. Nothing in the service
 * subscribes; a local instrument does, replacing `run` so that the read runs in a context of its
 * own (the harness counts the read's DynamoDB calls as the operation's, not the credential
 * check's). Publishing to a channel without subscribers does nothing.
 */
export const EARLY_READ_CHANNEL = 'business-platform:early-read';
const earlyReadChannel = channel(EARLY_READ_CHANNEL);

export interface EarlyReadStart {
  run: <T>(read: () => T) => T;
}

/**
 * An `earlyRead` that starts `read` only for a request that carries a credential of the route's
 * kind (`presents` looks at the headers, checks nothing): a request without one is refused before
 * anything is read. What `read` finds is used only after the operation's own access checks.
 */
export const readBesideCredential =
  (presents: (headers: Record<string, string | undefined>) => boolean) =>
  <Request extends { headers: Record<string, string | undefined> }, E>(
    read: (request: Request) => Promise<E>,
  ) =>
  (request: Request): Promise<E> | undefined =>
    presents(request.headers) ? read(request) : undefined;

const INVALID = Symbol('invalid');

/**
 * Start `read` if the request's path and query already pass the route's schemas; otherwise start
 * nothing, so that the pipeline still answers a bad credential 401 before a bad path 422, and the
 * operation never sees what did not validate.
 *
 * What the read finds, or the error it meets, reaches the caller only when the operation awaits it,
 * after authentication and every other check has passed: a refused request answers exactly as it
 * would have without it, and nothing read is shown. A rejection nobody awaits is caught here, so it
 * never becomes an unhandled one. Only for reads: a write must wait for the caller's check.
 */
export function startEarlyRead<R extends RouteDefinition, E>(
  route: R,
  event: APIGatewayProxyEventV2,
  read: EarlyRead<R, E>,
  shared: object,
): Promise<E> | undefined {
  const params = parsedOrInvalid(route.request.params, event.pathParameters);
  const query = parsedOrInvalid(route.request.query, event.queryStringParameters);
  if (params === INVALID || query === INVALID) return undefined;
  const start: EarlyReadStart = { run: (begin) => begin() };
  if (earlyReadChannel.hasSubscribers) earlyReadChannel.publish(start);
  const request = { params, query, headers: event.headers ?? {}, shared } as EarlyRequest<R>;
  const pending = start.run(() => read(request));
  pending?.catch(() => {});
  return pending;
}

function parsedOrInvalid(schema: z.ZodType | undefined, value: unknown): unknown {
  if (!schema) return undefined;
  const result = z.safeParse(schema, value);
  return result.success ? result.data : INVALID;
}
