import { beforeAll, describe, expect, it } from 'vitest';
import type { RouteDefinition } from '#lib/http/route.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { LOCAL_SES_SENDER } from '../../infra/local/harness.ts';
import { mailConfigurationSetName } from '../../infra/mail.ts';
import { signsCursors } from '../../infra/service-function.ts';
import { calls, LOCAL_STAGE, localPolicies } from '../support/local-policies.ts';

/**
 * The policies the harness will enforce, read from the synthesized app, give every function what
 * its route row's `permissions` promise and no more: the row is the promise, the template what
 * AWS would enforce, and this the proof that they agree.
 */

let local: ReturnType<typeof localPolicies>;
const CONFIGURATION_SET = mailConfigurationSetName(LOCAL_STAGE);

beforeAll(() => {
  local = localPolicies();
});

const allowed = async (name: string, call: Parameters<typeof local.decide>[1]) =>
  (await local.decide(name, call)).allowed;

/** A key under the row's photo prefix, and one outside it. */
function photoKeys(route: RouteDefinition) {
  const prefix = (route.permissions.photoKeys ?? '*').replace(/\*$/, '');
  const inside = `${prefix}businesses-or-gallery/p1`;
  const outside = prefix.startsWith('gallery/') ? 'businesses/b/photos/p' : 'gallery/bakery/p';
  return { inside, outside: prefix === '' ? undefined : outside };
}

describe('the functions’ policies in the synthesized templates', () => {
  it('has one function per route row and per Cognito trigger, each with its own role session, all resolved', () => {
    const names = [...local.policies.functions.keys()];
    for (const route of routeTable) expect(names).toContain(route.operationId);
    for (const trigger of ['PreSignUp', 'PostConfirmation', 'PreTokenGeneration'])
      expect(names).toContain(trigger);
    for (const fn of local.policies.functions.values()) {
      expect(fn.principalArn).toMatch(
        new RegExp(`^arn:aws:sts::000000000000:assumed-role/[\\w-]+/bp-${LOCAL_STAGE}-${fn.name}$`),
      );
      expect(fn.unresolved, fn.name).toEqual([]);
    }
    expect(local.policies.sesIdentities).toEqual([LOCAL_SES_SENDER]);
  });

  it('allows every route the table reads its row promises, and writes only where the row says readwrite', async () => {
    for (const route of routeTable) {
      const name = route.operationId;
      for (const read of [calls.getItem(), calls.query(), calls.queryIndex(), calls.batchGet()]) {
        expect(await allowed(name, read), `${name} ${read.commandName}`).toBe(true);
      }
      const writes = route.permissions.table === 'readwrite';
      for (const write of [
        calls.putItem(),
        calls.updateItem(),
        calls.deleteItem(),
        calls.conditionCheckAndPut(),
      ]) {
        expect(await allowed(name, write), `${name} ${write.commandName}`).toBe(writes);
      }
    }
  });

  it('allows the photo bucket’s keys under the row’s prefix only, writing only where the row says readwrite', async () => {
    for (const route of routeTable) {
      const name = route.operationId;
      const { photos } = route.permissions;
      const { inside, outside } = photoKeys(route);
      expect(await allowed(name, calls.s3('GetObjectCommand', inside)), `${name} GetObject`).toBe(
        photos !== undefined,
      );
      for (const write of ['PutObjectCommand', 'DeleteObjectCommand']) {
        expect(await allowed(name, calls.s3(write, inside)), `${name} ${write}`).toBe(photos === 'readwrite');
      }
      if (photos && outside)
        expect(await allowed(name, calls.s3('GetObjectCommand', outside)), name).toBe(false);
      // No route may list the bucket: nothing grants s3:ListBucket.
      const list = {
        clientName: 'S3Client',
        commandName: 'ListObjectsV2Command',
        input: { Bucket: 'business-platform-photos-local' },
      };
      expect(await allowed(name, list)).toBe(false);
    }
  });

  it('allows sending e-mail from the stage’s sender through its configuration set to the rows that say so only', async () => {
    for (const route of routeTable) {
      const name = route.operationId;
      const sends = route.permissions.sendEmail === true;
      const invite = calls.sendEmail(`Business Platform <${LOCAL_SES_SENDER}>`, CONFIGURATION_SET);
      expect(await allowed(name, invite), name).toBe(sends);
      if (!sends) continue;
      // The From condition holds the sender to the configured address; another set is not granted.
      expect(
        await local.decide(name, calls.sendEmail('someone@business-platform.local', CONFIGURATION_SET)),
      ).toEqual({
        allowed: false,
        reason: 'no-identity-policy-allows',
      });
      expect(await allowed(name, calls.sendEmail(LOCAL_SES_SENDER, 'another-set'))).toBe(false);
    }
  });

  it('allows each secret to the rows that read it, and the signing key’s write to the token endpoint only', async () => {
    const internalKeys = local.statefulRef('InternalApiKeys');
    const cursorKeys = local.statefulRef('CursorSecret');
    const signingKey = local.statefulRef('OAuthSigningKey');
    for (const route of routeTable) {
      const name = route.operationId;
      const internal = route.auth === 'internal' || Boolean(route.permissions.internalApiKeys);
      expect(await allowed(name, calls.secret('GetSecretValueCommand', internalKeys)), name).toBe(internal);
      expect(await allowed(name, calls.secret('GetSecretValueCommand', cursorKeys)), name).toBe(
        signsCursors(route),
      );
      const signs = route.permissions.oauthSigningKey === 'readwrite';
      expect(await allowed(name, calls.secret('GetSecretValueCommand', signingKey)), name).toBe(signs);
      expect(await allowed(name, calls.secret('PutSecretValueCommand', signingKey)), name).toBe(signs);
    }
  });

  it('allows the Cognito triggers what they do on the table, and nothing else', async () => {
    expect(await allowed('PreSignUp', calls.getItem())).toBe(true);
    expect(await allowed('PreSignUp', calls.query())).toBe(true);
    expect(await allowed('PreSignUp', calls.putItem())).toBe(false);
    expect(await allowed('PreSignUp', calls.queryIndex())).toBe(false);
    // Claiming a pending membership: a transaction that deletes one item and puts another.
    const claim = {
      clientName: 'DynamoDBClient',
      commandName: 'TransactWriteItemsCommand',
      input: {
        TransactItems: [
          {
            Delete: {
              TableName: 'business-platform-local',
              Key: { pk: 'PENDING#e', sk: 'B' },
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
          { Put: { TableName: 'business-platform-local', Item: { pk: 'BUSINESS#b', sk: 'MEMBER#u' } } },
        ],
      },
    };
    expect(await allowed('PostConfirmation', claim)).toBe(true);
    expect(await allowed('PostConfirmation', calls.getItem())).toBe(false);
    expect(await allowed('PreTokenGeneration', calls.getItem())).toBe(false);
  });

  it('evaluates the bucket policy too: a request without TLS meets its explicit deny', async () => {
    const route = routeTable.find((row) => row.permissions.photos === 'readwrite');
    if (!route) throw new Error('no route writes photos');
    const [request] = (await import('../../infra/local/iam/call-authorization.ts')).iamRequestsFor(
      calls.s3('PutObjectCommand', `${photoKeys(route).inside}`),
      local.scope,
    );
    if (!request) throw new Error('no request');
    expect(await local.evaluator.evaluate(route.operationId, request)).toEqual({ allowed: true });
    expect(
      await local.evaluator.evaluate(route.operationId, {
        ...request,
        context: { ...request.context, 'aws:SecureTransport': 'false' },
      }),
    ).toEqual({ allowed: false, reason: 'explicit-deny-in-resource-policy' });
  });
});

describe('a narrowed route row', () => {
  it('turns the writes its function made into AccessDenied, the unchanged row allowing them', async () => {
    const row = routeTable.find((route) => route.operationId === 'createFaq');
    if (!row) throw new Error('no createFaq row');
    expect(row.permissions.table).toBe('readwrite');
    expect(await allowed('createFaq', calls.conditionCheckAndPut())).toBe(true);

    const narrowed = localPolicies([{ ...row, permissions: { ...row.permissions, table: 'read' } }]);
    expect(await narrowed.decide('createFaq', calls.conditionCheckAndPut())).toEqual({
      allowed: false,
      reason: 'no-identity-policy-allows',
    });
    expect((await narrowed.decide('createFaq', calls.getItem())).allowed).toBe(true);
  });
});
