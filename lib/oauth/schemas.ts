import * as z from '#lib/validation/zod.ts';

/**
 * Request and response schemas of the authorization server and the consent operations (docs/oauth.md). OAuth requests are parsed with `z.object`, which drops parameters it does not know,
 * because RFC 6749 §3.1 and RFC 7591 §2 tell a server to ignore unrecognised ones (real clients
 * send extras); everything else in the service rejects unknown fields.
 */

const text = (max: number) => z.string().check(z.maxLength(max));

export const AuthorizationServerMetadata = z.meta(
  z.object({
    issuer: z.string(),
    authorization_endpoint: z.string(),
    token_endpoint: z.string(),
    registration_endpoint: z.string(),
    revocation_endpoint: z.string(),
    jwks_uri: z.string(),
    response_types_supported: z.array(z.string()),
    grant_types_supported: z.array(z.string()),
    code_challenge_methods_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    revocation_endpoint_auth_methods_supported: z.array(z.string()),
    scopes_supported: z.array(z.string()),
    client_id_metadata_document_supported: z.boolean(),
    authorization_response_iss_parameter_supported: z.boolean(),
  }),
  { id: 'AuthorizationServerMetadata', description: 'RFC 8414 metadata' },
);

export const ProtectedResourceMetadata = z.meta(
  z.object({
    resource: z.string(),
    authorization_servers: z.array(z.string()),
    scopes_supported: z.array(z.string()),
    bearer_methods_supported: z.array(z.string()),
    resource_name: z.string(),
  }),
  { id: 'ProtectedResourceMetadata', description: 'RFC 9728 metadata' },
);

export const JsonWebKeySet = z.meta(z.object({ keys: z.array(z.record(z.string(), z.unknown())) }), {
  id: 'JsonWebKeySet',
  description: 'Public keys that verify access tokens (ES256)',
});

export const WellKnownPathParams = z.strictObject({ proxy: z.string() });

export const ClientRegistrationBody = z.meta(
  z.object({
    redirect_uris: z.array(text(2000)).check(z.minLength(1), z.maxLength(10)),
    client_name: z.optional(text(200)),
    client_uri: z.optional(text(2000)),
    logo_uri: z.optional(text(2000)),
    token_endpoint_auth_method: z.optional(z.literal('none')),
    grant_types: z.optional(z.array(z.enum(['authorization_code', 'refresh_token']))),
    response_types: z.optional(z.array(z.literal('code'))),
    scope: z.optional(text(500)),
    software_id: z.optional(text(200)),
    software_version: z.optional(text(100)),
  }),
  { id: 'ClientRegistrationRequest', description: 'RFC 7591 registration of a public client' },
);

export const ClientRegistration = z.meta(
  z.object({
    client_id: z.string(),
    client_id_issued_at: z.number(),
    client_name: z.optional(z.string()),
    redirect_uris: z.array(z.string()),
    token_endpoint_auth_method: z.literal('none'),
    grant_types: z.array(z.string()),
    response_types: z.array(z.string()),
    scope: z.string(),
  }),
  { id: 'ClientRegistration' },
);

const optionalParam = z.optional(z.string().check(z.maxLength(4000)));

/**
 * Everything /oauth/authorize reads; it judges the values itself, client and redirect URI first
 * (authorize.ts).
 */
export const AuthorizeQuery = z.meta(
  z.object({
    response_type: optionalParam,
    client_id: optionalParam,
    redirect_uri: optionalParam,
    scope: optionalParam,
    state: optionalParam,
    code_challenge: optionalParam,
    code_challenge_method: optionalParam,
    resource: optionalParam,
  }),
  { id: 'AuthorizeQuery' },
);

/** Public clients identify themselves with every token and revocation request (RFC 6749 §3.2.1). */
const clientIdParam = z.meta(z.string().check(z.minLength(1), z.maxLength(4000)), {
  description: 'The client the code or token was issued to; required, as for every public client',
});

export const TokenRequestBody = z.meta(
  z.object({
    grant_type: z.string().check(z.maxLength(100)),
    code: optionalParam,
    redirect_uri: optionalParam,
    code_verifier: optionalParam,
    client_id: clientIdParam,
    refresh_token: optionalParam,
    resource: optionalParam,
    scope: optionalParam,
  }),
  {
    id: 'TokenRequest',
    description:
      'authorization_code grant (code, redirect_uri, code_verifier, client_id) or refresh_token grant (refresh_token, client_id), form-encoded',
  },
);

export const TokenResponse = z.meta(
  z.object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number(),
    refresh_token: z.meta(z.optional(z.string()), {
      description:
        'Only when the grant includes `offline_access`; a new one on every refresh (the one used is replaced)',
    }),
    scope: z.meta(z.string(), {
      description: 'The scopes granted, space-separated (`offline_access` among them when it was granted)',
    }),
  }),
  { id: 'TokenResponse' },
);

export const RevokeRequestBody = z.meta(
  z.object({
    token: z.meta(z.string().check(z.maxLength(4000)), {
      description: 'A refresh token or an access token; either ends the whole grant',
    }),
    token_type_hint: z.meta(optionalParam, {
      description: 'access_token or refresh_token: which kind to look for first (a hint only)',
    }),
    client_id: clientIdParam,
  }),
  { id: 'RevocationRequest', description: 'RFC 7009 (form-encoded)' },
);

export const ConsentPathParams = z.strictObject({ request_id: z.uuid() });

export const ScopeInfo = z.meta(z.object({ name: z.string(), description: z.string() }), {
  id: 'ScopeInfo',
  description: 'A scope the client asks for, as the consent page shows it',
});

export const ConsentRequestStatus = z.enum(['pending', 'approved', 'denied', 'expired']);

export const ConsentRequestInfo = z.meta(
  z.object({
    id: z.uuid(),
    client_id: z.string(),
    client_name: z.string(),
    client_host: z.meta(z.string(), { description: 'Host of the redirect URI: where the code will go' }),
    client_source: z.meta(z.enum(['preregistered', 'metadata_document', 'dynamic']), {
      description:
        'Who vouches for the client, which the console must show: `preregistered` (an operator of this service registered it), `metadata_document` (the site whose https URL is the client_id describes it: show that host), `dynamic` (it registered itself; nobody has verified who made it: warn)',
    }),
    redirect_uri: z.string(),
    scopes: z.array(ScopeInfo),
    resource: z.string(),
    expires_at: z.iso.datetime(),
    status: ConsentRequestStatus,
    eligible: z.boolean(),
    ineligible_reason: z.nullable(z.string()),
    consented_before: z.boolean(),
  }),
  { id: 'ConsentRequestInfo' },
);

export const ConsentDecision = z.meta(
  z.object({
    redirect_to: z.meta(z.nullable(z.string()), {
      description:
        'Where the console sends the browser next: the redirect URI with the code (approve), or with `error=access_denied` (deny of a `preregistered` client). `null` when the console must send it nowhere: a denial of a client nobody vetted (`dynamic`, `metadata_document`)',
    }),
    client_link: z.meta(z.nullable(z.string()), {
      description:
        'Only when `redirect_to` is null: the redirect URI with `error=access_denied`, `state` and `iss`, which the console shows as a plain link the person may follow to tell the assistant (never followed by itself); otherwise `null`',
    }),
  }),
  {
    id: 'ConsentDecision',
    description:
      'Approve: `redirect_to` carries a single-use code. Deny: back to a pre-registered client only; for any other client a page and a plain link, so a link to the console never bounces a person to a page nobody vetted',
  },
);
