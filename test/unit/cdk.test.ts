import { Stack } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiSurfaces } from '#lib/http/cors.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { buildServiceApp } from '../../infra/service-app.ts';
import { signsCursors } from '../../infra/service-function.ts';
import { type Json, newApp, type Resources, synthesize } from '../support/cdk-app.ts';

/** CloudFormation's limit of resources in one stack's template. */
const CLOUDFORMATION_MAX_RESOURCES = 500;
/** Ours: a margin below it, so that a few more routes in an area do not fail a deployment. */
const MAX_RESOURCES_PER_STACK = 450;
/** Synthesizing the whole app takes ~10 s alone, more on a busy machine. */
const SYNTH_TIMEOUT = 180_000;

describe('CDK app', () => {
  let stacks: Stack[];
  let templates: Map<string, Template>;
  let built: ReturnType<typeof synthesize>['built'];

  let allResources: () => Resources;

  beforeAll(() => {
    ({ stacks, templates, built, resources: allResources } = synthesize());
  }, SYNTH_TIMEOUT);

  it(
    'synthesises with no unacknowledged cdk-nag AwsSolutions finding',
    () => {
      expect(() => buildServiceApp({ app: newApp() }).app.synth()).not.toThrow();
    },
    SYNTH_TIMEOUT,
  );

  it(
    'fails synthesis when a resource breaks an AwsSolutions rule',
    () => {
      const { app, stateful } = buildServiceApp({ app: newApp() });
      new s3.Bucket(stateful, 'Careless', { blockPublicAccess: s3.BlockPublicAccess.BLOCK_ACLS_ONLY });

      expect(() => app.synth()).toThrow();
    },
    SYNTH_TIMEOUT,
  );

  it('has one HTTP API route per route-table row on each API it belongs to', () => {
    const routeKeys = Object.values(allResources())
      .filter((resource) => resource.Type === 'AWS::ApiGatewayV2::Route')
      .map((resource) => resource.Properties?.RouteKey)
      .sort();

    // Any-origin routes also take their CORS preflight (OPTIONS), and methods they only refuse;
    // the edits API is on both APIs (lib/http/cors.ts).
    const expected = routeTable.flatMap((route) =>
      apiSurfaces(route).flatMap(() => [
        `${route.method} ${route.path}`,
        ...(route.cors === 'any-origin' ? [`OPTIONS ${route.path}`] : []),
        ...(route.rejectsMethods ?? []).map((method) => `${method} ${route.path}`),
      ]),
    );
    expect(routeKeys).toEqual(expected.sort());
  });

  it("keeps every stack of the app under 450 resources, a margin below CloudFormation's 500", () => {
    // Every stack the app holds, whichever it is (a new routes area is a new stack), is counted.
    const all = built.app.node
      .findAll()
      .filter((construct): construct is Stack => Stack.isStack(construct))
      .map((stack) => stack.stackName);
    expect([...templates.keys()].sort()).toEqual(all.sort());
    expect(all.length).toBeGreaterThan(5);
    for (const [name, template] of templates) {
      const count = Object.keys(template.toJSON().Resources ?? {}).length;
      expect(count, name).toBeLessThan(MAX_RESOURCES_PER_STACK);
      expect(count, name).toBeLessThan(CLOUDFORMATION_MAX_RESOURCES);
    }
  });

  it('runs every function on Node.js 22, arm64, with its own log group', () => {
    const routed = Object.values(allResources()).filter(
      (resource) =>
        resource.Type === 'AWS::Lambda::Function' &&
        routeTable.some((route) => resource.Properties?.Description === `${route.method} ${route.path}`),
    );

    expect(routed).toHaveLength(routeTable.length);
    for (const fn of routed) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        LoggingConfig: { LogGroup: expect.anything() },
      });
    }
  });

  it('keeps the table on-demand with point-in-time recovery, TTL and the gsi1 index', () => {
    templates.get(stacks[0]?.stackName ?? '')?.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expires_at_epoch', Enabled: true },
      GlobalSecondaryIndexes: [Match.objectLike({ IndexName: 'gsi1' })],
      Replicas: [
        Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }),
      ],
    });
  });

  it('keeps the photo bucket private and encrypted', () => {
    templates.get(stacks[0]?.stackName ?? '')?.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: Match.anyValue(),
    });
  });

  it('grants each function only what its route row asks for', () => {
    const resources = allResources();
    for (const route of routeTable) {
      const fnEntry = Object.entries(resources).find(
        ([, r]) =>
          r.Type === 'AWS::Lambda::Function' && r.Properties?.Description === `${route.method} ${route.path}`,
      );
      const roleId = fnEntry?.[1].Properties?.Role?.['Fn::GetAtt']?.[0];
      const actions = Object.values(resources)
        .filter(
          (r) =>
            r.Type === 'AWS::IAM::Policy' && r.Properties?.Roles?.some((role: Json) => role.Ref === roleId),
        )
        .flatMap((policy) => policy.Properties?.PolicyDocument.Statement)
        .flatMap((statement: { Action: string | string[] }) => [statement.Action].flat());

      const services = new Set(actions.map((action) => action.split(':')[0]));
      // xray: active tracing (PutTraceSegments, PutTelemetryRecords).
      const expected = new Set(['logs', 'dynamodb', 'xray']);
      if (route.permissions.photos) expected.add('s3');
      if (route.permissions.sendEmail) expected.add('ses');
      // The stage has its own user pool (no context issuer): the account check is granted.
      if (route.permissions.accountDirectory) expected.add('cognito-idp');
      if (
        route.auth === 'internal' ||
        route.permissions.internalApiKeys ||
        route.permissions.oauthSigningKey ||
        signsCursors(route)
      ) {
        expected.add('secretsmanager');
      }
      expect(services, route.operationId).toEqual(expected);
      // A request's item reads started together go out as one BatchGetItem (lib/db/item-reader.ts):
      // an agent key with its record, an access check with the read beside it.
      expect(actions, route.operationId).toContain('dynamodb:BatchGetItem');
      if (route.permissions.table === 'read') {
        expect(
          actions.some((a) => /dynamodb:(Put|Update|Delete|BatchWrite)/.test(a)),
          route.operationId,
        ).toBe(false);
      }
      expect(
        actions.some((a) => a.endsWith('*')),
        route.operationId,
      ).toBe(false);
    }
  });
});
