/**
 * Who is calling. Each credential kind (docs/interface.md, 'Areas and their credentials') yields
 * one of these.
 */
export interface UserPrincipal {
  kind: 'user';
  /** Our stable id for the person: a UUID derived from (issuer, subject), see user-id.ts. */
  userId: string;
  issuer: string;
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
}

export type AgentScope = 'read' | 'write';

export interface AgentPrincipal {
  kind: 'agent';
  keyId: string;
  name: string;
  /** '*' = every business; otherwise the only businesses this key may touch. */
  businesses: '*' | string[];
  scopes: AgentScope[];
}

export interface InternalServicePrincipal {
  kind: 'internal-service';
}

/**
 * An assistant acting for a console user, with an access token of our OAuth server
 * (docs/oauth.md, 'Grants and tokens').
 */
export interface AssistantPrincipal {
  kind: 'assistant';
  /** The user the assistant acts for (the token's `sub`). */
  userId: string;
  clientId: string;
  scopes: string[];
  grantId: string;
}

/** Who may call the edits API: a console user, or an assistant acting for one. */
export type EditsPrincipal = UserPrincipal | AssistantPrincipal;

/** No credential: the OAuth server's public endpoints. */
export interface AnonymousPrincipal {
  kind: 'anonymous';
  sourceIp: string;
}

/**
 * 'console': a console JWT; 'edits': a console JWT or an assistant's access token for the edits
 * resource; 'mcp': an assistant's access token for the tool server; 'agent': an agent key;
 * 'internal': the internal API key; 'none': public.
 */
export type AuthKind = 'console' | 'edits' | 'mcp' | 'agent' | 'internal' | 'none';

/** What an authenticator may look at besides the headers. */
export interface AuthRequest {
  /** The route's required OAuth scope, for assistant tokens. */
  oauthScope?: string | undefined;
  sourceIp: string;
  /**
   * The request's own object, also given to the operation's early read (lib/http/early-read.ts):
   * a credential looked up through its reader (`readerFor(shared)`, lib/db/item-reader.ts) goes
   * out in the same call as the read. Absent when the route has no early read.
   */
  shared?: object | undefined;
}

/**
 * Turns request headers into a principal or throws UnauthorizedError. `prepare` runs when a
 * handler module loads, so missing configuration fails the cold start rather than a request.
 */
export interface Authenticator<P> {
  kind: AuthKind;
  prepare(): void;
  authenticate(headers: Record<string, string | undefined>, request?: AuthRequest): Promise<P>;
}

/** The value of `authorization: Bearer <token>`, or undefined when the header is absent or not Bearer. */
export function bearerToken(headers: Record<string, string | undefined>): string | undefined {
  const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(headers.authorization ?? '');
  return match?.[1];
}
