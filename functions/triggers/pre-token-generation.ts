import type { PreTokenGenerationV2TriggerHandler } from 'aws-lambda';
import { addEmailToAccessToken } from '#lib/auth/access-token-email.ts';

/** Cognito Pre Token Generation trigger (V2_0): e-mail claims in access tokens. Not an HTTP route. */
export const handler: PreTokenGenerationV2TriggerHandler = async (event) => addEmailToAccessToken(event);
