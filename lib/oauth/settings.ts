import { optionalEnv, requiredEnv } from '#lib/config/env.ts';

/**
 * The authorization server's fixed vocabulary (docs/oauth.md). The issuer is the
 * service's public base URL without a trailing slash (CDK context `publicUrl`, locally the
 * harness's base URL), read from OAUTH_ISSUER once per container by whoever needs it.
 */
export const issuer = (): string => requiredEnv('OAUTH_ISSUER').replace(/\/+$/, '');

export const SUPPORTED_SCOPES = ['edits:read', 'edits:write', 'offline_access'] as const;
export type Scope = (typeof SUPPORTED_SCOPES)[number];

/** What the consent page shows a person for each scope. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'edits:read': 'Read the business information of the businesses you manage, and their change history',
  'edits:write': 'Propose changes to that information, apply the ones you keep, and undo them',
  offline_access: 'Stay connected when you are away, until you disconnect it',
};

/** Asked for when a client names no scope. */
export const DEFAULT_SCOPES: Scope[] = ['edits:read', 'edits:write'];
/**
 * Scopes split on any whitespace, de-duplicated; the unknown ones as a string when there are any.
 * A '+' separates too: it is a form-encoded space that API Gateway leaves undecoded in query
 * parameters, and none of our scope names contains one.
 */
export function parseScopes(scope: string | undefined): Scope[] | string {
  const asked = [...new Set((scope ?? '').split(/[\s+]+/).filter(Boolean))];
  if (asked.length === 0) return [...DEFAULT_SCOPES];
  const unknown = asked.filter((name) => !(SUPPORTED_SCOPES as readonly string[]).includes(name));
  return unknown.length > 0 ? unknown.join(' ') : (asked as Scope[]);
}

/** What a protected resource advertises and asks for in its 401 challenge. */
export const RESOURCE_SCOPES = ['edits:read', 'edits:write'] as const;

/** The two protected resources: the assistant tool server and the edits API. */
export const resources = () => ({ mcp: `${issuer()}/mcp`, edits: `${issuer()}/api/v1/edits` });
export type ResourceName = keyof ReturnType<typeof resources>;

/** Where a resource's RFC 9728 metadata lives: the well-known prefix inserted before its path. */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}/.well-known/oauth-protected-resource${url.pathname}`;
}

/**
 * The resource a client named, as one of ours, or undefined. Accepts a trailing slash and an
 * upper-case scheme or host (clients differ there); path case must match.
 */
export function canonicalResource(requested: string): string | undefined {
  let url: URL;
  try {
    url = new URL(requested);
  } catch {
    return undefined;
  }
  if (url.search || url.hash || url.username || url.password) return undefined;
  const normalised = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  return Object.values(resources()).find((resource) => resource === normalised);
}

/** The `WWW-Authenticate` challenge of a protected resource's 401 (RFC 9728 §5.1). */
export function resourceChallenge(resource: string, extra = ''): string {
  return `Bearer resource_metadata="${protectedResourceMetadataUrl(resource)}", scope="${RESOURCE_SCOPES.join(' ')}"${extra}`;
}

/**
 * Access tokens live 15 minutes (OAUTH_ACCESS_TOKEN_SECONDS may shorten it, for tests that watch
 * clients refresh); codes 60 seconds; consent requests 10 minutes (docs/oauth.md, 'Grants
 * and tokens').
 */
export const ACCESS_TOKEN_MAX_SECONDS = 15 * 60;
export const accessTokenSeconds = () =>
  Math.min(
    Number(optionalEnv('OAUTH_ACCESS_TOKEN_SECONDS') ?? ACCESS_TOKEN_MAX_SECONDS),
    ACCESS_TOKEN_MAX_SECONDS,
  );
export const CODE_SECONDS = 60;
export const CONSENT_REQUEST_SECONDS = 10 * 60;
/** A refresh token unused this long expires (sliding), and so does its grant. */
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 60 * 60;
/** However often it is refreshed, a grant ends this long after the consent that started it. */
export const GRANT_MAX_SECONDS = 90 * 24 * 60 * 60;
/** How long a rotated refresh token stays usable, so that two concurrent refreshes both succeed. */
export const REFRESH_GRACE_SECONDS = 30;
