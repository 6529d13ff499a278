import { createHash } from 'node:crypto';

/** Codes and refresh tokens are stored only as their SHA-256: the table never holds one usable. */
export const hashSecret = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');
