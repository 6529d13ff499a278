import type { PostConfirmationTriggerHandler } from 'aws-lambda';
import { userIdFor } from '#lib/auth/user-id.ts';
import { claimPendingMemberships } from '#lib/businesses/pending-members.ts';
import { logger } from '#lib/observability/logger.ts';

/**
 * Cognito Post Confirmation trigger: the person proved their address with Cognito's code, so the
 * memberships it was invited to become theirs, under the user id the console token will carry
 * (issuer = the user pool's URL). An address confirmed without proof (an operator's
 * AdminConfirmSignUp leaves `email_verified` false) claims nothing. Not an HTTP route.
 */
export const handler: PostConfirmationTriggerHandler = async (event) => {
  const { email, email_verified: emailVerified, sub } = event.request.userAttributes;
  if (email && sub && emailVerified === 'true') {
    const issuer = `https://cognito-idp.${event.region}.amazonaws.com/${event.userPoolId}`;
    const claimed = await claimPendingMemberships(email, userIdFor(issuer, sub));
    logger.info('pending memberships claimed', { businesses: claimed.map((pending) => pending.business_id) });
  }
  return event;
};
