import type { PreTokenGenerationV2TriggerEvent } from 'aws-lambda';

/**
 * Cognito puts no e-mail in access tokens, yet platform admins and invitees are recognised by a
 * verified e-mail (docs/accounts.md). The Pre Token Generation trigger (event V2_0,
 * access-token customisation) copies the user's `email` and `email_verified` attributes into the
 * access token; lib/auth/console-token.ts reads them from there. Cognito hands attributes over as
 * strings, and the claims keep that form (`email_verified: "true"`), as the console-token check
 * accepts.
 */
export function accessTokenEmailClaims(userAttributes: Record<string, string>): Record<string, string> {
  const email = userAttributes.email?.trim();
  if (!email) return {};
  return {
    email: email.toLowerCase(),
    email_verified: userAttributes.email_verified === 'true' ? 'true' : 'false',
  };
}

/** The trigger's answer: the e-mail claims added to the access token, the ID token left alone. */
export function addEmailToAccessToken(
  event: PreTokenGenerationV2TriggerEvent,
): PreTokenGenerationV2TriggerEvent {
  event.response = {
    claimsAndScopeOverrideDetails: {
      accessTokenGeneration: { claimsToAddOrOverride: accessTokenEmailClaims(event.request.userAttributes) },
    },
  };
  return event;
}
