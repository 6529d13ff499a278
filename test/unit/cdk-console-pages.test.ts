import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { routeTable } from '#lib/routes/route-table.ts';
import { PAGE_FILES, pageShell } from '../../console-pages/build.ts';
import { CONFIG_FILE, ConsolePagesConfig } from '../../console-pages/config.ts';
import { consolePagesHeaders } from '../../console-pages/headers.ts';
import { CONSOLE_SIGN_IN_SCOPES } from '../../infra/cognito-sign-in.ts';
import { buildServiceApp } from '../../infra/service-app.ts';
import { readServiceContext } from '../../infra/service-context.ts';
import { type Json, newApp, synthesize } from '../support/cdk-app.ts';
import { createTemplateLinter, formatFinding, loadSpec } from '../support/template-lint.ts';
import { deployedValues, evaluate } from '../support/template-values.ts';

/** Synthesizing the whole app takes ~10 s alone, more on a busy machine. */
const SYNTH_TIMEOUT = 180_000;

// The region CDK's CLI would tell the app; the templates are read as deployed there (DEPLOYED_AT).
vi.stubEnv('CDK_DEFAULT_REGION', 'eu-west-1');

const PAGES_CERTIFICATE =
  'arn:aws:acm:us-east-1:123456789012:certificate/2d7a4c6e-8f1b-4a3c-9e5d-0b1c2d3e4f5a';
const API_CERTIFICATE = 'arn:aws:acm:eu-west-1:123456789012:certificate/0b5e2a4c-6d1f-4e8a-9c3b-7f2d1e0a5b6c';

/**
 * A stage without a settings file (the dev stage's names a consoleUrl, which would stand in for
 * the pages' URL), with a sender that is not a placeholder.
 */
const STAGE = 'trial';
const BASE = { stage: STAGE, sesSender: 'no-reply@mail.customer.test' };

/** What the SSM parameters hold at deployment, as the stacks before would have written them. */
const DISTRIBUTION_DOMAIN = 'd111111abcdef8.cloudfront.net';
const DISTRIBUTION_ID = 'E1PAGESEXAMPLE';
const PARAMETERS = {
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
const COGNITO = 'https://business-platform-trial-123456789012.auth.eu-west-1.amazoncognito.com';
const EXECUTE_API = `https://${PARAMETERS['console-api-id']}.execute-api.eu-west-1.amazonaws.com`;

type App = ReturnType<typeof synthesize>;

function only(template: Template, type: string): Json {
  const found = Object.values(template.findResources(type));
  expect(found, type).toHaveLength(1);
  return found[0];
}

/** A stack's resource values as deployed: SSM parameters, pseudo parameters, the distribution's name. */
function deployed(template: Template, value: Json): Json {
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
function headersSent(config: Json): Record<string, string> {
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
function deployedFile(app: App, template: Template, source: number, name: string): string {
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
function functionEnvironments(app: App): Map<string, Record<string, string>> {
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
function consoleClient(app: App): Json {
  const template = app.template('-Stateful');
  const { CallbackURLs, LogoutURLs, AllowedOAuthScopes } = only(
    template,
    'AWS::Cognito::UserPoolClient',
  ).Properties;
  return deployed(template, { CallbackURLs, LogoutURLs, AllowedOAuthScopes });
}

describe('console pages on their CloudFront name', () => {
  let app: App;
  let pages: Template;
  let files: Template;

  beforeAll(() => {
    app = synthesize({ ...BASE, consolePages: 'true' });
    pages = app.template('-ConsolePages');
    files = app.template('-ConsolePagesFiles');
  }, SYNTH_TIMEOUT);

  it('passes cdk-nag and the template lint', () => {
    expect(() => app.built.app.synth()).not.toThrow();
    const lint = createTemplateLinter(loadSpec());
    const findings = [...app.templates].flatMap(([stack, template]) => lint(stack, template.toJSON()));
    expect(findings.map(formatFinding)).toEqual([]);
  });

  it('keeps the bucket private: public access blocked, TLS only, read by this distribution alone', () => {
    const bucket = only(pages, 'AWS::S3::Bucket');
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    const statements: Json[] = only(pages, 'AWS::S3::BucketPolicy').Properties.PolicyDocument.Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    const reads = statements.filter(
      (statement) => statement.Effect === 'Allow' && [statement.Action].flat().includes('s3:GetObject'),
    );
    expect(reads).toHaveLength(1);
    expect(reads[0].Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
    expect(deployed(pages, reads[0].Condition)).toEqual({
      StringEquals: { 'AWS:SourceArn': `arn:aws:cloudfront::123456789012:distribution/${DISTRIBUTION_ID}` },
    });
    // Nobody else may read: no statement allows any principal at all.
    expect(
      statements.filter((s) => s.Effect === 'Allow' && JSON.stringify(s.Principal).includes('"*"')),
    ).toEqual([]);
  });

  it('serves the bucket through origin access control, https only, index.html for / and every page path', () => {
    const config = only(pages, 'AWS::CloudFront::Distribution').Properties.DistributionConfig;
    const [origin] = config.Origins;
    expect(origin.OriginAccessControlId).toEqual({ 'Fn::GetAtt': [expect.any(String), 'Id'] });
    expect(
      only(pages, 'AWS::CloudFront::OriginAccessControl').Properties.OriginAccessControlConfig,
    ).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
    });
    expect(origin.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
    expect(config.DefaultRootObject).toBe('index.html');
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(config.DefaultCacheBehavior.AllowedMethods).toEqual(['GET', 'HEAD']);
    expect(config.CustomErrorResponses).toEqual(
      [403, 404].map((code) => ({
        ErrorCode: code,
        ResponseCode: 200,
        ResponsePagePath: '/index.html',
        ErrorCachingMinTTL: 0,
      })),
    );
  });

  it("sends the pages' headers, the CSP allowing the region's execute-api hosts and the Cognito domain", () => {
    const policy = only(pages, 'AWS::CloudFront::ResponseHeadersPolicy').Properties;
    expect(headersSent(deployed(pages, policy.ResponseHeadersPolicyConfig))).toEqual(
      consolePagesHeaders({
        apiOrigins: ['https://*.execute-api.eu-west-1.amazonaws.com'],
        signInOrigin: COGNITO,
      }),
    );
    const distribution = only(pages, 'AWS::CloudFront::Distribution').Properties.DistributionConfig;
    expect(distribution.DefaultCacheBehavior.ResponseHeadersPolicyId).toEqual({
      Ref: Object.keys(pages.findResources('AWS::CloudFront::ResponseHeadersPolicy'))[0],
    });
  });

  it('narrows connect-src in index.html to exactly the console API and the Cognito domain', () => {
    const shell = deployedFile(app, files, 1, PAGE_FILES.shell);
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">\n/.exec(shell);
    expect(meta?.[1]).toBe(`connect-src 'self' ${EXECUTE_API} ${COGNITO}`);
    // Before the style and the script, and otherwise the shell the build writes.
    expect(shell.indexOf(meta?.[0] ?? '')).toBeLessThan(shell.indexOf('<link'));
    expect(shell.replace(meta?.[0] ?? '', '')).toBe(pageShell('/'));
  });

  it("writes config.json with the console API's URL, the Cognito endpoints and the app client", () => {
    const config = ConsolePagesConfig.parse(JSON.parse(deployedFile(app, files, 2, CONFIG_FILE)));
    expect(config).toEqual({
      apiUrl: EXECUTE_API,
      signIn: {
        authorizeUrl: `${COGNITO}/oauth2/authorize`,
        tokenUrl: `${COGNITO}/oauth2/token`,
        logoutUrl: `${COGNITO}/logout`,
        clientId: PARAMETERS['jwt-audience'],
        scopes: [...CONSOLE_SIGN_IN_SCOPES],
      },
    });
    const client = consoleClient(app);
    expect([...client.AllowedOAuthScopes].sort()).toEqual([...CONSOLE_SIGN_IN_SCOPES].sort());
  });

  it('copies the files into the pages bucket, then invalidates the distribution', () => {
    const { ServiceToken: _handler, ...properties } = only(files, 'Custom::CDKBucketDeployment').Properties;
    const deployment = deployed(files, properties);
    expect(deployment).toMatchObject({
      DestinationBucketName: PARAMETERS['console-pages-bucket-name'],
      DistributionId: PARAMETERS['console-pages-distribution-id'],
      DistributionPaths: ['/*'],
      Prune: true,
      SystemMetadata: { 'cache-control': 'no-cache' },
    });
    expect(deployment.SourceObjectKeys).toHaveLength(3);
  });

  it("publishes the distribution's URL, which the app client, the CORS and the functions use", () => {
    const published = Object.values<Json>(pages.findResources('AWS::SSM::Parameter')).find(
      (parameter) => parameter.Properties.Name === `/business-platform/${STAGE}/console-pages-url`,
    );
    expect(deployed(pages, published.Properties.Value)).toBe(PARAMETERS['console-pages-url']);

    const site = PARAMETERS['console-pages-url'];
    const client = consoleClient(app);
    expect(client.CallbackURLs).toEqual([`${site}/auth/callback`]);
    expect(client.LogoutURLs).toEqual([`${site}/`]);

    const api = app.template('-Api');
    const consoleApi = Object.values<Json>(api.findResources('AWS::ApiGatewayV2::Api')).find(
      (resource) => resource.Properties.CorsConfiguration,
    );
    expect(deployed(api, consoleApi.Properties.CorsConfiguration.AllowOrigins)).toEqual([site]);

    const environments = functionEnvironments(app);
    const linking = [...environments].filter(([, environment]) => 'CONSOLE_URL' in environment);
    expect(linking.map(([operationId]) => operationId)).toEqual(
      expect.arrayContaining(['authorizeOAuthClient', 'invitePlatformAdmin']),
    );
    for (const [operationId, environment] of linking) expect(environment.CONSOLE_URL, operationId).toBe(site);
    const mcp = [...environments.values()].filter((environment) => 'MCP_ALLOWED_ORIGINS' in environment);
    expect(mcp.length).toBeGreaterThan(0);
    for (const environment of mcp) expect(environment.MCP_ALLOWED_ORIGINS).toBe(site);
  });

  it('deploys the site before the stacks that read its URL, and the files after the API', () => {
    const { pages: site, stateful, api, stages, pagesFiles } = app.built;
    expect(stateful.dependencies).toContain(site);
    expect(api.dependencies).toContain(site);
    expect(pagesFiles?.dependencies).toEqual(expect.arrayContaining([site, stateful, stages]));
  });
});

describe('console pages on a name of the customer', () => {
  const settings = {
    ...BASE,
    consolePages: 'true',
    consoleDomainName: 'Console.customer.test',
    consolePagesCertificateArn: PAGES_CERTIFICATE,
    consoleApiDomainName: 'console-api.customer.test',
    certificateArn: API_CERTIFICATE,
    hostedZoneId: 'Z0123456789ABCDEFGHIJ',
    hostedZoneName: 'customer.test',
  };
  let app: App;

  beforeAll(() => {
    app = synthesize(settings);
  }, SYNTH_TIMEOUT);

  it('serves the name with its us-east-1 certificate and TLS 1.2, aliased in the hosted zone', () => {
    const pages = app.template('-ConsolePages');
    const config = only(pages, 'AWS::CloudFront::Distribution').Properties.DistributionConfig;
    expect(config.Aliases).toEqual(['console.customer.test']);
    expect(config.ViewerCertificate).toEqual({
      AcmCertificateArn: PAGES_CERTIFICATE,
      MinimumProtocolVersion: 'TLSv1.2_2021',
      SslSupportMethod: 'sni-only',
    });
    const records = Object.values<Json>(pages.findResources('AWS::Route53::RecordSet'));
    expect(records.map((record) => record.Properties.Type).sort()).toEqual(['A', 'AAAA']);
    for (const record of records) {
      expect(record.Properties).toMatchObject({
        Name: 'console.customer.test.',
        HostedZoneId: 'Z0123456789ABCDEFGHIJ',
      });
    }
  });

  it("names the console API's domain exactly in the header CSP and config.json, and the pages' name everywhere", () => {
    const pages = app.template('-ConsolePages');
    const policy = only(pages, 'AWS::CloudFront::ResponseHeadersPolicy').Properties;
    expect(headersSent(deployed(pages, policy.ResponseHeadersPolicyConfig))).toEqual(
      consolePagesHeaders({ apiOrigins: ['https://console-api.customer.test'], signInOrigin: COGNITO }),
    );
    const files = app.template('-ConsolePagesFiles');
    const config = JSON.parse(deployedFile(app, files, 2, CONFIG_FILE));
    expect(config.apiUrl).toBe('https://console-api.customer.test');

    const client = consoleClient(app);
    expect(client.CallbackURLs).toEqual(['https://console.customer.test/auth/callback']);
    expect(client.LogoutURLs).toEqual(['https://console.customer.test/']);
    const authorize = functionEnvironments(app).get('authorizeOAuthClient');
    expect(authorize?.CONSOLE_URL).toBe('https://console.customer.test');
  });

  it('passes cdk-nag and the template lint', () => {
    expect(() => app.built.app.synth()).not.toThrow();
    const lint = createTemplateLinter(loadSpec());
    const findings = [...app.templates].flatMap(([stack, template]) => lint(stack, template.toJSON()));
    expect(findings.map(formatFinding)).toEqual([]);
  });
});

describe('console pages beside a console of your own', () => {
  it(
    'lets both sign in and call the API, links to your console, and names the DNS target without a hosted zone',
    () => {
      const app = synthesize({
        ...BASE,
        consolePages: 'true',
        consoleDomainName: 'pages.customer.test',
        consolePagesCertificateArn: PAGES_CERTIFICATE,
        consoleUrl: 'https://console.customer.test',
      });
      const client = consoleClient(app);
      expect(client.CallbackURLs).toEqual([
        'https://console.customer.test/auth/callback',
        'https://pages.customer.test/auth/callback',
      ]);
      const api = app.template('-Api');
      const consoleApi = Object.values<Json>(api.findResources('AWS::ApiGatewayV2::Api')).find(
        (resource) => resource.Properties.CorsConfiguration,
      );
      expect(consoleApi.Properties.CorsConfiguration.AllowOrigins).toEqual([
        'https://console.customer.test',
        'https://pages.customer.test',
      ]);
      expect(functionEnvironments(app).get('authorizeOAuthClient')?.CONSOLE_URL).toBe(
        'https://console.customer.test',
      );
      const pages = app.template('-ConsolePages');
      expect(pages.findResources('AWS::Route53::RecordSet')).toEqual({});
      expect(Object.keys(pages.toJSON().Outputs)).toContain('ConsolePagesDomainTarget');
    },
    SYNTH_TIMEOUT,
  );
});

describe('console pages refused', () => {
  const read = (settings: Record<string, string>) => () => readServiceContext(newApp(settings));

  it('without managed login: srp sign-in, or another issuer', () => {
    expect(read({ consolePages: 'true', consoleSignIn: 'srp' })).toThrow(
      'context consolePages needs consoleSignIn hosted',
    );
    expect(
      read({ consolePages: 'true', issuer: 'https://id.customer.test', issuerAudience: 'console' }),
    ).toThrow("context consolePages signs in through the service's Cognito user pool");
  });

  it('with a certificate CloudFront cannot use, or a name without its certificate', () => {
    const pages = { consolePages: 'true', consoleDomainName: 'console.customer.test' };
    expect(read({ ...pages, consolePagesCertificateArn: API_CERTIFICATE })).toThrow(
      'context consolePagesCertificateArn is a certificate of eu-west-1: CloudFront takes certificates of us-east-1 only',
    );
    expect(read({ ...pages, consolePagesCertificateArn: 'certificate' })).toThrow(
      'context consolePagesCertificateArn must be an ACM certificate ARN',
    );
    expect(read(pages)).toThrow(
      'context consoleDomainName console.customer.test needs consolePagesCertificateArn',
    );
    expect(read({ consolePages: 'true', consolePagesCertificateArn: PAGES_CERTIFICATE })).toThrow(
      'context consolePagesCertificateArn is set, but consoleDomainName is not',
    );
    expect(read({ ...pages, consoleDomainName: 'https://console.customer.test' })).toThrow(
      'context consoleDomainName must be a DNS name',
    );
  });

  it('with their settings but without consolePages', () => {
    expect(read({ consoleDomainName: 'console.customer.test' })).toThrow(
      'context consoleDomainName is set, but consolePages is not true',
    );
  });

  it('with a hosted zone that does not hold their name', () => {
    expect(
      read({
        consolePages: 'true',
        consoleDomainName: 'console.elsewhere.test',
        consolePagesCertificateArn: PAGES_CERTIFICATE,
        hostedZoneId: 'Z0123456789ABCDEFGHIJ',
        hostedZoneName: 'customer.test',
      }),
    ).toThrow('context hostedZoneName customer.test does not hold console.elsewhere.test');
  });
});

describe('without consolePages', () => {
  it(
    'has no pages stacks, no bucket deployment and no distribution; the app client calls back to consoleUrl',
    () => {
      const built = buildServiceApp({ app: newApp() });
      expect(built.pages).toBeUndefined();
      expect(built.pagesFiles).toBeUndefined();
      const stacks = [built.stateful, built.api, ...built.routeStacks, built.stages];
      for (const stack of stacks) {
        const template = Template.fromStack(stack);
        template.resourceCountIs('AWS::CloudFront::Distribution', 0);
        template.resourceCountIs('Custom::CDKBucketDeployment', 0);
        template.resourceCountIs('AWS::CloudFront::ResponseHeadersPolicy', 0);
        expect(JSON.stringify(template.toJSON())).not.toContain('console-pages');
      }
      const client = only(Template.fromStack(built.stateful), 'AWS::Cognito::UserPoolClient');
      expect(client.Properties.CallbackURLs).toEqual(['https://console.example.com/auth/callback']);
    },
    SYNTH_TIMEOUT,
  );
});
