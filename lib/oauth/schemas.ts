import * as z from '#lib/validation/zod.ts';

/**
 * Request and response schemas of the authorization server (DESIGN §9) and the consent operations
 * (spec §4.1). OAuth requests are parsed with `z.object`, which drops parameters it does not know,
 * because RFC 6749 §3.1 and RFC 7591 §2 tell a server to ignore unrecognised ones (real clients
 * send extras); everything else in the service rejects unknown fields.
 */

const text = (max: number) => z.string().max(max);

export const AuthorizationServerMetadata = z
  .object({
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
  })
  .meta({ id: 'AuthorizationServerMetadata', description: 'RFC 8414 metadata' });

export const ProtectedResourceMetadata = z
  .object({
    resource: z.string(),
    authorization_servers: z.array(z.string()),
    scopes_supported: z.array(z.string()),
    bearer_methods_supported: z.array(z.string()),
    resource_name: z.string(),
  })
  .meta({ id: 'ProtectedResourceMetadata', description: 'RFC 9728 metadata' });

export const JsonWebKeySet = z
  .object({ keys: z.array(z.record(z.string(), z.unknown())) })
  .meta({ id: 'JsonWebKeySet', description: 'Public keys that verify access tokens (ES256)' });

export const WellKnownPathParams = z.strictObject({ proxy: z.string() });

export const ClientRegistrationBody = z
  .object({
    redirect_uris: z.array(text(2000)).min(1).max(10),
    client_name: text(200).optional(),
    client_uri: text(2000).optional(),
    logo_uri: text(2000).optional(),
    token_endpoint_auth_method: z.literal('none').optional(),
    grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])).optional(),
    response_types: z.array(z.literal('code')).optional(),
    scope: text(500).optional(),
    software_id: text(200).optional(),
    software_version: text(100).optional(),
  })
  .meta({ id: 'ClientRegistrationRequest', description: 'RFC 7591 registration of a public client' });

export const ClientRegistration = z
  .object({
    client_id: z.string(),
    client_id_issued_at: z.number(),
    client_name: z.string().optional(),
    redirect_uris: z.array(z.string()),
    token_endpoint_auth_method: z.literal('none'),
    grant_types: z.array(z.string()),
    response_types: z.array(z.string()),
    scope: z.string(),
  })
  .meta({ id: 'ClientRegistration' });

const optionalParam = z.string().max(4000).optional();

/** Everything /oauth/authorize reads; it judges the values itself, in DESIGN §9's order. */
export const AuthorizeQuery = z
  .object({
    response_type: optionalParam,
    client_id: optionalParam,
    redirect_uri: optionalParam,
    scope: optionalParam,
    state: optionalParam,
    code_challenge: optionalParam,
    code_challenge_method: optionalParam,
    resource: optionalParam,
  })
  .meta({ id: 'AuthorizeQuery' });

export const TokenRequestBody = z
  .object({
    grant_type: z.string().max(100),
    code: optionalParam,
    redirect_uri: optionalParam,
    code_verifier: optionalParam,
    client_id: optionalParam,
    refresh_token: optionalParam,
    resource: optionalParam,
    scope: optionalParam,
  })
  .meta({ id: 'TokenRequest', description: 'authorization_code or refresh_token grant (form-encoded)' });

export const TokenResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number(),
    refresh_token: z.string(),
    scope: z.string(),
  })
  .meta({ id: 'TokenResponse' });

export const RevokeRequestBody = z
  .object({ token: z.string().max(4000), token_type_hint: optionalParam, client_id: optionalParam })
  .meta({ id: 'RevocationRequest', description: 'RFC 7009 (form-encoded)' });

export const ConsentPathParams = z.strictObject({ request_id: z.uuid() });

export const ScopeInfo = z
  .object({ name: z.string(), description: z.string() })
  .meta({ id: 'ScopeInfo', description: 'A scope the client asks for, as the consent page shows it' });

export const ConsentRequestStatus = z.enum(['pending', 'approved', 'denied', 'expired']);

export const ConsentRequestInfo = z
  .object({
    id: z.uuid(),
    client_id: z.string(),
    client_name: z.string(),
    client_host: z.string().meta({ description: 'Host of the redirect URI: where the code will go' }),
    redirect_uri: z.string(),
    scopes: z.array(ScopeInfo),
    resource: z.string(),
    expires_at: z.iso.datetime(),
    status: ConsentRequestStatus,
    eligible: z.boolean(),
    ineligible_reason: z.string().nullable(),
    consented_before: z.boolean(),
  })
  .meta({ id: 'ConsentRequestInfo' });

export const ConsentDecision = z
  .object({ redirect_to: z.string().meta({ description: 'Where the console sends the browser next' }) })
  .meta({ id: 'ConsentDecision' });
