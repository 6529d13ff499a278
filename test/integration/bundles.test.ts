import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RouteDefinition } from '#lib/http/route.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { buildBundle, coldStart } from '../../bench/cold-start.ts';
import { REQUIREMENT_PROBES } from '../../bench/requirement-probes.ts';
import { sampleFor, sampleItemIds } from '../../bench/sample-items.ts';
import { registerSampleClient, type SampleExtras, sampleEvent } from '../../infra/local/sample-event.ts';
import { functionEnvironment } from '../../infra/service-function.ts';
import { CREDENTIAL_CHAIN_MODULE, ENVIRONMENT_CREDENTIALS_MODULE } from '../support/credential-chain.ts';
import { baseUrl, obtainTokens } from '../support/oauth.ts';

/** Placeholder references: only the names of the variables CDK sets matter here. */
const cdkEnvironment = (route: RouteDefinition) =>
  functionEnvironment(
    route,
    {
      sesSender: 'sender',
      stage: 'test',
      consoleUrl: 'console',
      publicUrl: 'public',
      mcpAllowedOrigins: ['origin'],
      photosPublicBaseUrl: 'cdn',
      consoleUserPool: true,
    },
    {
      tableName: 'table',
      tableArn: 'table-arn',
      photosBucketName: 'bucket',
      photosBucketArn: 'bucket-arn',
      internalApiKeysArn: 'internal-keys-arn',
      oauthSigningKeyArn: 'signing-key-arn',
      cursorSecretArn: 'cursor-secret-arn',
      jwtIssuer: 'issuer',
      jwtAudience: 'audience',
      jwtProfile: 'profile',
      jwtKeySet: '{"keys":[]}',
      userPoolId: 'user-pool-id',
      userPoolArn: 'user-pool-arn',
    },
  );

/** Where AWS names a secret to read, the harness passes its value under another name. */
const LOCAL_TWINS: Record<string, string> = {
  INTERNAL_API_KEYS_SECRET_ID: 'INTERNAL_API_KEYS',
  OAUTH_SIGNING_KEY_SECRET_ID: 'OAUTH_SIGNING_KEY_FILE',
  CURSOR_SECRET_ID: 'CURSOR_SECRET',
};

/** The variables a route's function gets in AWS, with their local twins. */
const givenVariables = (route: RouteDefinition) =>
  Object.keys(cdkEnvironment(route)).flatMap((name) => [
    name,
    ...(LOCAL_TWINS[name] ? [LOCAL_TWINS[name]] : []),
  ]);

/**
 * Variables CDK gives some functions and not others. The harness sets all of them for every
 * function, which would hide a module that reads one at load in a function not granted it (it
 * would fail its cold start in AWS); so each bundle starts without those its row does not get.
 */
const scopedVariables = [...new Set(routeTable.flatMap(givenVariables))];

/**
 * The AWS SDK clients a route's function may call: DynamoDB, and a service only where CDK gives the
 * function that service's resource (the same grants make its IAM policy, test/unit/cdk.test.ts).
 */
function grantedClients(route: RouteDefinition): string[] {
  const given = Object.keys(cdkEnvironment(route));
  const clientFor: Record<string, string> = {
    PHOTOS_BUCKET: 'client-s3',
    SES_SENDER: 'client-ses',
    INTERNAL_API_KEYS_SECRET_ID: 'client-secrets-manager',
    OAUTH_SIGNING_KEY_SECRET_ID: 'client-secrets-manager',
    CURSOR_SECRET_ID: 'client-secrets-manager',
    CONSOLE_USER_POOL_ID: 'client-cognito-identity-provider',
  };
  return ['client-dynamodb', ...given.flatMap((name) => clientFor[name] ?? [])];
}

const bundledClients = (modules: string[]) =>
  [
    ...new Set(modules.flatMap((path) => path.match(/node_modules\/@aws-sdk\/(client-[^/]+)\//)?.[1] ?? [])),
  ].sort();

/**
 * Packages bundled from more than one directory: two versions of one package in one function
 * (npm nests a second copy under the dependant that asked for another version), each one loaded
 * at every cold start. Each with the directories it came from.
 */
function packagesBundledTwice(modules: string[]): string[] {
  const directories = new Map<string, Set<string>>();
  for (const path of modules) {
    const [, directory, name] = path.match(/^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//) ?? [];
    if (directory && name) directories.set(name, (directories.get(name) ?? new Set()).add(directory));
  }
  return [...directories]
    .filter(([, found]) => found.size > 1)
    .map(([name, found]) => `${name}: ${[...found].join(', ')}`);
}

/**
 * The samples whose answer is not their route's success status, and is right: the authorization
 * endpoint sends the browser on to the consent page, and the well-known catch-all exists to say
 * that nothing is published at a path.
 */
const ANSWERED_OTHERWISE: Record<string, number> = {
  authorizeOAuthClient: 302,
  getUnknownWellKnown: 404,
};

// A bundle with the SDK inside can build fine and still fail at import (an ESM bundle without
// esbuild's createRequire banner: `Dynamic require of "node:https" is not supported`), so every
// bundle, built as CDK builds it, is imported and invoked once in a fresh process, with only the
// environment CDK gives it.
describe('deployable bundles', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'bps-bundles-'));
  afterAll(() => rmSync(workDir, { recursive: true, force: true }));
  let extras: SampleExtras;
  let itemIds: Record<string, string>;
  beforeAll(async () => {
    const harness = inject('harness');
    const owner = harness.credentials.businesses[0]?.tokens.owner ?? '';
    const { tokens } = await obtainTokens({ userToken: owner, resource: `${baseUrl()}/mcp` });
    extras = { ...(await registerSampleClient(baseUrl())), assistantToken: tokens.access_token };
    itemIds = await sampleItemIds(harness);
  });

  it.each(routeTable.map((route) => [route.operationId, route] as const))(
    '%s imports and runs its operation in a fresh process, bundles no AWS client its grants do not allow, no credential source but the environment, and one copy of each package',
    async (_id, route) => {
      const harness = inject('harness');
      const outDir = join(workDir, route.operationId);
      mkdirSync(outDir);
      const { file, modules } = await buildBundle(route.handler, outDir);
      const granted = grantedClients(route);
      expect(bundledClients(modules).filter((client) => !granted.includes(client))).toEqual([]);
      expect(packagesBundledTwice(modules)).toEqual([]);
      // Its credentials come from the environment, as Lambda gives them; the sample below proves
      // the SDK finds them there.
      expect(modules.filter((path) => CREDENTIAL_CHAIN_MODULE.test(path))).toEqual([]);
      expect(modules.includes(ENVIRONMENT_CREDENTIALS_MODULE)).toBe(bundledClients(modules).length > 0);

      const given = givenVariables(route);
      const withheld = scopedVariables.filter((name) => !given.includes(name));
      const env = Object.fromEntries(
        Object.entries(harness.env).filter(([name]) => !withheld.includes(name)),
      );
      const sample = await sampleFor(harness, route, itemIds);
      const event = sampleEvent(route, harness.credentials, { ...extras, ...sample });
      const result = await coldStart(file, event, env, withheld);

      // Past the credential and the request's validation to the operation's work, so the bench's
      // cold starts measure it: an agent route acts on a record that exists (a change commits its
      // transaction from the deployable bundle), a photo route on a demo photo (its bytes read
      // from S3, a derived photo written), and the console, edits and OAuth routes on what
      // bench/sample-fixtures.ts made for them.
      expect(result.statusCode, result.body).toBe(
        ANSWERED_OTHERWISE[route.operationId] ?? route.successStatus,
      );
    },
  );

  // The bench compares a function with its DynamoDB calls alone and with its work done without the
  // pipeline; the comparison means something only while both do what the function does.
  it.each(REQUIREMENT_PROBES.map((probe) => [probe.operationId, probe] as const))(
    "%s's step-by-step references do its calls and answer its sample as it does",
    async (_id, probe) => {
      const harness = inject('harness');
      const route = routeTable.find((candidate) => candidate.operationId === probe.operationId);
      if (!route) throw new Error(`no route ${probe.operationId}`);
      const event = sampleEvent(route, harness.credentials, { ...extras, itemIds });
      for (const [name, entry, probeEvent, status] of [
        ['calls', probe.calls.entry, {}, 200],
        ['bare', probe.entry, event, route.successStatus],
      ] as const) {
        const outDir = join(workDir, `${probe.operationId}-${name}`);
        mkdirSync(outDir);
        const { file } = await buildBundle(entry, outDir);
        const result = await coldStart(file, probeEvent, harness.env);
        expect(result.statusCode, result.body).toBe(status);
      }
    },
  );
});
