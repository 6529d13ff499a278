import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { sdkClientOptions } from '#lib/config/timeouts.ts';
import { once } from '#lib/validation/lazy.ts';

/**
 * One Secrets Manager client per container, with the timeouts of lib/config/timeouts.ts (the
 * Powertools default provider's client has none), and the cached Powertools provider over it.
 * Both are made on first use: a paged list reads the cursor keys only when a cursor is read or
 * written, so a first call without one does not construct the client.
 */
export const secretsManager = once(() => new SecretsManagerClient(sdkClientOptions('secretsManager')));
export const secrets = once(() => new SecretsProvider({ awsSdkV3Client: secretsManager() }));

/**
 * A secret's current value as a string, or undefined while it has none: the secrets the service
 * or an operator writes are created without a value (infra/stateful-stack.ts), and Secrets
 * Manager answers ResourceNotFoundException for the AWSCURRENT version of such a secret.
 */
export async function secretString(
  secretId: string,
  options: { maxAge: number; forceFetch?: boolean },
): Promise<string | undefined> {
  try {
    const value = await secrets().get(secretId, options);
    return typeof value === 'string' ? value : undefined;
  } catch (error) {
    if ((error as { cause?: Error }).cause?.name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}
