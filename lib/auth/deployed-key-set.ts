import { PublicKeySet, publicMembers } from '#lib/auth/public-key-set.ts';
import { fetchKeySet } from '#lib/auth/remote-key-set.ts';
import * as z from '#lib/validation/zod.ts';

/** No key set: the console functions fetch theirs on first use (SSM values cannot be empty). */
export const NO_KEY_SET = '{"keys":[]}';

/**
 * The most JWT_KEY_SET may hold. Lambda allows 4 KB of environment variables per function, names
 * and values together, and the console functions carry other settings too; a custom resource's
 * whole answer to CloudFormation must fit in 4,096 bytes as well. A user pool's two RSA keys take
 * about 1 KB.
 */
export const MAX_KEY_SET_CHARS = 2_048;

export interface DeployedKeySet {
  /** The set as JSON, or NO_KEY_SET. */
  keySet: string;
  /** Why NO_KEY_SET was given, when it was. */
  missing?: string;
}

/**
 * The issuer's public key set as the deployment gives it to the console functions: fetched once,
 * trimmed to the members verification needs, as compact JSON. A failed fetch, an answer that is
 * not a key set, or one too large for the environment gives NO_KEY_SET with the reason: the
 * functions then fetch the set themselves, as they would without one.
 */
export async function deployedKeySet(url: URL, timeoutMs: number): Promise<DeployedKeySet> {
  let fetched: unknown;
  try {
    fetched = await fetchKeySet(url, timeoutMs);
  } catch (error) {
    return { keySet: NO_KEY_SET, missing: `fetching ${url.href} failed: ${(error as Error).message}` };
  }
  const parsed = z.safeParse(PublicKeySet, fetched);
  if (!parsed.success) return { keySet: NO_KEY_SET, missing: `${url.href} did not answer a key set` };
  const keySet = JSON.stringify(publicMembers(parsed.data));
  if (keySet.length > MAX_KEY_SET_CHARS) {
    return {
      keySet: NO_KEY_SET,
      missing: `the key set is ${keySet.length} characters, over the ${MAX_KEY_SET_CHARS} the environment can spare`,
    };
  }
  return { keySet };
}
