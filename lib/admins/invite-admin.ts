import { sendInviteMail } from '#lib/admins/invite-mail.ts';
import { storeInvite } from '#lib/admins/platform-admin-store.ts';
import type { PlatformAdminEntry } from '#lib/admins/schemas.ts';

/**
 * Invite someone to become a platform admin: store (or refresh) the invite first, then send the
 * e-mail. If SES fails the invite stays and the call answers 503; the same call later re-sends.
 */
export async function inviteAdmin(input: {
  email: string;
  phone?: string | null | undefined;
  invitedBy: string;
}): Promise<PlatformAdminEntry> {
  const invite = await storeInvite(input);
  await sendInviteMail(invite);
  return invite;
}
