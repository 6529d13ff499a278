import { errors } from 'jose';
import { JwksUnreachableError } from '#lib/auth/remote-key-set.ts';

/**
 * Whether a JWT verification failed because the key set could not be fetched (a timeout or a
 * network failure), which is a 503 for the caller to retry, not a bad token.
 */
export function isJwksUnreachable(error: unknown): boolean {
  return (
    error instanceof errors.JWKSTimeout ||
    error instanceof JwksUnreachableError ||
    (error instanceof TypeError && error.message.includes('fetch'))
  );
}
