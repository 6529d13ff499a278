import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PreTokenGenerationV2TriggerEvent, PreTokenGenerationV2TriggerHandler } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { buildBundle } from '../../bench/cold-start.ts';
import { handler } from '../../functions/triggers/pre-token-generation.ts';

/** A V2_0 event as Cognito sends it when a user signs in (attributes are strings). */
function signInEvent(userAttributes: Record<string, string>): PreTokenGenerationV2TriggerEvent {
  return {
    version: '2',
    triggerSource: 'TokenGeneration_Authentication',
    region: 'eu-west-1',
    userPoolId: 'eu-west-1_Example',
    userName: 'b1e2c3d4-0000-4000-8000-000000000001',
    callerContext: { awsSdkVersion: 'aws-sdk-unknown-unknown', clientId: 'console-client-id' },
    request: {
      userAttributes: { sub: 'b1e2c3d4-0000-4000-8000-000000000001', ...userAttributes },
      groupConfiguration: { groupsToOverride: [], iamRolesToOverride: [] },
      scopes: ['openid', 'email', 'profile'],
    },
    response: { claimsAndScopeOverrideDetails: {} },
  } as PreTokenGenerationV2TriggerEvent;
}

const invoke = (event: PreTokenGenerationV2TriggerEvent) =>
  handler(event, {} as never, () => undefined) as Promise<PreTokenGenerationV2TriggerEvent>;

describe('Pre Token Generation trigger (V2_0)', () => {
  it('adds the verified e-mail to the access token only', async () => {
    const result = await invoke(signInEvent({ email: 'Admin@Example.com', email_verified: 'true' }));

    expect(result.response.claimsAndScopeOverrideDetails).toEqual({
      accessTokenGeneration: {
        claimsToAddOrOverride: { email: 'admin@example.com', email_verified: 'true' },
      },
    });
  });

  it('says when the e-mail is not verified', async () => {
    const result = await invoke(signInEvent({ email: 'new@example.com', email_verified: 'false' }));

    expect(
      result.response.claimsAndScopeOverrideDetails.accessTokenGeneration?.claimsToAddOrOverride,
    ).toEqual({
      email: 'new@example.com',
      email_verified: 'false',
    });
  });

  it('treats a missing email_verified as not verified', async () => {
    const result = await invoke(signInEvent({ email: 'new@example.com' }));

    expect(
      result.response.claimsAndScopeOverrideDetails.accessTokenGeneration?.claimsToAddOrOverride
        ?.email_verified,
    ).toBe('false');
  });

  it('adds nothing for a user without an e-mail', async () => {
    const result = await invoke(signInEvent({ phone_number: '+15550100' }));

    expect(
      result.response.claimsAndScopeOverrideDetails.accessTokenGeneration?.claimsToAddOrOverride,
    ).toEqual({});
  });
});

describe('the trigger as deployed', () => {
  it('bundles as CDK bundles it, imports and answers', { timeout: 60_000 }, async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'bps-trigger-'));
    try {
      const { file } = await buildBundle('functions/triggers/pre-token-generation.ts', outDir);
      const bundled = (await import(pathToFileURL(file).href)) as {
        handler: PreTokenGenerationV2TriggerHandler;
      };
      const result = (await bundled.handler(
        signInEvent({ email: 'a@example.com', email_verified: 'true' }),
        {} as never,
        () => undefined,
      )) as PreTokenGenerationV2TriggerEvent;

      expect(
        result.response.claimsAndScopeOverrideDetails.accessTokenGeneration?.claimsToAddOrOverride,
      ).toEqual({
        email: 'a@example.com',
        email_verified: 'true',
      });
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  });
});
