import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import { routeTable } from '#lib/routes/route-table.ts';
import type { Json, synthesize } from './cdk-app.ts';
import { deployedValues, evaluate } from './template-values.ts';

// The console pages' stacks as deployed: the settings, certificates and SSM parameter values the
// cdk-console-pages-*.test.ts files synthesize with, and readers of the templates' resources, the
// files the bucket deployment writes, the functions' environments and the console app client's
// OAuth settings, evaluated with those values. The values are those of eu-west-1: each test file
// stubs CDK_DEFAULT_REGION to it, as CDK's CLI would tell the app.

/** Synthesizing the whole app takes ~10 s alone, more on a busy machine. */
export const SYNTH_TIMEOUT = 180_000;

export const PAGES_CERTIFICATE =
  'arn:aws:acm:us-east-1:123456789012:certificate/2d7a4c6e-8f1b-4a3c-9e5d-0b1c2d3e4f5a';
export const API_CERTIFICATE =
  'arn:aws:acm:eu-west-1:123456789012:certificate/0b5e2a4c-6d1f-4e8a-9c3b-7f2d1e0a5b6c';

/**
 * A stage without a settings file (the dev stage's names a consoleUrl, which would stand in for
 * the pages' URL), with a sender that is not a placeholder.
 */
export const STAGE = 'trial';
export const BASE = { stage: STAGE, sesSender: 'no-reply@mail.customer.test' };

/** What the SSM parameters hold at deployment, as the stacks before would have written them. */
const DISTRIBUTION_DOMAIN = 'd111111abcdef8.cloudfront.net';
export const DISTRIBUTION_ID = 'E1PAGESEXAMPLE';
export const PARAMETERS = {
  'console-pages-url': `https://${DISTRIBUTION_DOMAIN}`,
  'console-pages-bucket-name': 'pages-bucket',
  'console-pages-distribution-id': 'E2QWRUHAPOMQZL',
  'console-api-id': 'a1b2c3d4e5',
  'assistant-api-id': 'f6g7h8i9j0',
  'jwt-audience': '4example6clientid7',
  'jwt-issuer': 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Example',
  'jwt-profile': 'cognito',
  'jwt-key-set': '{"keys":[]}',
  'table-name': 'table',
  'table-arn': 'arn:aws:dynamodb:eu-west-1:123456789012:table/table',
  'photos-bucket-name': 'photos',
  'photos-bucket-arn': 'arn:aws:s3:::photos',
  'internal-api-keys-arn': 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:keys',
  'oauth-signing-key-arn': 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:signing',
  'cursor-secret-arn': 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:cursor',
  'alarm-topic-arn': 'arn:aws:sns:eu-west-1:123456789012:alarms',
  'user-pool-id': 'eu-west-1_Example',
  'user-pool-arn': 'arn:aws:cognito-idp:eu-west-1:123456789012:userpool/eu-west-1_Example',
} as const;
export const COGNITO = 'https://business-platform-trial-123456789012.auth.eu-west-1.amazoncognito.com';
export const EXECUTE_API = `https://${PARAMETERS['console-api-id']}.execute-api.eu-west-1.amazonaws.com`;

export type App = ReturnType<typeof synthesize>;

export function only(template: Template, type: string): Json {
  const found = Object.values(template.findResources(type));
  expect(found, type).toHaveLength(1);
  return found[0];
}

/** A stack's resource values as deployed: SSM parameters, pseudo parameters, the distribution's name. */
export function deployed(template: Template, value: Json): Json {
  const [distributionId] = Object.keys(template.findResources('AWS::CloudFront::Distribution'));
  return evaluate(
    value,
    deployedValues(template, STAGE, PARAMETERS, {
      ...(distributionId
        ? { [`${distributionId}.DomainName`]: DISTRIBUTION_DOMAIN, [distributionId]: DISTRIBUTION_ID }
        : {}),
    }),
  );
}

/** The headers a response headers policy sends, written back as header lines. */
export function headersSent(config: Json): Record<string, string> {
  const security = config.SecurityHeadersConfig;
  const hsts = security.StrictTransportSecurity;
  return {
    'content-security-policy': security.ContentSecurityPolicy.ContentSecurityPolicy,
    'strict-transport-security': [
      `max-age=${hsts.AccessControlMaxAgeSec}`,
      ...(hsts.IncludeSubdomains ? ['includeSubDomains'] : []),
      ...(hsts.Preload ? ['preload'] : []),
    ].join('; '),
    'referrer-policy': security.ReferrerPolicy.ReferrerPolicy,
    ...(security.ContentTypeOptions ? { 'x-content-type-options': 'nosniff' } : {}),
    'x-frame-options': security.FrameOptions.FrameOption,
  };
}

/** The file a BucketDeployment source (by index) puts in the bucket, markers replaced as at deployment. */
export function deployedFile(app: App, template: Template, source: number, name: string): string {
  const deployment = only(template, 'Custom::CDKBucketDeployment').Properties;
  const hash = String(deployment.SourceObjectKeys[source]).replace(/\.zip$/, '');
  const assemblyDir = app.built.app.synth().directory;
  let text = readFileSync(join(assemblyDir, `asset.${hash}`, name), 'utf8');
  const markers = deployed(template, deployment.SourceMarkers[source]) as Record<string, string>;
  const jsonEscape = deployment.SourceMarkersConfig[source]?.jsonEscape === true;
  for (const [marker, value] of Object.entries(markers)) {
    text = text.replaceAll(marker, jsonEscape ? JSON.stringify(value).slice(1, -1) : value);
  }
  return text;
}

/** Each routed function's environment, by operation id, as deployed. */
export function functionEnvironments(app: App): Map<string, Record<string, string>> {
  const environments = new Map<string, Record<string, string>>();
  for (const [name, template] of app.templates) {
    if (!name.includes('-Routes-')) continue;
    for (const fn of Object.values<Json>(template.findResources('AWS::Lambda::Function'))) {
      const route = routeTable.find((row) => fn.Properties.Description === `${row.method} ${row.path}`);
      if (route) environments.set(route.operationId, deployed(template, fn.Properties.Environment.Variables));
    }
  }
  return environments;
}

/** The console app client's OAuth settings, as deployed. */
export function consoleClient(app: App): Json {
  const template = app.template('-Stateful');
  const { CallbackURLs, LogoutURLs, AllowedOAuthScopes } = only(
    template,
    'AWS::Cognito::UserPoolClient',
  ).Properties;
  return deployed(template, { CallbackURLs, LogoutURLs, AllowedOAuthScopes });
}
