import * as z from '#lib/validation/zod.ts';

/**
 * The console pages' runtime configuration: `config.json` beside `index.html`, written per
 * deployment (by the harness locally, by CDK in AWS), so one build serves every deployment. The
 * pages validate it with this schema before they do anything.
 */

/** An absolute http(s) URL without a fragment (`new URL` must accept it). */
const httpUrl = z.url({ protocol: /^https?$/, hostname: z.regexes.hostname });

export const ConsolePagesConfig = z.strictObject({
  /** The console API's base URL: requests go to `<apiUrl>/api/v1/…`. */
  apiUrl: httpUrl,
  /**
   * The one sign-in adapter: OAuth 2.0 authorization code with PKCE (S256) for a public client,
   * as Cognito managed login speaks it (`https://<domain>/oauth2/authorize`, `/oauth2/token`,
   * `/logout`); locally the dev issuer speaks the same. The redirect URI is `<site>/auth/callback`
   * and the sign-out URL `<site>/`.
   */
  signIn: z.strictObject({
    authorizeUrl: httpUrl,
    tokenUrl: httpUrl,
    logoutUrl: z.optional(httpUrl),
    clientId: z.string().check(z.minLength(1), z.maxLength(256)),
    scopes: z.array(z.string().check(z.regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/))).check(z.minLength(1)),
  }),
});
export type ConsolePagesConfig = z.infer<typeof ConsolePagesConfig>;

/** The file name the pages read their configuration from, beside index.html. */
export const CONFIG_FILE = 'config.json';
