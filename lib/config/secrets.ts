import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { sdkClientOptions } from '#lib/config/timeouts.ts';

/**
 * One Secrets Manager client per container, with the timeouts of lib/config/timeouts.ts (the
 * Powertools default provider's client has none), and the cached Powertools provider over it.
 */
export const secretsManager = new SecretsManagerClient(sdkClientOptions('secretsManager'));
export const secrets = new SecretsProvider({ awsSdkV3Client: secretsManager });
