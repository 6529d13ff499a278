import { beforeAll, describe, expect, it } from 'vitest';
import { type Json, synthesize } from '../support/cdk-app.ts';

/** Synthesizing the whole app takes ~10 s alone, more on a busy machine. */
const SYNTH_TIMEOUT = 180_000;

/** Secrets whose value the service (the signing keys) or an operator (the internal API keys) writes. */
const WRITTEN_OUTSIDE_CLOUDFORMATION = ['InternalApiKeys', 'OAuthSigningKey'];

describe('secrets in the templates', () => {
  let secrets: [string, Json][];

  beforeAll(() => {
    const app = synthesize();
    secrets = Object.entries(app.resources()).filter(
      ([, resource]) => resource.Type === 'AWS::SecretsManager::Secret',
    );
  }, SYNTH_TIMEOUT);

  it('holds no literal secret value anywhere', () => {
    expect(secrets.length).toBeGreaterThanOrEqual(3);
    for (const [id, secret] of secrets) expect(secret.Properties?.SecretString, id).toBeUndefined();
  });

  it('leaves the values the service or an operator writes to them: no generator a deploy could rerun', () => {
    for (const name of WRITTEN_OUTSIDE_CLOUDFORMATION) {
      const found = secrets.filter(([id]) => id.startsWith(name));
      expect(found, name).toHaveLength(1);
      const [[id, secret]] = found as [[string, Json]];
      expect(Object.keys(secret.Properties ?? {}).sort(), id).toEqual(['Description', 'Tags']);
    }
  });
});
