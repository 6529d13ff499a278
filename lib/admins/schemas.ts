import { fieldTypes } from '#lib/records/fields.ts';
import * as z from '#lib/validation/zod.ts';

export const PlatformAdminInviteBody = z
  .strictObject({
    email: fieldTypes.email(),
    phone: fieldTypes.phone().nullable().optional(),
  })
  .meta({ id: 'PlatformAdminInviteBody' });

export const PlatformAdminUpdateBody = z
  .strictObject({
    first_name: fieldTypes.shortText(100),
    last_name: fieldTypes.shortText(100),
    email: fieldTypes.email(),
    phone: fieldTypes.phone().nullable().optional(),
  })
  .meta({ id: 'PlatformAdminUpdateBody' });

/** Entry ids: UUIDs for admins made by the CLI, 43-character random strings for invites. */
const EntryId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'an entry id');

export const EntryPathParams = z.strictObject({ entry_id: EntryId });
export const InvitePathParams = z.strictObject({ invite_id: EntryId });

export const PlatformAdminUserData = z
  .object({
    id: z.string(),
    kind: z.enum(['admin', 'invite']),
    status: z.enum(['active', 'pending', 'expired']),
    email: z.string(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    phone: z.string().nullable(),
    invited_by: z.string().nullable(),
    invited_at: z.iso.datetime().nullable(),
    accepted_at: z.iso.datetime().nullable(),
    expires_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'PlatformAdminUserData' });
export type PlatformAdminEntry = z.output<typeof PlatformAdminUserData>;
