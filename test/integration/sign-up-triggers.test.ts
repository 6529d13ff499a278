import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type {
  PostConfirmationTriggerEvent,
  PostConfirmationTriggerHandler,
  PreSignUpTriggerEvent,
  PreSignUpTriggerHandler,
} from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensurePlatformAdmin } from '#lib/admins/admin-provisioning.ts';
import { readEntry } from '#lib/admins/platform-admin-reads.ts';
import { removePlatformAdminEntry, storeInvite } from '#lib/admins/platform-admin-store.ts';
import { userIdFor } from '#lib/auth/user-id.ts';
import { createBusiness } from '#lib/businesses/business-store.ts';
import { claimPendingMemberships, putPendingMember } from '#lib/businesses/pending-members.ts';
import { dynamo, tableName } from '#lib/db/client.ts';
import { keys } from '#lib/db/keys.ts';
import { buildBundle } from '../../bench/cold-start.ts';
import { runAsFunction } from '../support/in-process-iam.ts';

/**
 * The Cognito sign-up triggers, invoked in-process with the events Cognito sends, against the
 * harness's DynamoDB Local: who may create an account, and what confirming it grants.
 */

const REGION = 'eu-west-1';
const USER_POOL_ID = 'eu-west-1_SignUpTest';
const POOL_ISSUER = `https://cognito-idp.${REGION}.amazonaws.com/${USER_POOL_ID}`;
/** The stage setting the trigger is deployed with (context bootstrapAdminEmail). */
const BOOTSTRAP_ADMIN = `first-admin-${randomUUID().slice(0, 8)}@sign-up.example`;

const unique = (name: string) => `${name}-${randomUUID().slice(0, 8)}@sign-up.example`;

/** What Cognito sends when someone signs up at the managed login (e-mail is the username). */
function signUpEvent(email: string): PreSignUpTriggerEvent {
  return {
    version: '1',
    triggerSource: 'PreSignUp_SignUp',
    region: REGION,
    userPoolId: USER_POOL_ID,
    userName: randomUUID(),
    callerContext: { awsSdkVersion: 'aws-sdk-unknown-unknown', clientId: 'console-client-id' },
    request: { userAttributes: { email }, validationData: {} },
    response: { autoConfirmUser: false, autoVerifyEmail: false, autoVerifyPhone: false },
  };
}

/** What Cognito sends once the person entered the code it mailed (attributes are strings). */
function confirmationEvent(email: string, sub: string, emailVerified = 'true'): PostConfirmationTriggerEvent {
  return {
    version: '1',
    triggerSource: 'PostConfirmation_ConfirmSignUp',
    region: REGION,
    userPoolId: USER_POOL_ID,
    userName: sub,
    callerContext: { awsSdkVersion: 'aws-sdk-unknown-unknown', clientId: 'console-client-id' },
    request: {
      userAttributes: {
        sub,
        email,
        email_verified: emailVerified,
        'cognito:user_status': 'CONFIRMED',
        'cognito:email_alias': email,
      },
    },
    response: {},
  };
}

let preSignUp: PreSignUpTriggerHandler;
let postConfirmation: PostConfirmationTriggerHandler;

beforeAll(async () => {
  process.env.BOOTSTRAP_ADMIN_EMAIL = BOOTSTRAP_ADMIN;
  preSignUp = (await import('../../functions/triggers/pre-sign-up.ts')).handler;
  postConfirmation = (await import('../../functions/triggers/post-confirmation.ts')).handler;
});

/** Each trigger runs as its function: its calls are checked against its role (in-process-iam.ts). */
const signUp = (email: string, handler = preSignUp) =>
  runAsFunction(
    'PreSignUp',
    () => handler(signUpEvent(email), {} as never, () => undefined) as Promise<PreSignUpTriggerEvent>,
  );

const confirm = (event: PostConfirmationTriggerEvent, handler = postConfirmation) =>
  runAsFunction(
    'PostConfirmation',
    () => handler(event, {} as never, () => undefined) as Promise<PostConfirmationTriggerEvent>,
  );

/** Admitted: Cognito goes on, and still mails its code (nothing confirmed or verified here). */
async function expectAdmitted(email: string) {
  const result = await signUp(email);
  expect(result.response).toEqual({ autoConfirmUser: false, autoVerifyEmail: false, autoVerifyPhone: false });
}

async function expectRefused(email: string) {
  await expect(signUp(email)).rejects.toThrow(
    `Sign-up is by invitation only: ask the business owner or a platform admin to invite ${email.trim().toLowerCase()}`,
  );
}

async function member(businessId: string, sub: string) {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.member(businessId, userIdFor(POOL_ISSUER, sub)) }),
  );
  return Item;
}

async function pendingOf(email: string, businessId: string) {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: keys.pendingMember(email, businessId) }),
  );
  return Item;
}

describe('Pre Sign-up: only invited addresses get an account', () => {
  it('admits an address with a pending platform-admin invite, in any case and spacing', async () => {
    const email = unique('invitee');
    await storeInvite({ email: email.toUpperCase(), invitedBy: 'admin@sign-up.example' });

    await expectAdmitted(email);
    await expectAdmitted(`  ${email.toUpperCase()} `);
  });

  it('admits an active platform admin', async () => {
    const email = unique('admin');
    await ensurePlatformAdmin({ email });

    await expectAdmitted(email);
  });

  it('admits an address with a pending business membership', async () => {
    const email = unique('member');
    const business = await createBusiness({ name: 'Sign-up Bakery' });
    await putPendingMember(business.id, email, 'editor');

    await expectAdmitted(email.toUpperCase());
  });

  it("admits the stage's bootstrap admin address with nothing stored", async () => {
    await expectAdmitted(BOOTSTRAP_ADMIN);
    await expectAdmitted(BOOTSTRAP_ADMIN.toUpperCase());
  });

  it('refuses a stranger with a message that says what to do', async () => {
    await expectRefused(unique('stranger'));
  });

  it('refuses an address whose invite expired', async () => {
    const email = unique('expired');
    await storeInvite({ email, invitedBy: 'admin@sign-up.example' });
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.platformAdmin(email),
        UpdateExpression: 'SET expires_at = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
      }),
    );

    await expectRefused(email);
  });

  it('refuses an address whose invite was removed', async () => {
    const email = unique('removed');
    const invite = await storeInvite({ email, invitedBy: 'admin@sign-up.example' });
    await removePlatformAdminEntry(await readEntry(invite.id));

    await expectRefused(email);
  });

  it('refuses a sign-up without a usable e-mail address', async () => {
    for (const email of ['', 'not-an-address', `${'a'.repeat(400)}@sign-up.example`]) {
      await expect(signUp(email)).rejects.toThrow('Sign-up needs a valid e-mail address');
    }
  });
});

describe('Post Confirmation: a confirmed address gets the memberships it was invited to', () => {
  it('makes every pending membership a membership of the new user, once', async () => {
    const email = unique('confirmed');
    const sub = randomUUID();
    const bakery = await createBusiness({ name: 'Confirmed Bakery' });
    const plumber = await createBusiness({ name: 'Confirmed Plumbing' });
    await putPendingMember(bakery.id, email, 'owner');
    await putPendingMember(plumber.id, email.toUpperCase(), 'viewer');

    const result = await confirm(confirmationEvent(email, sub));

    expect(result.response).toEqual({});
    const userId = userIdFor(POOL_ISSUER, sub);
    const first = await member(bakery.id, sub);
    expect(first).toMatchObject({
      business_id: bakery.id,
      user_id: userId,
      role: 'owner',
      ...keys.memberByUser(userId, bakery.id),
    });
    expect(await member(plumber.id, sub)).toMatchObject({ role: 'viewer' });
    expect(await pendingOf(email, bakery.id)).toBeUndefined();
    expect(await pendingOf(email, plumber.id)).toBeUndefined();

    // Cognito retries a trigger that failed or timed out: the retry writes nothing again.
    await confirm(confirmationEvent(email, sub));
    expect(await member(bakery.id, sub)).toEqual(first);
  });

  it('claims each pending membership exactly once when two runs race', async () => {
    const email = unique('raced');
    const business = await createBusiness({ name: 'Raced Bakery' });
    await putPendingMember(business.id, email, 'editor');
    const userId = userIdFor(POOL_ISSUER, randomUUID());

    const runs = await Promise.all([
      claimPendingMemberships(email, userId),
      claimPendingMemberships(email, userId),
    ]);

    expect(runs.flat()).toEqual([expect.objectContaining({ business_id: business.id, role: 'editor' })]);
  });

  it('claims nothing for an address confirmed without proof (email_verified false)', async () => {
    const email = unique('unverified');
    const sub = randomUUID();
    const business = await createBusiness({ name: 'Unverified Bakery' });
    await putPendingMember(business.id, email, 'owner');

    await confirm(confirmationEvent(email, sub, 'false'));

    expect(await member(business.id, sub)).toBeUndefined();
    expect(await pendingOf(email, business.id)).toMatchObject({ role: 'owner' });
  });
});

describe('the sign-up triggers as deployed', () => {
  it('bundle as CDK bundles them, import and answer', { timeout: 120_000 }, async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'bps-sign-up-'));
    try {
      const email = unique('bundled');
      const sub = randomUUID();
      const business = await createBusiness({ name: 'Bundled Bakery' });
      await putPendingMember(business.id, email, 'viewer');

      const pre = await buildBundle('functions/triggers/pre-sign-up.ts', join(outDir, 'pre'));
      const bundledPreSignUp = (await import(pathToFileURL(pre.file).href))
        .handler as PreSignUpTriggerHandler;
      await expect(signUp(unique('stranger'), bundledPreSignUp)).rejects.toThrow('by invitation only');
      expect((await signUp(email, bundledPreSignUp)).response.autoVerifyEmail).toBe(false);

      const post = await buildBundle('functions/triggers/post-confirmation.ts', join(outDir, 'post'));
      const bundledPostConfirmation = (await import(pathToFileURL(post.file).href))
        .handler as PostConfirmationTriggerHandler;
      await confirm(confirmationEvent(email, sub), bundledPostConfirmation);
      expect(await member(business.id, sub)).toMatchObject({ role: 'viewer' });
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  });
});
