/** Who is calling. Each credential kind of DESIGN §3 yields one of these. */
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

export type AuthKind = 'console' | 'agent' | 'internal';

/**
 * Turns request headers into a principal or throws UnauthorizedError. `prepare` runs when a
 * handler module loads, so missing configuration fails the cold start rather than a request.
 */
export interface Authenticator<P> {
  kind: AuthKind;
  prepare(): void;
  authenticate(headers: Record<string, string | undefined>): Promise<P>;
}

/** The value of `authorization: Bearer <token>`, or undefined when the header is absent or not Bearer. */
export function bearerToken(headers: Record<string, string | undefined>): string | undefined {
  const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(headers.authorization ?? '');
  return match?.[1];
}
