import * as z from '#lib/validation/zod.ts';

/**
 * A JSON Web Key Set as given to the console functions (JWT_KEY_SET): keys that name at least
 * their type; jose checks the rest when it imports one.
 */
export const PublicKeySet = z.object({
  keys: z.array(z.looseObject({ kty: z.string(), kid: z.optional(z.string()) })),
});
export type PublicKeySet = z.infer<typeof PublicKeySet>;

/**
 * What verifying a signature needs of a public key: its type, id, algorithm and use, an RSA key's
 * modulus and exponent, an EC key's curve and point. Anything else (certificate chains, a private
 * member a careless issuer published) is dropped, so the set stays small and public.
 */
const PUBLIC_MEMBERS = ['kty', 'kid', 'alg', 'use', 'n', 'e', 'crv', 'x', 'y'] as const;

/** The set with only the public members of each key (string values only). */
export function publicMembers(set: PublicKeySet): PublicKeySet {
  return {
    keys: set.keys.map((key) => {
      const kept: Record<string, string> = {};
      for (const member of PUBLIC_MEMBERS) {
        const value = key[member];
        if (typeof value === 'string') kept[member] = value;
      }
      return kept as PublicKeySet['keys'][number];
    }),
  };
}
