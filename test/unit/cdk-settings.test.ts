import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readServiceContext } from '../../infra/service-context.ts';
import { readStageSettings, STAGE_SETTING_KEYS } from '../../infra/stage-settings.ts';
import { type Json, newApp, synthesize } from '../support/cdk-app.ts';

/** Synthesizing the whole app takes ~10 s alone, more on a busy machine. */
const SYNTH_TIMEOUT = 180_000;

describe('stage settings files', () => {
  let dir: string;
  const write = (stage: string, content: string) => writeFileSync(join(dir, `${stage}.json`), content);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stages-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads every known setting, as strings like CDK context', () => {
    write('prod', JSON.stringify({ sesSender: 'a@b.test', retainData: false, throttleRate: 20 }));
    expect(readStageSettings('prod', dir)).toEqual({
      sesSender: 'a@b.test',
      retainData: 'false',
      throttleRate: '20',
    });
  });

  it('has no settings for a stage without a file', () => {
    expect(readStageSettings('nothing-here', dir)).toEqual({});
  });

  it('refuses unknown keys, naming them and the known ones', () => {
    write('typo', JSON.stringify({ alarmEmial: 'x@y.test', sesSender: 'a@b.test' }));
    expect(() => readStageSettings('typo', dir)).toThrow(/unknown setting alarmEmial \(known: sesSender, /);
  });

  it('refuses values that are not strings, numbers or booleans, and broken JSON', () => {
    write('nested', JSON.stringify({ consoleOrigins: ['https://a.test'] }));
    expect(() => readStageSettings('nested', dir)).toThrow(/consoleOrigins: /);
    write('broken', '{"sesSender": ');
    expect(() => readStageSettings('broken', dir)).toThrow(/not valid JSON/);
  });

  it("takes the dev stage's file, and lets context on the command line win", () => {
    expect(readServiceContext(newApp()).consoleUrl).toBe('https://console.example.com');
    const context = readServiceContext(
      newApp({ consoleUrl: 'https://console.elsewhere.test', retainData: 'false' }),
    );
    expect(context.consoleUrl).toBe('https://console.elsewhere.test');
    expect(context.retainData).toBe(false);
  });

  it('refuses a stage name that cannot name stacks and parameters', () => {
    expect(() => readServiceContext(newApp({ stage: '../prod' }))).toThrow(/stage "..\/prod" must start/);
  });

  it('knows every setting the deploy guide documents', () => {
    const guide = readFileSync(join(import.meta.dirname, '../../docs/deploy.md'), 'utf8');
    for (const key of STAGE_SETTING_KEYS) expect(guide, key).toContain(`\`${key}\``);
  });
});

describe('tags and Cognito settings', () => {
  let app: ReturnType<typeof synthesize>;

  beforeAll(() => {
    app = synthesize();
  }, SYNTH_TIMEOUT);

  it('tags every stack with the service and the stage', () => {
    for (const stack of app.stacks) {
      expect(stack.tags.tagValues(), stack.stackName).toMatchObject({
        service: 'business-platform',
        stage: 'dev',
      });
    }
  });

  it('puts the user pool on the Essentials tier with Cognito sending its own mail by default', () => {
    const [pool] = Object.values(app.resources()).filter(
      (resource) => resource.Type === 'AWS::Cognito::UserPool',
    );
    expect(pool?.Properties?.UserPoolTier).toBe('ESSENTIALS');
    expect(pool?.Properties?.UserPoolAddOns).toBeUndefined();
    expect(pool?.Properties?.EmailConfiguration).toEqual({ EmailSendingAccount: 'COGNITO_DEFAULT' });
  });

  it(
    'takes Plus with threat protection, and mail from the service identity, when the settings ask',
    () => {
      const other = synthesize({
        cognitoTier: 'plus',
        cognitoEmail: 'ses',
        sesSender: 'no-reply@mail.customer.test',
        sesIdentity: 'mail.customer.test',
      });
      const [pool] = Object.values(other.resources()).filter(
        (resource) => resource.Type === 'AWS::Cognito::UserPool',
      ) as Json[];
      expect(pool.Properties.UserPoolTier).toBe('PLUS');
      expect(pool.Properties.UserPoolAddOns).toEqual({ AdvancedSecurityMode: 'ENFORCED' });
      expect(pool.Properties.EmailConfiguration).toMatchObject({
        EmailSendingAccount: 'DEVELOPER',
        From: 'no-reply@mail.customer.test',
        ConfigurationSet: 'business-platform-dev',
      });
      expect(JSON.stringify(pool.Properties.EmailConfiguration.SourceArn)).toContain(
        ':identity/mail.customer.test',
      );
    },
    SYNTH_TIMEOUT,
  );
});
