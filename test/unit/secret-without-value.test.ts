import { ResourceNotFoundException } from '@aws-sdk/client-secrets-manager';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

/**
 * The secrets the service or an operator writes are created without a value. No emulator of
 * Secrets Manager runs here, so AWS's answer for such a secret — ResourceNotFoundException for
 * its AWSCURRENT version — is injected with an SDK middleware on the client the service uses.
 */
const MIDDLEWARE = 'answeredAsAwsWouldForASecretWithoutValue';
let answer: () => unknown;

beforeAll(async () => {
  process.env.AWS_REGION ??= 'eu-west-1';
  const { secretsManager } = await import('#lib/config/secrets.ts');
  secretsManager().middlewareStack.add(
    () => async () => {
      const output = answer();
      if (output instanceof Error) throw output;
      return { output: { $metadata: {}, ...(output as object) }, response: {} };
    },
    { step: 'initialize', name: MIDDLEWARE },
  );
});
afterEach(() => vi.unstubAllEnvs());

const noValueYet = () =>
  new ResourceNotFoundException({
    message: "Secrets Manager can't find the specified secret value for staging label: AWSCURRENT",
    $metadata: { httpStatusCode: 400 },
  });

describe('a secret created without a value', () => {
  it('reads as no value, not as an error', async () => {
    const { secretString } = await import('#lib/config/secrets.ts');
    answer = noValueYet;
    expect(
      await secretString('arn:aws:secretsmanager:eu-west-1:1:secret:empty-1', { maxAge: 1 }),
    ).toBeUndefined();
    answer = () => ({ SecretString: '{"current":"k"}' });
    expect(await secretString('arn:aws:secretsmanager:eu-west-1:1:secret:full-1', { maxAge: 1 })).toBe(
      '{"current":"k"}',
    );
  });

  it('still fails on any other error of Secrets Manager', async () => {
    const { secretString } = await import('#lib/config/secrets.ts');
    answer = () => Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    await expect(
      secretString('arn:aws:secretsmanager:eu-west-1:1:secret:busy-1', { maxAge: 1 }),
    ).rejects.toThrow(/Rate exceeded/);
  });

  it('lets no internal API key in until an operator writes them', async () => {
    vi.stubEnv('INTERNAL_API_KEYS_SECRET_ID', 'arn:aws:secretsmanager:eu-west-1:1:secret:internal-1');
    vi.stubEnv('INTERNAL_API_KEYS', '');
    const { internalAuth } = await import('#lib/auth/internal-api-key.ts');
    internalAuth.prepare();
    answer = noValueYet;
    await expect(internalAuth.authenticate({ 'x-internal-api-key': 'ik_anything' })).rejects.toMatchObject({
      statusCode: 401,
      message: 'The internal API key is not valid',
    });
  });
});
