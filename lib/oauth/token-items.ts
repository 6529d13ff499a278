import { storedItem } from '#lib/db/stored-item.ts';
import { CLIENT_SOURCES, type ClientSource } from '#lib/oauth/client-source.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * What the token endpoint reads back: an authorization code as the consent approval stored it, and
 * a refresh token as the endpoint stored it (under the SHA-256 of the token), each through the
 * stored-item boundary. A code names the grant it starts and what its exchange must match (client,
 * redirect URI, PKCE challenge).
 *
 * `account_issuer` and `account_subject` name the console account that approved (the `iss` and
 * `sub` its user id is made from, lib/auth/user-id.ts), so that a refresh can ask the user pool
 * whether that account is still active (lib/auth/account-status.ts). Codes and grants approved
 * before approvals recorded them have neither, and their refreshes ask nothing.
 */
export interface CodeItem {
  grant_id: string;
  client_id: string;
  client_name: string;
  client_source: ClientSource;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  scopes: string[];
  user_id: string;
  account_issuer?: string;
  account_subject?: string;
  expires_at: string;
  used_at?: string;
}

/** What a refresh token carries besides its grant: enough to issue tokens without reading the grant. */
export interface RefreshItem {
  grant_id: string;
  generation: number;
  client_id: string;
  user_id: string;
  /** The approving account's `sub`, asked after before each refresh; absent on older grants. */
  account_subject?: string;
  resource: string;
  scopes: string[];
  expires_at_epoch: number;
}

export const authorizationCodeItem = storedItem<CodeItem>('OAuth authorization code', () =>
  z.object({
    grant_id: z.string(),
    client_id: z.string(),
    client_name: z.string(),
    client_source: z.enum(CLIENT_SOURCES),
    redirect_uri: z.string(),
    code_challenge: z.string(),
    resource: z.string(),
    scopes: z.array(z.string()),
    user_id: z.string(),
    account_issuer: z.optional(z.string()),
    account_subject: z.optional(z.string()),
    expires_at: z.string(),
    used_at: z.optional(z.string()),
  }),
);

export const refreshTokenItem = storedItem<RefreshItem>('OAuth refresh token', () =>
  z.object({
    grant_id: z.string(),
    generation: z.number(),
    client_id: z.string(),
    user_id: z.string(),
    account_subject: z.optional(z.string()),
    resource: z.string(),
    scopes: z.array(z.string()),
    expires_at_epoch: z.number(),
  }),
);
