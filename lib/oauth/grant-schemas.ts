import { CLIENT_SOURCES } from '#lib/oauth/client-source.ts';
import * as z from '#lib/validation/zod.ts';

/** Schemas of a person's connected assistants (their OAuth grants), as the console lists and ends them. */

/** A page of a person's grants holds at most this many (and this many unless `limit` says fewer). */
export const MAX_LISTED_GRANTS = 100;

export const GrantListQuery = z.strictObject({
  cursor: z.meta(z.optional(z.string().check(z.maxLength(1000))), {
    description: "next_cursor of the previous page (valid only for the same person's list)",
  }),
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(MAX_LISTED_GRANTS)), MAX_LISTED_GRANTS),
});

export const GrantPathParams = z.strictObject({
  grant_id: z.meta(z.uuid(), { description: 'The grant, as `GET /api/v1/oauth/grants` lists it' }),
});

export const GrantSummary = z.meta(
  z.object({
    grant_id: z.meta(z.uuid(), {
      description: 'Ends this connection: `DELETE /api/v1/oauth/grants/{grant_id}`',
    }),
    client_id: z.meta(z.string(), {
      description: 'The client: a registered id, or the https URL of its client metadata document',
    }),
    client_name: z.meta(z.string(), { description: 'The name the client gave when the person approved it' }),
    client_source: z.meta(z.enum(CLIENT_SOURCES), {
      description:
        'Who vouches for the client: an operator (`preregistered`), its own https URL (`metadata_document`), or nobody (`dynamic`: registered by anyone)',
    }),
    scopes: z.meta(z.array(z.string()), { description: 'What the person allowed, e.g. `edits:read`' }),
    resource: z.meta(z.string(), {
      description: 'The one API its access tokens are for: `<issuer>/mcp` or `<issuer>/api/v1/edits`',
    }),
    created_at: z.meta(z.iso.datetime(), { description: 'When the person approved it' }),
    last_used_at: z.meta(z.iso.datetime(), { description: 'When the client last obtained tokens with it' }),
  }),
  { id: 'OAuthGrant', description: 'A connected assistant: what one approval gave one client' },
);

export const GrantList = z.meta(
  z.object({
    grants: z.meta(z.array(GrantSummary).check(z.maxLength(MAX_LISTED_GRANTS)), {
      description:
        'The live ones (neither ended nor expired), newest first: `limit` of them, fewer only on the last page',
    }),
    next_cursor: z.meta(z.nullable(z.string()), {
      description: 'Send as `cursor` for the next, older page; null when no further live grant exists',
    }),
  }),
  { id: 'OAuthGrantList' },
);
