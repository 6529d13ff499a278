import type { PreSignUpTriggerHandler } from 'aws-lambda';
import { assertInvitedToSignUp } from '#lib/auth/sign-up-admission.ts';
import { optionalEnv } from '#lib/config/env.ts';

const bootstrapAdminEmail = optionalEnv('BOOTSTRAP_ADMIN_EMAIL');

/**
 * Cognito Pre Sign-up trigger: only invited addresses get an account. Cognito shows a refusal's
 * message to the person ("PreSignUp failed with error …"). It never confirms the user or marks the
 * address verified: Cognito mails its code, and only that code proves the address. Not an HTTP route.
 */
export const handler: PreSignUpTriggerHandler = async (event) => {
  await assertInvitedToSignUp(event.request.userAttributes.email, bootstrapAdminEmail);
  event.response = { autoConfirmUser: false, autoVerifyEmail: false, autoVerifyPhone: false };
  return event;
};
