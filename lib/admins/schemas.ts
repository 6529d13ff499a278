import { fieldTypes } from '#lib/records/fields.ts';
import * as z from '#lib/validation/zod.ts';

export const PlatformAdminInviteBody = z.meta(
  z.strictObject({
    email: fieldTypes.email(),
    phone: z.optional(z.nullable(fieldTypes.phone())),
  }),
  { id: 'PlatformAdminInviteBody' },
);

export const PlatformAdminUpdateBody = z.meta(
  z.strictObject({
    first_name: fieldTypes.shortText(100),
    last_name: fieldTypes.shortText(100),
    email: fieldTypes.email(),
    phone: z.optional(z.nullable(fieldTypes.phone())),
  }),
  { id: 'PlatformAdminUpdateBody' },
);

/** Entry ids: UUIDs for admins made by the CLI, 43-character random strings for invites. */
const EntryId = z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'an entry id'));

export const EntryPathParams = z.strictObject({ entry_id: EntryId });
export const InvitePathParams = z.strictObject({ invite_id: EntryId });

export const PlatformAdminUserData = z.meta(
  z.object({
    id: z.string(),
    kind: z.enum(['admin', 'invite']),
    status: z.enum(['active', 'pending', 'expired']),
    email: z.string(),
    first_name: z.nullable(z.string()),
    last_name: z.nullable(z.string()),
    phone: z.nullable(z.string()),
    invited_by: z.nullable(z.string()),
    invited_at: z.nullable(z.iso.datetime()),
    accepted_at: z.nullable(z.iso.datetime()),
    expires_at: z.nullable(z.iso.datetime()),
  }),
  { id: 'PlatformAdminUserData' },
);
export type PlatformAdminEntry = z.output<typeof PlatformAdminUserData>;
