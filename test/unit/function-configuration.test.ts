import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionConfigurations, localEnvironment } from '../../infra/local/function-configuration.ts';
import { localTemplates, synthInputsDigest } from '../../infra/local/iam/template-cache.ts';
import type { TemplateSet } from '../../infra/local/iam/template-resolver.ts';

/** One stack with one function of the local stage, its table and a secret, as a synth writes them. */
const templates: TemplateSet = new Map([
  [
    'BusinessPlatform-local-Routes-blog',
    {
      Resources: {
        TableCD117FA1: { Type: 'AWS::DynamoDB::Table', Properties: {} },
        KeysSecret1234ABCD: { Type: 'AWS::SecretsManager::Secret', Properties: { Name: 'internal-keys' } },
        PutFn12345678: {
          Type: 'AWS::Lambda::Function',
          Properties: {
            FunctionName: 'bp-local-putThing',
            Timeout: 12,
            MemorySize: 512,
            Environment: {
              Variables: {
                TABLE_NAME: { Ref: 'TableCD117FA1' },
                INTERNAL_API_KEYS_SECRET_ID: { Ref: 'KeysSecret1234ABCD' },
                JWT_KEY_SET: { 'Fn::GetAtt': ['KeySetCustomResource', 'Keys'] },
                BROKEN: { 'Fn::GetAtt': ['Nowhere', 'Arn'] },
                PLAIN: 'as is',
              },
            },
          },
        },
        // CDK's own handlers run only in AWS, at deployment.
        ProviderFn: { Type: 'AWS::Lambda::Function', Properties: { FunctionName: 'cdk-provider' } },
      },
    },
  ],
]);

describe("a function's configuration from its template", () => {
  it('takes timeout, memory and variables, resolved in the local account; reports what has no local value', () => {
    const configurations = functionConfigurations(templates);
    expect([...configurations.keys()]).toEqual(['putThing']);
    const configuration = configurations.get('putThing');
    expect(configuration).toMatchObject({ timeoutSeconds: 12, memoryMb: 512 });
    expect(configuration?.environment).toMatchObject({
      TABLE_NAME: 'business-platform-local',
      PLAIN: 'as is',
    });
    expect(configuration?.unresolved).toEqual([expect.stringMatching(/^BROKEN: .*Nowhere/)]);
  });

  it('runs locally with the stand-ins for what has no emulator, the platform’s variables, and nothing else', () => {
    const configuration = functionConfigurations(templates).get('putThing');
    if (!configuration) throw new Error('no configuration');
    const environment = localEnvironment(configuration, {
      INTERNAL_API_KEYS: 'ik_a,ik_b',
      JWT_KEY_SET: '{"keys":[]}',
      JWKS_URL: 'http://127.0.0.1:3000/jwks',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      AWS_REGION: 'us-east-1',
      CURSOR_SECRET: 'not this function’s',
      SES_SENDER: 'not this function’s either',
    });
    expect(environment).toEqual({
      TABLE_NAME: 'business-platform-local',
      PLAIN: 'as is',
      INTERNAL_API_KEYS: 'ik_a,ik_b',
      JWT_KEY_SET: '{"keys":[]}',
      JWKS_URL: 'http://127.0.0.1:3000/jwks',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      AWS_REGION: 'us-east-1',
    });
  });
});

describe('the synth cache', () => {
  it('synthesizes on a cold cache, then reads the same templates from it', { timeout: 120_000 }, async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'bps-synth-cache-'));
    try {
      const cold = await localTemplates(cacheDir);
      const warm = await localTemplates(cacheDir);
      expect([cold.cached, warm.cached]).toEqual([false, true]);
      expect([...warm.templates.keys()]).toEqual([...cold.templates.keys()]);
      expect(readdirSync(cacheDir)).toEqual([`templates-${synthInputsDigest()}.json`]);
      expect(functionConfigurations(warm.templates).get('putBlogAutoSchedule')).toBeDefined();
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});
