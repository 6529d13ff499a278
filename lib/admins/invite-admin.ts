import { InviteMailNotSent, sendInviteMail } from '#lib/admins/invite-mail.ts';
import { claimInviteMail, releaseInviteMail } from '#lib/admins/invite-mail-claim.ts';
import type { InviteeRead } from '#lib/admins/platform-admin-reads.ts';
import { storeInvite } from '#lib/admins/platform-admin-store.ts';
import type { PlatformAdminEntry } from '#lib/admins/schemas.ts';
import { ServiceUnavailableError } from '#lib/http/errors.ts';
import type { IdempotentCreate } from '#lib/http/idempotency/keyed-create.ts';
import { logger } from '#lib/observability/logger.ts';

/**
 * Invite someone to become a platform admin: store (or refresh) the invite first, then send the
 * e-mail. If SES fails the invite stays and the call answers 503; the same call later re-sends.
 *
 * With an Idempotency-Key the e-mail goes out at most once per key: the send is claimed on the
 * invite first (`pending` → `started`), so a re-run of a request whose answer was lost sends it
 * only if no send had started. A send that surely failed (SES refused it or was unreachable)
 * gives the claim back, so a retry with the same key sends it; one that may have gone out (a
 * timeout) keeps it, and a retry with the key answers 201 without a second e-mail.
 */
export async function inviteAdmin(
  input: { email: string; phone?: string | null | undefined; invitedBy: string },
  idempotentCreate?: IdempotentCreate,
  /** The invitee's entry as read beside the inviter's access check (readInviteeEntry). */
  firstRead?: InviteeRead,
): Promise<PlatformAdminEntry> {
  const invite = await storeInvite(input, idempotentCreate, firstRead);
  if (!idempotentCreate) {
    await sendInviteMail(invite);
    return invite;
  }
  if (!(await claimInviteMail(invite.email, idempotentCreate))) {
    logger.info('Invite e-mail already started for this Idempotency-Key; not sent again', {
      inviteId: invite.id,
    });
    return invite;
  }
  try {
    await sendInviteMail(invite);
  } catch (error) {
    if (error instanceof InviteMailNotSent && error.certain) {
      // Best effort: if this fails too, a retry with the key will not send (as after a timeout).
      await releaseInviteMail(invite.email, idempotentCreate).catch((releaseError: unknown) =>
        logger.warn('Invite e-mail claim not given back', { error: releaseError as Error }),
      );
    } else if (error instanceof InviteMailNotSent) {
      throw new ServiceUnavailableError(
        'The invite is saved but its e-mail may not have been sent; repeat the invite without this ' +
          'Idempotency-Key (or with a new one) to send it again',
        'mail',
      );
    }
    throw error;
  }
  return invite;
}
