/**
 * The signed-in person of this tab: the access token from sign-in, kept in sessionStorage (gone
 * when the tab closes), and the claims the pages show. The token is read here without being
 * checked; the API checks it on every call.
 */
export const TOKEN_KEY = 'bps-console-token';

export interface Session {
  token: string;
  /** Who the header names: the e-mail claim (our Cognito trigger adds it), else the user name. */
  name: string;
  expiresAt: Date | null;
}

export function currentSession(): Session | null {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) return null;
  const claims = decodeClaims(token);
  const expired = typeof claims?.exp === 'number' && claims.exp * 1000 <= Date.now();
  if (!claims || expired) {
    sessionStorage.removeItem(TOKEN_KEY);
    return null;
  }
  const name = [claims.email, claims.username, claims.sub].find((value) => typeof value === 'string');
  return {
    token,
    name: String(name ?? 'unknown user'),
    expiresAt: typeof claims.exp === 'number' ? new Date(claims.exp * 1000) : null,
  };
}

export const storeToken = (token: string) => sessionStorage.setItem(TOKEN_KEY, token);
export const forgetToken = () => sessionStorage.removeItem(TOKEN_KEY);

/** A JWT's payload, or null when it is not one. */
function decodeClaims(token: string): Record<string, unknown> | null {
  try {
    const part = (token.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(part), (c) => c.charCodeAt(0));
    const claims: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return claims && typeof claims === 'object' ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
