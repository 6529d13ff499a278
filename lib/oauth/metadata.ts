import {
  issuer,
  RESOURCE_SCOPES,
  type ResourceName,
  resources,
  SUPPORTED_SCOPES,
} from '#lib/oauth/settings.ts';

/** RFC 8414 metadata of the authorization server; every URL derives from the issuer. */
export function authorizationServerMetadata() {
  const base = issuer();
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    revocation_endpoint: `${base}/oauth/revoke`,
    jwks_uri: `${base}/oauth/jwks`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...SUPPORTED_SCOPES],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}

const RESOURCE_NAMES: Record<ResourceName, string> = {
  mcp: 'Business Platform assistant tools',
  edits: 'Business Platform edits API',
};

/** RFC 9728 metadata of one protected resource. */
export function protectedResourceMetadata(name: ResourceName) {
  return {
    resource: resources()[name],
    authorization_servers: [issuer()],
    scopes_supported: [...RESOURCE_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: RESOURCE_NAMES[name],
  };
}
