import { v5 as uuidv5 } from 'uuid';

/** Fixed namespace for deriving user ids; changing it would orphan every membership. */
const USER_ID_NAMESPACE = '6f1f7a52-3c0e-4d55-9d0a-2b8f3f6c9e11';

/**
 * Our user id for an identity: a UUID v5 of issuer and subject. Deterministic, so an
 * authorisation check needs no lookup to learn who the caller is, and the seed can grant roles to
 * people before they first sign in.
 */
export function userIdFor(issuer: string, subject: string): string {
  return uuidv5(`${issuer}#${subject}`, USER_ID_NAMESPACE);
}
