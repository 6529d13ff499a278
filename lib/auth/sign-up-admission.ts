import { findPlatformAdminEntry } from '#lib/admins/platform-admin-reads.ts';
import { hasPendingMembership } from '#lib/businesses/pending-members.ts';
import { normaliseEmail } from '#lib/db/keys.ts';
import { emailAddress } from '#lib/validation/formats.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * Who may create an account: sign-up is by invitation only. An address is admitted when someone
 * with the right to invite it did so (a pending, unexpired platform-admin invite, or a pending
 * membership of a business), when it is a platform admin already (made with the `admin` CLI,
 * whose account comes after), or when it is the stage's bootstrap admin address. Admission only
 * lets the account be created: the address is verified by the code Cognito mails to it, never
 * here, and nothing is granted until it is (lib/businesses/pending-members.ts).
 */
export class SignUpRefused extends Error {
  override name = 'SignUpRefused';
}

/** Throws SignUpRefused, whose message Cognito shows the person, unless `email` may sign up. */
export async function assertInvitedToSignUp(
  email: string | undefined,
  bootstrapAdminEmail: string | undefined,
): Promise<void> {
  const address = normaliseEmail(email ?? '');
  if (!z.safeParse(emailAddress(), address).success) {
    throw new SignUpRefused('Sign-up needs a valid e-mail address: use the one your invitation was sent to');
  }
  if (bootstrapAdminEmail && address === normaliseEmail(bootstrapAdminEmail)) return;
  // Both reads go out together: one round trip.
  const [entry, pendingMembership] = await Promise.all([
    findPlatformAdminEntry(address),
    hasPendingMembership(address),
  ]);
  if (pendingMembership || entry?.status === 'active' || entry?.status === 'pending') return;
  throw new SignUpRefused(
    `Sign-up is by invitation only: ask the business owner or a platform admin to invite ${address}`,
  );
}
