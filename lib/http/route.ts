import type { AuthKind } from '#lib/auth/principal.ts';
import type * as z from '#lib/validation/zod.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a function may touch in AWS; CDK grants exactly this and nothing more. */
export interface RoutePermissions {
  table: 'read' | 'readwrite';
  photos?: 'read' | 'readwrite';
  /** Only these photo-bucket keys (e.g. `gallery/*`); the whole bucket when absent. */
  photoKeys?: string;
  sendEmail?: boolean;
  internalApiKeys?: boolean;
  /**
   * The OAuth signing key secret: signing tokens and creating the first key (the token endpoint
   * only; the public keys are read from the table).
   */
  oauthSigningKey?: 'readwrite';
  /**
   * AdminGetUser on the console's Cognito user pool: whether a person's account is still active
   * (the token endpoint, before a refresh; lib/auth/account-status.ts). Granted, with the pool's
   * id in the environment, only on a stage that has its own pool.
   */
  accountDirectory?: 'read';
}

/**
 * One row of the route table (lib/routes/). It is plain data: CDK, the local harness, the invoke
 * CLI and the OpenAPI generator all read it without loading any handler or touching AWS.
 */
export interface RouteDefinition {
  operationId: string;
  method: HttpMethod;
  /** API Gateway / OpenAPI style: /api/v1/businesses/{business_id}/...; a last `{name+}` is greedy. */
  path: string;
  /** Handler source, relative to the repository root; exports `handler`. */
  handler: string;
  /** Groups routes into CDK stacks and OpenAPI tags. */
  area: string;
  summary: string;
  description?: string;
  auth: AuthKind;
  /** 'success' wraps data in SuccessResponse (docs/interface.md, "Envelopes"); 'bare' returns the resource itself. */
  envelope: 'success' | 'bare';
  /**
   * How failures are written: 'envelope' = ErrorResponse (default); 'oauth' = RFC 6749 §5.2
   * `{error, error_description}` (the authorization server's endpoints); 'http-validation' =
   * ErrorResponse except 422, which is `HTTPValidationError` `{detail: [...]}` (the consent operations).
   */
  errorFormat?: 'envelope' | 'oauth' | 'http-validation';
  /**
   * The request body's encoding (default JSON); 'form' = application/x-www-form-urlencoded;
   * 'multipart' = multipart/form-data (files arrive as `{filename, mimetype, content: Buffer}`).
   */
  bodyFormat?: 'json' | 'form' | 'multipart';
  /**
   * 'any-origin': browser clients on any origin may call it (no credentials): responses carry
   * `access-control-allow-origin: *`, and an OPTIONS preflight on the same path reaches the same
   * function, which answers it before anything else runs.
   */
  cors?: 'any-origin';
  /**
   * Methods that reach the same function only to be refused with 405 and `allow` (the tool
   * server answers POST only: no server-sent event streams, no sessions to delete).
   */
  rejectsMethods?: ('GET' | 'DELETE')[];
  /**
   * The stage's route throttle for a route anyone may call (infra/api-stack.ts; every `auth: 'none'`
   * route names one, and only those do): 'token' for what every connected assistant calls all along
   * (token, revoke, discovery, JWKS), sized for all of them at once; 'strict' for what a caller
   * needs once per connection or never (registration, authorize, the OpenAPI document). Abuse by
   * one caller is limited inside the functions, per source and per client (docs/security.md).
   */
  throttle?: 'strict' | 'token';
  /** The OAuth scope an assistant's access token needs for this operation (edits API). */
  oauthScope?: 'edits:read' | 'edits:write';
  /**
   * The operation creates something and takes an `Idempotency-Key` header: a retry with the same
   * key and body gets the first answer instead of a second creation (lib/http/idempotency/response-store.ts).
   */
  idempotent?: true;
  /** 202: accepted, done later (a webhook replay). */
  successStatus: 200 | 201 | 202 | 204;
  request: {
    params?: z.ZodObject;
    query?: z.ZodObject;
    headers?: z.ZodObject;
    body?: z.ZodType;
  };
  /** An example request body (OpenAPI, `npm run event`, the bench). */
  example?: unknown;
  /** Schema of `data` (enveloped) or of the whole body (bare); absent for 204. */
  response?: z.ZodType;
  /** The success body is bytes of one of these types, not JSON (photo bytes; also 303 and 304). */
  binaryContentTypes?: string[];
  /** Error statuses the operation documents besides the pipeline's own (401, 413, 415, 422, 500, 503). */
  errors: number[];
  permissions: RoutePermissions;
  /** Largest JSON body accepted, in bytes (default 256 KiB; DynamoDB items stop at 400 KB). */
  maxBodyBytes?: number;
  timeoutSeconds?: number;
}
